"""The spectral-radius bound: a check at initialisation, per seed against 0, each Elman cell on its own."""

import pandas as pd

from suites.gradient_flow.claims import spectral_radius_bound as claim
from tests.unit.suites.gradient_flow.claims._records import evidence


def test_it_is_a_check():
    """The radius bound holds at initialisation by construction: scored as a check."""
    assert claim.CLAIM.kind == "check" and claim.CLAIM.protocol


def _sweep(log_ratio_by_radius, seeds=(0, 1, 2), cell="rnn", d=50):
    """Spectral-radius sweep rows whose gradient ratio at distance d is 10 ** (log ratio + seed noise)."""
    return pd.DataFrame(
        [
            {"variant": cell, "seed": s, "radius": r, "x": d, "value": 10.0 ** (lr + 0.1 * s)}
            for r, lr in log_ratio_by_radius.items()
            for s in seeds
        ]
    )


def _judge(sweep):
    return claim.judge(evidence(sweep=sweep))


def test_the_radius_verdict_is_per_seed_against_zero():
    assert _judge(_sweep({0.5: -15, 0.9: -3, 1.0: -1.5, 1.5: 0.4, 2.0: 2.8})).verdict == "agrees"
    grows_early = _judge(_sweep({0.5: -15, 0.9: 1.0, 1.5: 2.0}))
    assert grows_early.verdict == "disagrees" and "radius 0.9" in grows_early.cause
    no_growth = _judge(_sweep({0.5: -15, 0.9: -3, 1.5: -0.5}))
    assert no_growth.verdict == "inconclusive" and "no radius above 1" in no_growth.cause
    # one seed: no calibrated margin, no verdict
    assert _judge(_sweep({0.5: -15, 1.5: 2.0}, seeds=(0,))).verdict == "inconclusive"
    # the headline is the part the verdict turns on: the radius above 1 that does not grow
    assert "radius 1.5" in no_growth.headline.label and no_growth.boundary == 0.0
    assert _judge(_sweep({})[:0]).verdict == "not run"
