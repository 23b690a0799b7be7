"""bench's trained models behind lm-evaluation-harness's three requests (bench/export/lm_eval_model.py), checked
against bench's own evaluation of the same text; with lm-eval installed, also registered and run through lm-eval's
own objects (skipped, with the install command, where it is absent)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch

from bench.cli import main
from bench.export.lm_eval_model import PREFIX, BenchLMCore
from suites.common.lm import evaluate_nll
from variants.decode.generate import greedy_generate

pytestmark = pytest.mark.slow
TEXT = (
    "In the beginning God created the heavens and the earth. The earth was formless and empty. "
    "Darkness was on the surface of the deep and God's Spirit was hovering over the surface of the waters."
)


@dataclass
class Request:
    args: tuple


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    results = tmp_path_factory.mktemp("lm_eval") / "results"
    args = ["run", "suite=position_extrapolation", "variants=[rope]", "seeds=[0]", "set.steps=20", "progress=false"]
    assert main([*args, f"results_dir={results}"]) == 0
    return BenchLMCore(variant="rope", results_dir=str(results))


def test_the_rolling_loglikelihood_is_bench_s_own_evaluation_of_the_text(model):
    length = model.max_length
    ids = model.encode(TEXT)[: 4 * length]  # whole windows, as bench's non-overlapping protocol scores them
    text = model.decode(ids)
    (rolling,) = model.loglikelihood_rolling([Request((text,))])
    nll, count = evaluate_nll(model.model, torch.tensor([PREFIX, *ids]), length, protocol="nonoverlapping")
    assert count == len(ids)
    assert rolling == pytest.approx(-nll, rel=1e-5)


def test_a_text_longer_than_the_windows_is_scored_once_per_character(model):
    ids = model.encode(TEXT)
    windows = model.rolling_windows(ids)
    assert sum(scored for _, scored in windows) == len(ids)
    assert all(len(window) <= model.max_length + 1 for window, _ in windows)
    assert windows[-1][0][-1] == ids[-1]  # the last window ends on the last character, with full context


def test_a_continuation_s_loglikelihood_is_the_difference_of_rolling_ones(model):
    context, continuation = "In the beginning God", " created"
    (whole,) = model.loglikelihood_rolling([Request((context + continuation,))])
    (prefix,) = model.loglikelihood_rolling([Request((context,))])
    ((score, _),) = model.loglikelihood([Request((context, continuation))])
    assert score == pytest.approx(whole - prefix, rel=1e-6, abs=1e-6)


def test_generation_is_bench_s_greedy_decoding_stopped_at_until(model):
    context = "In the beginning"
    (free,) = model.generate_until([Request((context, {"until": [], "max_gen_toks": 8}))])
    steps, _ = greedy_generate(model.model, torch.tensor([[PREFIX, *model.encode(context)]]), 8, use_cache=True)
    assert free == model.decode(steps[0].tolist())
    stop = free[3]
    (cut,) = model.generate_until([Request((context, {"until": [stop], "max_gen_toks": 8}))])
    assert cut == free.split(stop)[0] and stop not in cut


def test_lm_eval_finds_the_model_by_name_and_runs_its_requests(model, tmp_path):
    lm_eval = pytest.importorskip("lm_eval", reason="needs lm-eval: pip install lm-eval")
    from lm_eval.api.instance import Instance
    from lm_eval.api.registry import get_model

    from bench.export.lm_eval_model import BenchLM

    assert get_model("bench") is BenchLM
    # the same trained weights, read again through lm-eval's own argument string
    lm = BenchLM.create_from_arg_string(f"variant=rope,results_dir={model.results_dir}")
    request = Instance("loglikelihood_rolling", {}, (TEXT[:64],), 0)
    (theirs,) = lm.loglikelihood_rolling([request])
    (ours,) = model.loglikelihood_rolling([Request((TEXT[:64],))])
    assert theirs == pytest.approx(ours) and lm_eval is not None
