"""``bench export`` end to end: the README's commands (its "Using bench's models elsewhere" section) run on a tiny
training, and each checkpoint loads with ``transformers`` and computes what bench's trained model computes.

The README's ``bench run`` line runs with ``set.steps=2`` and a temporary results folder added (a real training's
length changes no mapping); the ``bench export`` lines run as written, in a temporary folder.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import torch

from bench.cli import main
from bench.config import ExportConfig
from bench.export.command import trained_model

transformers = pytest.importorskip(
    "transformers", reason="needs transformers: pip install transformers (or pip install -e .[hf])"
)

README = Path(__file__).resolve().parents[2] / "README.md"
pytestmark = pytest.mark.slow


def readme_commands() -> list[list[str]]:
    """The bench commands of the README's section on using bench's models elsewhere, as argument lists."""
    section = README.read_text().split("## Using bench's models elsewhere", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```\n(bench .*?)```", section, re.S).group(1)
    return [shlex.split(line)[1:] for line in block.strip().splitlines()]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("export")
    results = folder / "results"
    commands = readme_commands()
    assert [c[0] for c in commands] == ["run", "export", "export", "export"]
    for command in commands:
        args = [a if not a.startswith("out=") else f"out={folder / a[4:]}" for a in command]
        extra = ["set.steps=2", "progress=false"] if command[0] == "run" else []
        assert main([*args, *extra, f"results_dir={results}"]) == 0, command
    return folder, results


@pytest.mark.parametrize("variant, out, name", [("rope+gqa2+rmsnorm+swiglu", "exports/llama", "LlamaForCausalLM"),
                                                 ("learned", "exports/gpt2", "GPT2LMHeadModel"),
                                                 ("alibi+layernorm_nobias", "exports/mpt", "MptForCausalLM")])  # fmt: skip
def test_each_readme_export_computes_the_trained_model_s_logits(exported, variant, out, name):
    folder, results = exported
    ours, record, suite = trained_model(ExportConfig(variant=variant, results_dir=str(results)))
    theirs = transformers.AutoModelForCausalLM.from_pretrained(folder / out, attn_implementation="eager").eval()
    assert type(theirs).__name__ == name
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder / out)
    text = "In the beginning was the Word."  # within the quick profile's 32 positions
    ids = tokenizer(text, add_special_tokens=False, return_tensors="pt")["input_ids"]
    chars = suite.vocabulary(record)
    assert ids[0].tolist() == [chars.index(c) + 1 if c in chars else 0 for c in text]
    with torch.no_grad():
        difference = float((ours(ids) - theirs(ids).logits).abs().max())
    assert difference < 1e-4  # float32 throughout
    prompt = ids[:, :8]
    from variants.decode.generate import greedy_generate

    steps, _ = greedy_generate(ours, prompt, 16, use_cache=True)
    generated = theirs.generate(prompt, max_new_tokens=16, do_sample=False, pad_token_id=0)
    assert steps.tolist() == generated[:, prompt.shape[1] :].tolist()


def test_a_variant_no_architecture_computes_is_refused_in_one_sentence(exported, capsys):
    _, results = exported
    assert main(["export", "variant=rope+gqa2+rmsnorm+swiglu", "seed=7", f"results_dir={results}"]) == 2
    assert "No trained model of variant=rope+gqa2+rmsnorm+swiglu seed=7" in capsys.readouterr().err
    assert main(["export", "variant=alibi", f"results_dir={results}"]) == 2  # alibi has records? none: one sentence
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize(
    "args, words",
    [
        ([], "needs variant=NAME"),
        (["variant=rope", "suite=nope"], "nope"),
        (["variant=rope", "seed=-1"], "seed=-1"),
        (["variant=rope", "colour=red"], "colour"),
    ],
)
def test_bad_export_input_is_one_sentence_and_exit_status_2(exported, capsys, args, words):
    _, results = exported
    assert main(["export", *args, f"results_dir={results}"]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
