"""The paired throughput benchmark (tests/benchmarks/paired_gpt.py): both models build, have the same
parameters, train a step without NaN, and the alternating rounds run (at a tiny size; no timing is judged)."""

import math

import pytest
import torch

from harness.train import TrainSettings, train
from suites.common.lm import lm_loss
from tests.benchmarks.paired_gpt import default_pairing, harness_model, plain_round, run_paired, token_batches
from tests.benchmarks.plain_gpt import PlainConfig, PlainGPT

SMALL = PlainConfig(block_size=32, batch_size=2)


def nanogpt_count(c: PlainConfig) -> int:
    """nanoGPT's parameters with LayerNorm biases: tied token embedding, position table, 12 d^2 + 2 LayerNorms
    (4 d) per layer, final LayerNorm (2 d)."""
    d = c.n_embd
    return c.vocab_size * d + c.block_size * d + c.n_layer * (12 * d * d + 4 * d) + 2 * d


def test_both_build_with_the_same_parameters():
    # the rule: exactly equal counts (both keep LayerNorm biases; nanoGPT with bias=False has
    # (2 n_layer + 1) d = 1152 fewer), and equal to nanoGPT's architecture counted by hand
    c = PlainConfig()
    a, b = harness_model(c), PlainGPT(c)
    assert (a.spec.position, a.spec.kernel, a.spec.norm, a.spec.norm_placement, a.spec.ffn) == (
        "learned",
        "sdpa",
        "layernorm",
        "pre",
        "gelu",
    )
    assert (a.spec.n_layers, a.spec.n_heads, a.spec.d_model, a.spec.max_len, a.spec.vocab_size, a.spec.dropout) == (
        4,
        4,
        128,
        256,
        65,
        0.0,
    )
    assert a.num_parameters() == b.num_parameters() == nanogpt_count(c) == 829_824
    assert a.head.weight is a.embed.weight and b.head.weight is b.tok.weight  # both tied


def _finite(model) -> bool:
    return all(torch.isfinite(p).all() for p in model.parameters())


def test_one_step_of_each_is_finite_and_moves_the_weights():
    batches = token_batches(SMALL, 2, "cpu")
    a, b = harness_model(SMALL), PlainGPT(SMALL)
    before_a = [p.detach().clone() for p in a.parameters()]
    before_b = [p.detach().clone() for p in b.parameters()]
    result = train(
        a,
        lambda m, step: (lm_loss(m, *batches[0]), batches[0][0].numel()),
        TrainSettings(steps=1, lr=1e-3),
        progress=False,
    )
    plain_round(b, b, batches, warmup=1, steps=1, device="cpu")
    assert math.isfinite(result.losses[0]) and math.isfinite(result.grad_norms[0])
    _, loss = b(*batches[0])
    assert torch.isfinite(loss)
    assert _finite(a) and _finite(b)
    assert any(not torch.equal(p, q) for p, q in zip(a.parameters(), before_a))
    assert any(not torch.equal(p, q) for p, q in zip(b.parameters(), before_b))


def test_alternating_rounds_run():
    lines = []
    result = run_paired(SMALL, rounds=2, steps=1, warmup=1, log=lines.append)
    assert len(result.ratios) == 2 and len(lines) == 2
    assert all(r > 0 and math.isfinite(r) for r in result.ratios)
    assert result.params["harness"] == result.params["plain"]


def test_compiled_rounds_also_time_the_plain_model_eager(monkeypatch):
    # compiling is replaced by the identity here (Inductor's CPU build takes minutes); what is checked is that
    # each compiled round also times plain eager and reports the harness's gain over it
    monkeypatch.setattr(torch, "compile", lambda model, **kw: model)
    lines = []
    result = run_paired(SMALL, rounds=2, steps=1, warmup=1, compile=True, log=lines.append)
    assert len(result.plain_eager_tps) == 2 and len(result.compile_gains) == 2
    assert all(g > 0 and math.isfinite(g) for g in result.compile_gains)
    assert all("plain eager" in line for line in lines)
    assert run_paired(SMALL, rounds=1, steps=1, warmup=1).compile_gains == []


def test_step_pairing_times_every_step_of_both_loops():
    result = run_paired(SMALL, rounds=2, steps=3, warmup=1, pairing="step")
    assert len(result.ratios) == 2 and len(result.step_ratios) == 2 * 3  # one ratio per timed pair of steps
    assert all(r > 0 and math.isfinite(r) for r in result.ratios + result.step_ratios)
    assert run_paired(SMALL, rounds=1, steps=1, warmup=1, pairing="round").step_ratios == []


def test_step_pairing_is_the_cpu_eager_default_and_refused_elsewhere():
    assert default_pairing("cpu", False) == "step"
    assert default_pairing("cpu", True) == default_pairing("cuda", False) == "round"
    with pytest.raises(ValueError, match="pairing 'step'"):
        run_paired(SMALL, rounds=1, steps=1, warmup=1, compile=True, pairing="step")
    with pytest.raises(ValueError, match="not one of step, round"):
        run_paired(SMALL, rounds=1, steps=1, warmup=1, pairing="steps")
