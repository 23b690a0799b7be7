"""sequence_cost's mixer layers (minGRU, linear attention): checked against their step loop, decode steps of fixed
state against a growing KV cache, and the verdict on minGRU's parallel scan against the sequential GRU."""

import dataclasses

import pandas as pd
import pytest
import torch

from harness.contract import JobContext, suites
from suites.sequence_cost.decode import step_call
from suites.sequence_cost.scan import SCAN, scan_finding
from suites.sequence_cost.suite import PROFILES, _build, _check, useful_flops
from suites.sequence_cost.tables import _frame
from variants.mixer_layer import MixerLayerSpec

SUITE = suites.get("sequence_cost")
PROFILE = dataclasses.replace(PROFILES["quick"], d_model=16, n_heads=4, batch=2, check_len=8)


@pytest.mark.parametrize("variant", ["mingru", "linear_attention", "mingru+loop"])
def test_mixer_variants_build_mixer_layers_that_pass_the_float64_check(variant):
    spec = SUITE.spec_for(variant, PROFILE, {})
    assert isinstance(spec, MixerLayerSpec) and spec.recurrence == ("loop" if "loop" in variant else "parallel")
    layer = _build(spec)
    error, allowed = _check(layer, spec, PROFILE, 0, "cpu", torch.float32)
    assert error <= allowed
    assert layer.sequential_steps(100) == (100 if spec.recurrence == "loop" else 1)
    assert useful_flops(spec, 2, 16, backward=False) > 0


def test_a_mixer_state_stays_fixed_while_the_kv_cache_grows():
    gen = torch.Generator().manual_seed(0)
    sizes = {}
    for variant in ("mingru", "linear_attention", "transformer", "lstm"):
        spec = SUITE.spec_for(variant, PROFILE, {})
        layer = _build(spec)
        for context in (4, 64):
            call, state_bytes = step_call(layer, spec, 2, context, "cpu", torch.float32, gen)
            with torch.no_grad():
                call()
            sizes[variant, context] = state_bytes
    assert sizes["mingru", 4] == sizes["mingru", 64] == 16 * 4
    assert sizes["linear_attention", 4] == sizes["linear_attention", 64] == 4 * (4 * 4 + 4) * 4
    assert sizes["lstm", 64] == 2 * 16 * 4
    assert sizes["transformer", 64] == 16 * sizes["transformer", 4] == 2 * 64 * 16 * 4


def _records(gru_loop, mingru):
    rows = []
    for variant, latencies in (("gru+loop", gru_loop), ("mingru", mingru)):
        for x, ms in latencies.items():
            rows.append(
                dict(
                    metric="latency",
                    status="ok",
                    variant=variant,
                    x=float(x),
                    value=ms,
                    device="cpu",
                    extra={"pass": "fwd+bwd"},
                    spec={
                        "family": "recurrent_layer" if variant == "gru+loop" else "mixer_layer",
                        "cell": "gru",
                        "mixer": "mingru",
                        "recurrence": "loop",
                    },
                )
            )
    return _frame(pd.DataFrame(rows))


@pytest.mark.parametrize(
    "gru_loop,mingru,verdict",
    [
        ({64: 20.0, 512: 400.0}, {64: 10.0, 512: 40.0}, "agrees"),  # 2x -> 10x
        ({64: 20.0, 512: 400.0}, {64: 5.0, 512: 200.0}, "inconclusive"),  # 4x -> 2x: faster, but the lead shrinks
        ({64: 20.0, 512: 100.0}, {64: 10.0, 512: 150.0}, "disagrees"),  # slower at the longest length
    ],
)
def test_the_scan_verdict_reads_the_latency_ratio(gru_loop, mingru, verdict):
    found = scan_finding(_records(gru_loop, mingru))
    assert found.claim == SCAN and found.verdict == verdict
    assert "GPU figure" in found.sentence and (found.cause == "") == (verdict == "agrees")


@pytest.mark.parametrize("variant", ["mamba2", "gated_deltanet", "gated_deltanet+loop", "gla", "deltanet"])
def test_chunked_recurrences_pass_the_float64_check_and_keep_a_fixed_state(variant):
    spec = SUITE.spec_for(variant, PROFILE, {})
    layer = _build(spec)
    error, allowed = _check(layer, spec, PROFILE, 0, "cpu", torch.float32)
    assert error <= allowed
    # the chunked form's depth is one step per chunk (32 tokens by default, GLA's 16); the loop's one per token
    assert layer.sequential_steps(100) == (100 if "loop" in variant else (7 if variant == "gla" else 4))
    gen = torch.Generator().manual_seed(0)
    sizes = {context: step_call(layer, spec, 2, context, "cpu", torch.float32, gen)[1] for context in (4, 64)}
    assert sizes[4] == sizes[64] == layer.mixer.state_numel() * 4  # counted from the live state, as the formula says


def _chunked_records(loop, chunked, device="cuda:0"):
    rows = []
    for variant, latencies in (("gated_deltanet+loop", loop), ("gated_deltanet", chunked)):
        for x, ms in latencies.items():
            rows.append(
                dict(
                    metric="latency",
                    status="ok",
                    variant=variant,
                    x=float(x),
                    value=ms,
                    device=device,
                    extra={"pass": "fwd+bwd"},
                    spec={
                        "family": "mixer_layer",
                        "mixer": "gated_deltanet",
                        "recurrence": "loop" if "loop" in variant else "parallel",
                    },
                )
            )
    return _frame(pd.DataFrame(rows))


@pytest.mark.parametrize(
    "loop,chunked,verdict",
    [
        ({64: 30.0, 1024: 800.0}, {64: 10.0, 1024: 40.0}, "agrees"),  # 3x -> 20x
        ({64: 30.0, 1024: 100.0}, {64: 10.0, 1024: 40.0}, "inconclusive"),  # 3x -> 2.5x: faster, not more so
        ({64: 10.0, 1024: 40.0}, {64: 30.0, 1024: 100.0}, "disagrees"),  # the chunked form slower
    ],
)
def test_the_chunked_form_verdict_follows_the_ratio_and_its_growth(loop, chunked, verdict):
    from suites.sequence_cost.chunked import chunked_finding

    found = chunked_finding(_chunked_records(loop, chunked))
    assert found.verdict == verdict and found.headline.label.endswith("at 1024 tokens")


@pytest.mark.parametrize(
    "loop,chunked,verdict",
    [
        ({64: 30.0, 1024: 800.0}, {64: 10.0, 1024: 40.0}, "not testable here"),  # grows, but a CPU cannot show why
        ({64: 30.0, 1024: 100.0}, {64: 10.0, 1024: 40.0}, "not testable here"),  # faster, not more so
        ({64: 10.0, 1024: 40.0}, {64: 30.0, 1024: 100.0}, "disagrees"),  # slower: a CPU can show that
    ],
)
def test_on_a_cpu_the_growth_half_is_not_testable_whatever_the_ratio(loop, chunked, verdict):
    from suites.sequence_cost.chunked import chunked_finding

    found = chunked_finding(_chunked_records(loop, chunked, device="cpu"))
    assert found.verdict == verdict and found.headline.label.endswith("at 1024 tokens")
    if verdict != "disagrees":
        assert "device=cuda" in found.cause and "3.00x at 64 tokens" in found.cause
