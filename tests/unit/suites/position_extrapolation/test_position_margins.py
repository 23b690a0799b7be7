"""position_extrapolation's one-seed margins: each quantity's own, recomputed from the reference records through the
verdict code, and applied only at one seed."""

import importlib
from pathlib import Path

import pandas as pd
import pytest

from harness.claims import judge_all
from harness.contract import suites
from harness.intervals import t_quantile
from harness.paired import one_seed_margin
from harness.report import records_frame
from harness.store import ResultsStore
from suites.position_extrapolation import margins
from suites.position_extrapolation.claims import _shared as rules
from suites.position_extrapolation.suite import PositionExtrapolation

REFERENCE = Path(__file__).resolve().parents[4] / "reference" / "results"
#: the standard profile's seeds, which the table is calibrated on
SEEDS = (0, 1, 2)


def standard_records() -> pd.DataFrame:
    """The reference records of the current suite version, profile standard, seeds 0-2."""
    df = records_frame(
        r
        for r in ResultsStore(REFERENCE).load("position_extrapolation")
        if r.get("profile") == "standard" and r.get("suite_version") == PositionExtrapolation.version
    )
    return df[df.seed.isin(SEEDS)].reset_index(drop=True)


def per_seed_pct(diff) -> tuple:
    """A Difference's per-seed values in %: a ratio's change from 1 (``from_one``: both arms are the ratios)
    or the per-seed change (a - b) / b."""
    if diff.a == diff.b:
        return tuple(100.0 * (r - 1.0) for r in diff.a)
    return tuple(100.0 * (x / y - 1.0) for x, y in zip(diff.a, diff.b))


def judged_quantities(monkeypatch, df: pd.DataFrame) -> dict:
    """label -> Difference, for every comparison the claims make on ``df`` (each claim module's ``change`` and
    ``from_one``, from claims/_shared.py, watched)."""
    seen = {}

    def spy(fn):
        def wrapped(label, *args, **kwargs):
            seen[label] = fn(label, *args, **kwargs)
            return seen[label]

        return wrapped

    suite = suites.get("position_extrapolation")
    for claim in suite.claims:
        module = importlib.import_module(f"suites.position_extrapolation.claims.{claim.key}")
        for name in ("change", "from_one"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, spy(getattr(rules, name)))
    judge_all(suite, df)
    return seen


@pytest.mark.skipif(not REFERENCE.exists(), reason="no reference records in this checkout")
def test_the_margin_table_is_the_standard_records_per_seed_spread(monkeypatch):
    seen = judged_quantities(monkeypatch, standard_records())
    assert set(margins.STANDARD_PER_SEED) <= set(seen), set(margins.STANDARD_PER_SEED) - set(seen)
    for label, values in margins.STANDARD_PER_SEED.items():
        assert seen[label].seeds == len(SEEDS), label
        assert per_seed_pct(seen[label]) == pytest.approx(values, abs=0.006), label  # the table rounds to 2 decimals
    # every comparison the verdicts make on the standard profile has a calibrated margin
    assert set(seen) == set(margins.STANDARD_PER_SEED)


def test_each_quantity_has_its_own_prediction_bound_from_the_t_quantile():
    # every entry is the judged one-seed quantity's own per-seed value (a change within one model, or between two
    # models of one seed whose per-seed change already holds both arms' noise): one arm, never sqrt 2 of one arm's sd
    assert set(margins.ARMS) == set(margins.STANDARD_PER_SEED) and set(margins.ARMS.values()) == {1}
    assert margins.MARGINS and all(
        margins.MARGINS[k] == one_seed_margin(v, arms=1) for k, v in margins.STANDARD_PER_SEED.items()
    )
    for label, values in margins.STANDARD_PER_SEED.items():
        mean = sum(values) / len(values)
        sd = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5
        # t(0.975, 2) = 4.30 sd from three seeds, not the 2.8 sd that counted null noise 10.6% of the time
        assert margins.margin_of(label) == pytest.approx(t_quantile(0.975, len(values) - 1) * sd)
        assert margins.margin_of(label) > 4.3 * sd
    assert len(set(round(m, 6) for m in margins.MARGINS.values())) > 1  # not one margin for every quantity


def test_a_margin_applies_at_one_seed_only_and_no_margin_gives_no_verdict():
    label = "rope ppl(4L) vs ppl(L)"
    m = margins.margin_of(label)
    just_inside = 100.0 + m * 0.5  # % rise: within the margin of the 100% threshold at one seed
    one = rules.change(label, {0: 1.0 + just_inside / 100}, {0: 1.0})
    assert one.margin == m and rules.rises_by(one, 100.0) == "inconclusive"
    far = rules.change(label, {0: 1.0 + (100.0 + 1.5 * m) / 100}, {0: 1.0})
    assert rules.rises_by(far, 100.0) == "agrees"
    # three seeds of the same values: the interval decides, the margin plays no part
    three = rules.change(label, {s: 1.0 + just_inside / 100 for s in SEEDS}, {s: 1.0 for s in SEEDS})
    assert rules.rises_by(three, 100.0) == "agrees"
    # a quantity without a calibrated margin: one seed gives no verdict, in every rule shape
    bare = rules.change("rope+pi7 ppl(4L) vs rope ppl(4L)", {0: 2.0}, {0: 1.0})
    assert bare.no_verdict and "1 seed: no verdict" in rules.said(bare)
    assert {rules.rises_by(bare, 5.0), rules.stays_within(bare, 5.0), rules.lower(bare)} == {"inconclusive"}
    assert rules.stays_within(rules.from_one("no such ratio", {0: 0.5}), 15.0) == "inconclusive"
