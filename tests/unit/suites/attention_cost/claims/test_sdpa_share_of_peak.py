"""SDPA keeps the share of the matmul peak measured earlier: a regression check within this run's timing noise."""

import pytest

from suites.attention_cost.claims import sdpa_share_of_peak as claim
from suites.attention_cost.claims._shared import PUBLISHED
from tests.unit.suites.attention_cost.claims._records import evidence, shares


def _judged(frame):
    return claim.judge(evidence(frame))


def test_attention_cost_share_of_peak_verdict():
    assert claim.CLAIM.kind == "check"  # a regression against this project's own earlier measurement
    assert "REFERENCES" not in claim.CLAIM.source + PUBLISHED
    # 3% IQR / median: a relative sd of 2.3% per run, so a change counts beyond 2.8 x sqrt 2 x 2.3% = 9.2%
    assert _judged(shares([(4096, False, 65), (4096, True, 60)])).verdict == "agrees"  # -5%, +2.5%
    drop = _judged(shares([(4096, False, 58), (4096, True, 60)]))  # -15.2%, 11 points: a fixed 15-point band passes it
    assert drop.verdict == "disagrees" and "non-causal" in drop.cause and drop.headline.value < -15
    assert drop.boundary == pytest.approx(-claim.share_tolerance(shares([(4096, False, 58)]), False, 4096))
    assert _judged(shares([(4096, False, 58), (4096, True, 60)], noise=0.1)).verdict == "agrees"  # noisier
    disagrees = _judged(shares([(4096, False, 20), (4096, True, 15)]))
    assert disagrees.verdict == "disagrees" and disagrees.cause
    assert _judged(shares([(4096, False, 120), (4096, True, 60)])).verdict == "inconclusive"  # over 100%
    assert _judged(shares([(1024, False, 65), (1024, True, 60)])).verdict == "inconclusive"  # other length
    assert _judged(shares([(4096, False, 65)], noise=None)).verdict == "inconclusive"  # no repeats
    assert _judged(shares([])).verdict == "not run"
