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


def test_rises_by_is_a_one_sided_test_of_its_stated_size_at_the_threshold():
    import numpy as np

    from suites.position_extrapolation.claims._shared import change, rises_by

    # per-seed ppl(4L)/ppl(L) whose true change is exactly the threshold, +100% (a ratio of 2 on the log scale)
    draws = 3000
    branch = 0.025 + 3 * (0.025 * 0.975 / draws) ** 0.5
    rng = np.random.default_rng(4)
    words = []
    for _ in range(draws):
        ratios = 2.0 * np.exp(rng.normal(0.0, 0.15, 3))
        words.append(rises_by(change("x", dict(enumerate(ratios)), {0: 1.0, 1: 1.0, 2: 1.0}), claim.BLOWS_UP))
    agree, disagree = words.count("agrees") / draws, words.count("disagrees") / draws
    assert agree <= branch and disagree <= branch, (agree, disagree)
    assert not np.isnan(words[0].p_for) and not np.isnan(words[0].p_against)  # a Verdict with its p-values


def test_the_smallest_effect_is_the_claims_threshold():
    assert claim.CLAIM.smallest_effect == claim.BLOWS_UP and "BLOWS_UP" in claim.CLAIM.smallest_effect_source
