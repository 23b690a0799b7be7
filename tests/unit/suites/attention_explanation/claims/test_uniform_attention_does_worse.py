"""Wiegreffe & Pinter's baseline: the learned-attention translator's BLEU against its uniform twin's, paired; a check
of the task (number words need an alignment), not a test of the finding."""

from suites.attention_explanation.claims import uniform_attention_does_worse as claim
from tests.unit.suites.attention_explanation.claims._records import STRONG, UNIFORM, WEAK, evidence, records


def test_it_is_a_check_that_answers_no_question_and_says_why():
    """Number words cannot be translated without an alignment: uniform weights doing worse is the task's design, so
    the row cannot fail the way the source's can and is scored apart from the findings."""
    c = claim.CLAIM
    assert c.kind == "check" and c.answers == "none"
    assert "A check of the task, not a test of the finding" in c.protocol and "alignment" in c.protocol


def test_the_verdict_on_synthetic_records():
    weak = records(*WEAK)
    passed = claim.judge(evidence(weak))
    assert passed.verdict == "agrees" and "as it was built to" in passed.sentence
    failed = claim.judge(evidence(records(*STRONG)))
    assert failed.verdict == "disagrees" and "broken" in failed.cause
    assert claim.judge(evidence(weak[weak.variant != UNIFORM])).verdict == "not run"
