"""DeltaNet above linear attention on MQAR, testable once both arms learned the task's format."""

from suites.recall.claims import delta_rule_beats_linear_attention as claim
from tests.unit.suites.recall.claims._records import arm, frame, judged


def test_it_is_a_finding_with_a_precondition():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.precondition


def test_a_pair_is_not_testable_while_an_arm_has_not_learned_the_format():
    found = judged(claim, frame(arm("deltanet", 0.6), arm("linear_attention", 0.3, at_two=0.7)))
    assert found.verdict == "not testable here"
    assert "linear_attention 0.70 against the 0.9" in found.sentence and found.boundary == 0.9


def test_the_format_bar_is_the_same_for_both_arms_whichever_way_the_gap_goes():
    # linear attention learned the format, DeltaNet did not: not testable, as in the other direction
    found = judged(claim, frame(arm("deltanet", 0.3, at_two=0.7), arm("linear_attention", 0.6)))
    assert found.verdict == "not testable here" and "deltanet 0.70 against the 0.9" in found.sentence
    decided = judged(claim, frame(arm("deltanet", 0.9), arm("linear_attention", 0.3)))
    assert decided.verdict == "agrees" and decided.p is not None and decided.p < 0.05
