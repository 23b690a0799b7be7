"""The scaling suite's law: fitted to each run's final loss alone, only behind the 5-rung / 2.5-decade gate, with E and
alpha printed only inside a profile-likelihood interval, and "not identified" where the interval runs to the search's
edge."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from suites.scaling.fit import MIN_DECADES, MIN_RUNGS, Law, fit_law, flatten, gate, profile
from suites.scaling.laws import fitted, law_table
from suites.scaling.tables import points


def _points(E=1.2, A=None, alpha=0.2, noise=0.005, seeds=3, rungs=5, decades=4.0, seed=0):
    """{(rung, seed): [(C, L)]}: a law's losses at rungs evenly spaced over ``decades``, each times log-normal noise;
    the reducible loss is 1 nat at the first rung unless ``A`` is given."""
    rng = np.random.default_rng(seed)
    A = 1e10**alpha if A is None else A
    out = {}
    for r, c in enumerate(np.logspace(10, 10 + decades, rungs)):
        for s in range(seeds):
            out[(r, s)] = [(float(c), float((E + A * c**-alpha) * math.exp(rng.normal(0, noise))))]
    return out


@pytest.mark.parametrize("alpha", [0.2, 0.5])
def test_the_fit_recovers_a_known_exponent_and_floor_inside_its_profile_intervals(alpha):
    # one draw (a 95% interval misses 5% of draws: over 60 draws of this ladder at alpha 0.2, E's covered 95%, alpha's
    # 97%, as simulated when the profile was written)
    c, loss = flatten(_points(alpha=alpha, seed=1))
    law = fit_law(c, loss)
    assert law is not None and law.rms_residual < 0.01
    assert law.alpha == pytest.approx(alpha, rel=0.05) and law.E == pytest.approx(1.2, rel=0.03)
    e, a = profile(c, loss, "E"), profile(c, loss, "alpha")
    assert e.identified and a.identified
    assert e.low < 1.2 < e.high and a.low < alpha < a.high
    assert e.low < law.E < e.high and e.high - e.low < 0.2  # bounded, around the fit, and informative
    assert e.show().startswith(f"{law.E:.3g} [")


def test_a_floor_the_ladder_cannot_see_is_not_identified():
    # the floor is 1% of the loss over 2.5 decades of a shallow law at 2% noise: any E from 0 up fits within noise,
    # so the interval runs to E = 0, and the table prints no value for it
    c, loss = flatten(_points(E=0.02, alpha=0.1, noise=0.02, decades=2.5))
    e = profile(c, loss, "E")
    assert not e.identified and "E = 0" in e.edge
    assert e.show().startswith("not identified (the 95% profile interval runs to E = 0")
    assert str(round(e.value, 3)) not in e.show()


def _frame(pts: dict, fractions=(0.5, 1.0), shift=0.3) -> pd.DataFrame:
    """Records of one variant: each run's final loss at fraction 1.0 and, at earlier fractions, losses far off any
    law (``shift`` nats above the final one, at a fraction of its compute)."""
    rows = []
    for (rung, seed), [(c, loss)] in pts.items():
        for f in fractions:
            rows.append(
                dict(
                    variant=f"baseline+rung{rung}",
                    seed=seed,
                    metric="loss",
                    status="ok",
                    value=loss + (0 if f == 1.0 else shift),
                    x=c * f,
                    extra={"fraction": f},
                    profile_settings={"fit_from": 0.5},
                )
            )
        rows.append(dict(variant=f"baseline+rung{rung}", seed=seed, metric="train_flops", status="ok", value=c))
    return pd.DataFrame(rows)


def test_the_law_is_fitted_to_each_run_s_final_loss_alone():
    pts = _points(noise=0.002)
    df = _frame(pts)
    got = points(df)["baseline"]
    assert got == pts  # one point per run, the end of training, though fit_from=0.5 is in the settings
    law = fitted(df)["baseline"].law
    assert law is not None and law.alpha == pytest.approx(0.2, rel=0.05)  # the mid-schedule points would bend it


def test_no_law_is_fitted_below_five_rungs_or_two_and_a_half_decades():
    assert (MIN_RUNGS, MIN_DECADES) == (5, 2.5)
    assert gate([1e11, 1e12, 1e13, 1e14]).passes is False  # 4 rungs over 3 decades
    assert gate(np.logspace(11, 13.3, 6)).passes is False  # 6 rungs over 2.3 decades
    assert gate(np.logspace(11, 13.5, 5)).passes is True
    four = gate([1.09e11, 4.89e11, 1.45e12, 6.84e12])  # the reference ladder
    assert four.why_not().startswith("4 rungs spanning 1.80 decades of compute; a law is fitted from at least 5")
    for pts in (_points(rungs=4, decades=4.0), _points(rungs=6, decades=2.0)):
        f = fitted(_frame(pts))["baseline"]
        assert f.law is None and f.E is None
        row = law_table({"baseline": f}, ["baseline"]).iloc[0]
        assert row["E (nats/char)"] == "no law fitted: needs 5 rungs over 2.5 decades" and row["α"] == "-"


def test_a_law_reaches_its_own_loss_at_its_own_compute_and_never_below_its_floor():
    law = Law(E=1.0, A=10.0, alpha=0.25)
    assert law.compute_for(law.loss(1e12)) == pytest.approx(1e12)
    assert law.compute_for(0.99) == math.inf
