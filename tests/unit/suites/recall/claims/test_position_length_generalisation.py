"""The ranking of position encodings on length generalisation: pair by pair in the published order, every tested
pair must hold; arms that did not learn a task in distribution are left out."""

from suites.recall.claims import position_length_generalisation as claim
from tests.unit.suites.recall.claims._records import frame, judged, rows


def test_it_is_a_finding_with_a_precondition():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.precondition


def test_position_ranking_leaves_out_arms_that_did_not_learn():
    published = frame(
        *(
            rows(v, "reverse", {8: 1.0, 16: acc}, 8)
            for v, acc in (("none", 0.8), ("t5_bias", 0.8), ("alibi", 0.6), ("rope", 0.3))
        )
    )
    assert judged(claim, published).verdict == "agrees"
    rope_failed = frame(
        *(
            rows(v, "reverse", {8: at_n, 16: acc}, 8)
            for v, at_n, acc in (("none", 1.0, 0.3), ("alibi", 1.0, 0.8), ("rope", 0.5, 0.0))
        )
    )
    found = judged(claim, rope_failed)
    assert found.verdict == "disagrees"  # none below alibi; rope left out, not counted as the worst
    assert "rope on reverse" in found.sentence and "Left out" in found.sentence
    assert (
        "0 of 1 tested pairs" in found.cause and "on reverse none - alibi is -0.50 (the order reversed)" in found.cause
    )
    nothing = frame(*(rows(v, "reverse", {8: 0.5, 16: 0.1}, 8) for v in ("none", "alibi")))
    assert judged(claim, nothing).verdict == "not testable here"


def test_a_ranking_is_refuted_by_one_reversed_pair_whatever_the_others_say():
    mixed = frame(
        *(rows(v, "copy", {8: 1.0, 16: acc}, 8) for v, acc in (("t5_bias", 0.7), ("alibi", 0.97), ("rope", 0.5)))
    )
    found = judged(claim, mixed)
    assert found.verdict == "disagrees"  # alibi > rope holds, t5_bias < alibi is reversed: the order does not hold
    assert (
        "1 of 2 tested pairs" in found.cause and "on copy t5_bias - alibi is -0.27 (the order reversed)" in found.cause
    )
    assert found.headline.label == "copy: t5_bias - alibi, token accuracy past n" and found.boundary == 0.0


def test_missing_arms_are_not_run():
    df = frame(rows("lstm", "mqar", {1: 0.5}, 1), rows("lstm", "copy", {4: 0.5}, 4))
    assert judged(claim, df).verdict == "not run"
