"""The Mamba-2 hybrid against its pure recurrent stack on MQAR."""

from suites.recall.claims import hybrid_restores_recall as claim
from tests.unit.suites.recall.claims._records import arm, frame, judged


def test_it_is_a_finding_with_a_precondition():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.precondition


def test_without_both_arms_a_claim_is_not_run():
    assert judged(claim, frame(arm("mamba2", 0.5))).verdict == "not run"


def test_the_hybrid_claim_compares_the_hybrid_with_its_pure_stack():
    found = judged(claim, frame(arm("mamba2+hybrid2", 0.95), arm("mamba2", 0.4)))
    assert found.verdict == "agrees" and found.headline.label.startswith("mamba2+hybrid2 - mamba2")
