"""sequence_cost's mixer layers (minGRU, linear attention, the chunked recurrences): checked against their step loop,
and decode steps of fixed state against a growing KV cache."""

import dataclasses

import pytest
import torch

from harness.contract import suites
from suites.sequence_cost.decode import step_call
from suites.sequence_cost.suite import PROFILES, _build, _check, useful_flops
from variants.models.mixer_layer import MixerLayerSpec

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
