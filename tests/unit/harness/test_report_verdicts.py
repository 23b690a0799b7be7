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
    df = pd.DataFrame(
        [
            {"variant": "a", "status": "ok", "reason": None},
            {"variant": "b", "status": "diverged", "reason": "loss nan at step 3"},
            {"variant": "b", "status": "diverged", "reason": "loss nan at step 3"},
            {"variant": "c", "status": "skipped", "reason": "over budget"},
        ]
    )
    assert status_notes(df) == ["- `b`: diverged: loss nan at step 3", "- `c`: skipped: over budget"]
    assert status_notes(df, statuses=["skipped"]) == ["- `c`: skipped: over budget"]


def _shares(points, noise=0.03):
    """SDPA forward FLOP/s shares of the matmul peak: (length, causal, share) per seed 0 and 1, each with its latency's
    timing noise (IQR / median) and the job's matmul peak with a quiet best size."""
    rows = []
    for seed in (0, 1):
        rows.append(
            {
                "metric": "matmul_peak",
                "status": "ok",
                "variant": "sdpa",
                "kernel": "sdpa",
                "seed": seed,
                "extra": {"sizes": {"1024": {"flops_per_s": 1e11, "noise": 0.01}}},
            }
        )
        for x, causal, share in points:
            where = {
                "status": "ok",
                "pass": "fwd",
                "variant": "sdpa",
                "kernel": "sdpa",
                "grouping": "MHA",
                "x": x,
                "causal": causal,
                "seed": seed,
            }
            rows.append({**where, "metric": "peak_fraction", "value": share + seed, "extra": {}})
            rows.append({**where, "metric": "latency", "value": 300.0, "extra": {"noise": noise}})
    return pd.DataFrame(
        rows,
        columns=["metric", "status", "pass", "variant", "kernel", "grouping", "x", "causal", "value", "seed", "extra"],
    )


def test_attention_cost_share_of_peak_verdict():
    assert cost.PEAK.kind == "check"  # a regression against this project's own earlier measurement
    assert cost.MEMORY.kind == "check"  # linear memory is the fused kernels' algorithm, the same for every seed
    assert "REFERENCES" not in cost.PEAK.source + cost.PUBLISHED
    # 3% IQR / median: a relative sd of 2.3% per run, so a change counts beyond 2.8 x sqrt 2 x 2.3% = 9.2%
    assert cost._peak_finding(_shares([(4096, False, 65), (4096, True, 60)])).verdict == "agrees"  # -5%, +2.5%
    drop = cost._peak_finding(
        _shares([(4096, False, 58), (4096, True, 60)])
    )  # -15.2%, 11 points: a fixed 15-point band passes it
    assert drop.verdict == "disagrees" and "non-causal" in drop.cause and drop.headline.value < -15
    assert drop.boundary == pytest.approx(-cost.share_tolerance(_shares([(4096, False, 58)]), False, 4096))
    assert cost._peak_finding(_shares([(4096, False, 58), (4096, True, 60)], noise=0.1)).verdict == "agrees"  # noisier
    disagrees = cost._peak_finding(_shares([(4096, False, 20), (4096, True, 15)]))
    assert disagrees.verdict == "disagrees" and disagrees.cause
    assert cost._peak_finding(_shares([(4096, False, 120), (4096, True, 60)])).verdict == "inconclusive"  # over 100%
    assert cost._peak_finding(_shares([(1024, False, 65), (1024, True, 60)])).verdict == "inconclusive"  # other length
    assert cost._peak_finding(_shares([(4096, False, 65)], noise=None)).verdict == "inconclusive"  # no repeats
    assert cost._peak_finding(_shares([])).verdict == "not run"


EMPTY = pd.DataFrame(columns=["metric", "status", "pass", "variant", "causal", "x", "value", "seed"])


def _memory(slopes):
    """The memory finding from forward slopes {(variant, causal): slope}, each against naive of its heads."""
    found = {(v, c, "fwd"): {"peak_memory": s} for (v, c), s in slopes.items()}
    return cost._memory_finding(EMPTY, found, {v: "naive" for v, _ in slopes}, [])


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
    found = _memory(slopes)
    assert found.verdict == verdict
    assert (found.cause != "") == (verdict in ("disagrees", "inconclusive"))
    assert not any("sdpa_math" in e.label for e in found.estimates)
    if found.estimates:  # the steepest fused slope against the linear bound
        assert found.boundary == cost.LINEAR and found.headline.value == max(e.value for e in found.estimates)
    if ("sdpa_math", False) in slopes:
        assert "`sdpa_math` slopes 1.96" in found.sentence and "unfused" in found.sentence
