"""Plain RoPE blows up past L: ppl(4L) at least twice ppl(L), paired over seeds, from a rope that learned."""

from suites.position_extrapolation.claims import rope_blows_up as claim
from suites.position_extrapolation.claims._shared import prepare
from tests.unit.suites.position_extrapolation.claims._records import (
    NOTHING_HELPS,
    PUBLISHED_SHAPE,
    one_seed,
    records,
    unlearned,
)


def test_it_is_press_et_als_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol and claim.CLAIM.source.startswith("Press et al. 2022")


def test_the_published_shape_agrees_with_its_estimate_and_threshold():
    found = claim.judge(prepare(records(PUBLISHED_SHAPE, seeds=(0, 1, 2))))
    assert found.verdict == "agrees" and not found.cause
    assert found.estimates[0].value > 100  # % above ppl(L)
    assert found.boundary == claim.BLOWS_UP


def test_one_seed_is_judged_only_where_its_quantity_has_a_calibrated_margin(monkeypatch):
    found = one_seed(monkeypatch, claim.judge)
    assert found.verdict == "agrees" and found.note == "1 seed: indicative only"


def test_a_run_where_nothing_helps_disagrees():
    assert claim.judge(prepare(records(NOTHING_HELPS))).verdict == "disagrees"


def test_no_verdict_when_plain_rope_did_not_learn_and_none_without_it():
    found = unlearned(claim.judge)
    assert found.verdict == "inconclusive" and "did not learn" in found.sentence
    # no plain rope: nothing to test
    assert claim.judge(prepare(records({"rope+ntk": PUBLISHED_SHAPE["rope+ntk"]}))).verdict == "not run"
