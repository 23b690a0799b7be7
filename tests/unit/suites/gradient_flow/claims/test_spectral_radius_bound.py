"""The spectral-radius bound: a check at initialisation, per seed against 0, each Elman cell on its own."""

import numpy as np
import pandas as pd

from harness.paired import all_hold, directional
from suites.gradient_flow.claims import spectral_radius_bound as claim
from suites.gradient_flow.claims.spectral_radius_bound import _against_zero
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
    assert (
        no_growth.verdict == "inconclusive" and "largest radius 1.5 does not make the gradient grow" in no_growth.cause
    )
    # one seed: no calibrated margin, no verdict
    assert _judge(_sweep({0.5: -15, 1.5: 2.0}, seeds=(0,))).verdict == "inconclusive"
    # the headline is the part the verdict turns on: the radius above 1 that does not grow
    assert "radius 1.5" in no_growth.headline.label and no_growth.boundary == 0.0
    assert _judge(_sweep({})[:0]).verdict == "not run"


def test_radius_1_may_only_refute_and_the_largest_radius_may_only_support():
    # at radius 1 the gradient may stay level (no vanishing required there), but growth there refutes the bound
    assert _judge(_sweep({0.5: -15, 0.9: -3, 1.0: 0.0, 2.0: 2.8})).verdict == "agrees"
    grows_at_one = _judge(_sweep({0.5: -15, 0.9: -3, 1.0: 2.0, 2.0: 2.8}))
    assert grows_at_one.verdict == "disagrees" and "radius 1," in grows_at_one.cause
    # a largest radius whose gradient shrinks is no evidence against "can grow above 1": inconclusive, not disagrees
    shrinks = _judge(_sweep({0.5: -15, 0.9: -3, 2.0: -2.0}))
    assert shrinks.verdict == "inconclusive"


def test_the_bound_holds_its_size_with_every_radius_at_the_null():
    # every radius's true log ratio exactly 0: growth below or at 1 refutes; the old rule (any radius <= 1 whose
    # decay "disagrees") refuted in about 3 x 2.5% of draws, the parts held together at most 2.5%
    rng = np.random.default_rng(50)
    draws, words, old = 1000, [], 0
    radii = (0.5, 0.9, 1.0, 2.0)
    for _ in range(draws):
        by_radius = {r: _against_zero("x", dict(enumerate(rng.normal(0, 1, 3)))) for r in radii}
        parts = claim.bound_parts(by_radius)
        words.append(all_hold(list(parts.values())))
        old += any(directional(by_radius[r], -1) == "disagrees" for r in radii if r <= 1)
    branch = 0.025 + 3 * (0.025 * 0.975 / draws) ** 0.5
    assert words.count("disagrees") / draws <= branch and words.count("agrees") / draws <= branch
    assert old / draws > 0.045
