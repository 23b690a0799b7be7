"""SDPA keeps the share of the matmul peak measured earlier: a regression check against a 95% prediction bound from
this run's timing repeats (t at their degrees of freedom), the masks held together."""

import math

import numpy as np
import pytest

from harness.paired import all_hold
from suites.attention_cost.claims import sdpa_share_of_peak as claim
from suites.attention_cost.claims._shared import PUBLISHED
from tests.unit.suites.attention_cost.claims._records import evidence, shares


def _judged(frame):
    return claim.judge(evidence(frame))


def test_attention_cost_share_of_peak_verdict():
    assert claim.CLAIM.kind == "check"  # a regression against this project's own earlier measurement
    assert "REFERENCES" not in claim.CLAIM.source + PUBLISHED and "t(0.975, df)" in claim.CLAIM.protocol
    # 3% IQR / median over 6 repeats, the peak 1%: sqrt 2 x 2.3% = 3.3% per run, t(0.975, ~6) = 2.44: about +-8%
    ok = _judged(shares([(4096, False, 65), (4096, True, 60)]))  # -5.1%, +2.5%
    assert ok.verdict == "agrees" and "prediction bound" in ok.sentence
    drop = _judged(shares([(4096, False, 58), (4096, True, 60)]))  # -15.2%, 11 points: a fixed 15-point band passes it
    assert drop.verdict == "disagrees" and "non-causal" in drop.cause and drop.headline.value < -15
    sd, dof = claim.change_sd(shares([(4096, False, 58)]), False, 4096)
    assert drop.boundary == pytest.approx(100 * math.expm1(-claim.judge_change(0.0, sd, dof)[1]))
    assert _judged(shares([(4096, False, 58), (4096, True, 60)], noise=0.1)).verdict == "agrees"  # noisier
    disagrees = _judged(shares([(4096, False, 20), (4096, True, 15)]))
    assert disagrees.verdict == "disagrees" and disagrees.cause
    assert _judged(shares([(4096, False, 120), (4096, True, 60)])).verdict == "inconclusive"  # over 100%
    assert _judged(shares([(1024, False, 65), (1024, True, 60)])).verdict == "inconclusive"  # other length
    assert _judged(shares([(4096, False, 65)], noise=None)).verdict == "inconclusive"  # no repeats
    assert _judged(shares([])).verdict == "not run"


def test_fewer_repeats_widen_the_bound_through_the_t_quantile():
    many, few = (
        claim.change_sd(shares([(4096, False, 65)], kept=30), False, 4096),
        claim.change_sd(shares([(4096, False, 65)], kept=3), False, 4096),
    )
    assert many[0] == pytest.approx(few[0]) and few[1] < many[1]
    assert claim.judge_change(0.0, *few)[1] > claim.judge_change(0.0, *many)[1]


@pytest.mark.parametrize("n", [3, 6, 15])
def test_when_nothing_changed_the_check_fails_at_most_2_5_percent_of_the_time(n):
    """The rule's size: two masks, each run's share (the earlier and this one) off its true value by one repeat's
    noise; the sds estimated from ``n`` repeats of the latency and of the peak. Each mask's prediction bound is at
    5% two-sided, the masks held together by Holm at 2.5%."""
    rng = np.random.default_rng(n)
    sims, sd_latency, sd_peak = 3000, 0.02, 0.01
    sd_run = math.hypot(sd_latency, sd_peak)
    masks = []
    for _mask in range(2):
        change = rng.normal(0.0, sd_run * math.sqrt(2), sims)
        lat = (sd_latency * rng.standard_normal((sims, n))).std(axis=1, ddof=1)
        peak = (sd_peak * rng.standard_normal((sims, n))).std(axis=1, ddof=1)
        masks.append(claim.judge_changes(change, *claim.combined_sd(lat, n, peak, n)))
    assert np.mean([str(v) == "disagrees" for v in masks[0]]) <= 0.055
    words = np.array([str(all_hold(list(p))) for p in zip(*masks)])
    assert np.mean(words == "disagrees") <= 0.03
