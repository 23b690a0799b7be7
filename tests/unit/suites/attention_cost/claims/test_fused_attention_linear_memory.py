"""Fused attention's memory grows linearly where naive's grows quadratically: a check of the kernels' algorithm."""

import pytest

from suites.attention_cost.claims import fused_attention_linear_memory as claim
from suites.attention_cost.claims._shared import LINEAR
from tests.unit.suites.attention_cost.claims._records import memory


def test_it_is_a_check():
    assert claim.CLAIM.kind == "check"  # linear memory is the fused kernels' algorithm, the same for every seed


@pytest.mark.parametrize(
    "slopes, verdict",
    [
        ({("sdpa", False): 0.95, ("flex", False): 0.91, ("naive", False): 1.96}, "agrees"),
        # the unfused math path grows quadratically by design: shown, never judged
        ({("sdpa", False): 0.95, ("sdpa_math", False): 1.96, ("naive", False): 1.96}, "agrees"),
        ({("flex", False): 1.9, ("naive", False): 1.96}, "disagrees"),  # quadratic like naive
        (
            {("flex", False): 1.66, ("naive", False): 1.96},
            "inconclusive",
        ),  # between the margins (block_mask=None's 1.66)
        (
            {("sdpa", False): 0.95, ("flex", False): 1.9, ("naive", False): 1.96},
            "disagrees",
        ),  # one quadratic kernel fails
        ({("sdpa", False): 0.95, ("naive", False): 1.3}, "inconclusive"),  # naive not quadratic: nothing to contrast
        ({("sdpa_math", False): 1.96, ("naive", False): 1.96}, "not run"),  # no fused kernel
    ],
)
def test_attention_cost_memory_verdict_judges_fused_kernels_only(slopes, verdict):
    found = claim.judge(memory(slopes))
    assert found.verdict == verdict
    assert (found.cause != "") == (verdict in ("disagrees", "inconclusive"))
    assert not any("sdpa_math" in e.label for e in found.estimates)
    if found.estimates:  # the steepest fused slope against the linear bound
        assert found.boundary == LINEAR and found.headline.value == max(e.value for e in found.estimates)
    if ("sdpa_math", False) in slopes:
        assert "`sdpa_math` slopes 1.96" in found.sentence and "unfused" in found.sentence
