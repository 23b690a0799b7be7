"""language_modeling's recurrent arms: a mixer LM at the baseline's parameter count, and its inference cost measured
from its live state (flat for a recurrence, growing for a hybrid's attention blocks)."""

import pytest
import torch

from harness.errors import UsageError
from suites.common.families import count
from suites.common.state_cost import state_inference_costs
from suites.language_modeling.mixers import mixer_spec
from suites.language_modeling.summary import family_of
from variants.models.mixer_lm import MixerSpec, build
from variants.spec import TransformerSpec, resolve

BASE = TransformerSpec(vocab_size=40, d_model=32, n_layers=2, n_heads=4, max_len=16, position="rope", init="fan_in")


@pytest.mark.parametrize("variant", ["mamba2", "gated_deltanet", "gla", "mamba2+hybrid2"])
def test_a_mixer_arm_is_matched_to_the_baseline_by_its_ffn(variant):
    spec = mixer_spec(variant, BASE)
    assert isinstance(spec, MixerSpec) and spec.d_model == BASE.d_model and spec.n_heads == BASE.n_heads
    assert abs(count(spec) - count(BASE)) / count(BASE) < 0.01
    assert family_of(spec.to_dict(), BASE.to_dict()) == "recurrence"


def test_a_schedule_part_on_a_mixer_arm_is_refused():
    from suites.language_modeling.suite import PROFILES, LanguageModeling

    with pytest.raises(UsageError, match="apply to Transformer arms only"):
        LanguageModeling().spec_for("mamba2+no_warmup", PROFILES["quick"], {"data": None})


@pytest.mark.parametrize("variant,grows", [("gated_deltanet", False), ("mamba2+hybrid2", True)])
def test_state_costs_come_from_the_live_state_and_agree_with_the_count(variant, grows):
    torch.manual_seed(0)
    model = build(resolve(variant, MixerSpec(vocab_size=20, d_model=16, n_layers=2, n_heads=2))).eval()
    out = {(m.metric, m.x): m for m in state_inference_costs(model, 20, 8, "cpu", torch.float32, 0)}
    small, large = out["state_bytes", 8.0], out["state_bytes", 64.0]
    assert small.status == large.status == "ok"
    assert small.value == model.state_numel(8) * 4 and large.value == model.state_numel(64) * 4
    per_token = out["kv_cache_bytes_per_token", None].value
    if grows:  # one attention block of two: keys and values of d = 16 each per token, float32
        assert per_token == 2 * 16 * 4 and large.value > small.value
    else:
        assert per_token == 0 and large.value == small.value
    assert out["decode_latency", 64.0].status == "ok" and out["decode_latency", 64.0].extra["max_error_vs_full"] < 1e-4
