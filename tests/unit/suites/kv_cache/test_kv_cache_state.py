"""kv_cache's recurrent arms: the live state equals the model's count at every context (flat for a recurrence,
growing for a hybrid), the stepped greedy tokens equal full forwards', and the K/V decode paths say why they skip."""

import dataclasses

import pytest
import torch

from harness.contract import suites
from suites.kv_cache import state_steps
from suites.kv_cache.suite import PROFILES
from variants.models.mixer_lm import MixerSpec, build

PROFILE = dataclasses.replace(
    PROFILES["quick"], d_model=16, n_heads=2, n_layers=2, vocab_size=20, prompt_len=4, generate=6, contexts=(8, 32)
)


def _timed(metric, fn, where, first):
    from harness.contract import Measurement

    return Measurement(metric, 1.0, **where)


@pytest.mark.parametrize("variant,grows", [("gated_deltanet", False), ("mamba2+hybrid2", True)])
def test_the_state_is_measured_live_and_equals_the_count(variant, grows):
    spec = suites.get("kv_cache").spec_for(variant, PROFILE, {})
    assert isinstance(spec, MixerSpec) and spec.d_model == 16
    torch.manual_seed(0)
    model = build(spec).eval()
    with torch.inference_mode():
        assert state_steps.greedy_match(model, PROFILE, 0, "cpu").status == "ok"
        sizes = {}
        for context in PROFILE.contexts:
            out = {
                m.metric: m
                for m in state_steps.context_measurements(model, PROFILE, context, 0, "cpu", torch.float32, _timed)
            }
            assert out["cache_bytes"].status == "ok" and out["cache_bytes"].value == out["cache_bytes_analytic"].value
            assert out["decode_latency"].status == "ok"
            sizes[context] = out["cache_bytes"].value
    assert (sizes[32] > sizes[8]) == grows


def test_the_grouped_decode_paths_are_unsupported_for_a_recurrent_state():
    out = state_steps.no_paths((64,))
    assert out and all(m.status == "unsupported" and "recurrent state" in m.reason for m in out)
