"""Verdict functions on made-up records: each says "agrees", "disagrees" and "inconclusive" where it must,
and the toolkit's verdict helpers read a metric's direction."""

import math

import pandas as pd
import pytest

from harness.contract import Metric
from harness.report_kit import better, combine, in_order, metric, status_notes, worse
from suites.attention_cost import verdicts as cost


def test_the_direction_of_a_metric_decides_better_and_worse():
    ppl = metric("language_modeling", "perplexity")
    assert not ppl.higher_is_better
    assert better(ppl, 4.0, 5.0) and worse(ppl, 5.0, 4.0)
    acc = Metric("accuracy", "", True)
    assert better(acc, 0.9, 0.5) and not better(acc, 0.5, 0.9)
    assert not better(acc, math.nan, 0.5) and not worse(acc, math.nan, 0.5)


def test_combine_and_order_and_status_notes():
    assert combine([]) == "not run"
    assert combine(["agrees", "agrees"]) == "agrees"
    assert combine(["disagrees"]) == "disagrees"
    assert combine(["agrees", "disagrees"]) == "inconclusive"
    assert in_order(["b", "z", "a", "y"], ("z", "y")) == ["z", "y", "a", "b"]
    df = pd.DataFrame([{"variant": "a", "status": "ok", "reason": None},
                       {"variant": "b", "status": "diverged", "reason": "loss nan at step 3"},
                       {"variant": "b", "status": "diverged", "reason": "loss nan at step 3"},
                       {"variant": "c", "status": "skipped", "reason": "over budget"}])
    assert status_notes(df) == ["- `b`: diverged: loss nan at step 3", "- `c`: skipped: over budget"]
    assert status_notes(df, statuses=["skipped"]) == ["- `c`: skipped: over budget"]


def _shares(points):
    """SDPA forward FLOP/s shares of the matmul peak: (length, causal, share) per seed 0 and 1."""
    return pd.DataFrame([{"metric": "peak_fraction", "status": "ok", "pass": "fwd", "kernel": "sdpa", "grouping": "MHA",
                          "x": x, "causal": causal, "value": share + seed, "seed": seed}
                         for x, causal, share in points for seed in (0, 1)],
                        columns=["metric", "status", "pass", "kernel", "grouping", "x", "causal", "value", "seed"])


def test_attention_cost_share_of_peak_verdict():
    assert cost.PEAK.kind == "check"  # a regression against this project's own earlier measurement
    assert "REFERENCES" not in cost.PEAK.source + cost.PUBLISHED
    assert cost._peak_finding(_shares([(4096, False, 65), (4096, True, 60)])).verdict == "agrees"
    disagrees = cost._peak_finding(_shares([(4096, False, 20), (4096, True, 15)]))
    assert disagrees.verdict == "disagrees" and disagrees.cause
    assert cost._peak_finding(_shares([(4096, False, 120), (4096, True, 60)])).verdict == "inconclusive"  # over 100%
    assert cost._peak_finding(_shares([(1024, False, 65), (1024, True, 60)])).verdict == "inconclusive"  # other length
    assert cost._peak_finding(_shares([])).verdict == "not run"


EMPTY = pd.DataFrame(columns=["metric", "status", "pass", "variant", "causal", "x", "value", "seed"])


def _memory(slopes):
    """The memory finding from forward slopes {(variant, causal): slope}, each against naive of its heads."""
    found = {(v, c, "fwd"): {"peak_memory": s} for (v, c), s in slopes.items()}
    return cost._memory_finding(EMPTY, found, {v: "naive" for v, _ in slopes}, [])


@pytest.mark.parametrize("slopes, verdict", [
    ({("sdpa", False): 0.95, ("flex", False): 0.91, ("naive", False): 1.96}, "agrees"),
    # the unfused math path grows quadratically by design: shown, never judged
    ({("sdpa", False): 0.95, ("sdpa_math", False): 1.96, ("naive", False): 1.96}, "agrees"),
    ({("flex", False): 1.9, ("naive", False): 1.96}, "disagrees"),      # quadratic like naive
    ({("flex", False): 1.66, ("naive", False): 1.96}, "inconclusive"),  # between the margins (block_mask=None's 1.66)
    ({("sdpa", False): 0.95, ("flex", False): 1.9, ("naive", False): 1.96}, "inconclusive"),
    ({("sdpa", False): 0.95, ("naive", False): 1.3}, "inconclusive"),   # naive not quadratic: nothing to contrast
    ({("sdpa_math", False): 1.96, ("naive", False): 1.96}, "not run"),  # no fused kernel
])
def test_attention_cost_memory_verdict_judges_fused_kernels_only(slopes, verdict):
    found = _memory(slopes)
    assert found.verdict == verdict
    assert (found.cause != "") == (verdict in ("disagrees", "inconclusive"))
    assert not any("sdpa_math" in e.label for e in found.estimates)
    if ("sdpa_math", False) in slopes:
        assert "`sdpa_math` slopes 1.96" in found.sentence and "unfused" in found.sentence
