"""YaRN lower than PI and NTK-aware at 4L, paired over seeds, its alpha and beta chosen at 4L."""

from suites.position_extrapolation.claims import yarn_close as claim
from suites.position_extrapolation.claims._shared import prepare
from tests.unit.suites.position_extrapolation.claims._records import (
    PUBLISHED_SHAPE,
    L,
    check_tuned_elsewhere,
    one_seed,
    records,
    unlearned,
)


def test_it_is_the_yarn_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol and claim.CLAIM.name.startswith("YaRN")


def test_the_published_shape_agrees_over_its_seeds():
    found = claim.judge(prepare(records(PUBLISHED_SHAPE)))
    assert found.verdict == "agrees" and found.seeds == 2


def test_one_seed_without_a_calibrated_margin_gives_no_verdict(monkeypatch):
    found = one_seed(monkeypatch, claim.judge)
    assert found.verdict == "inconclusive" and "1 seed: no verdict" in found.cause


def test_verdicts_are_paired_over_seeds_and_not_agreeing_ones_say_why():
    # YaRN below NTK-aware on average, but not on every seed and with an interval across 0: inconclusive
    df = records(PUBLISHED_SHAPE, seeds=(0, 1, 2))
    ntk4 = (df.variant == "rope+ntk") & (df.metric == "perplexity") & (df.x == 4.0 * L)
    df.loc[ntk4, "value"] = [4.4, 4.9, 4.7]  # yarn: 4.5, 4.545, 4.59
    found = claim.judge(prepare(df))
    assert found.verdict == "inconclusive" and "rope+ntk" in found.cause
    # higher than PI on every seed: disagrees, whatever NTK-aware shows
    pi4 = (df.variant == "rope+pi") & (df.metric == "perplexity") & (df.x == 4.0 * L)
    df.loc[pi4, "value"] = [4.0, 4.05, 4.1]
    assert claim.judge(prepare(df)).verdict == "disagrees"


def test_records_tuned_at_another_length_than_the_judged_one_cannot_judge_it():
    check_tuned_elsewhere(claim.judge)


def test_no_verdict_when_plain_rope_did_not_learn():
    found = unlearned(claim.judge)
    assert found.verdict == "inconclusive" and "did not learn" in found.sentence


def test_yarn_close_declares_its_smallest_effect():
    from suites.position_extrapolation.claims import yarn_close

    c = yarn_close.CLAIM
    assert c.smallest_effect is not None and c.smallest_effect > 0 and c.smallest_effect_source
