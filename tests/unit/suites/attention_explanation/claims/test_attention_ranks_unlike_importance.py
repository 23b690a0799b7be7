"""Jain & Wallace's claim: attention's taus with the importance measures against the measures' own agreement."""

from suites.attention_explanation.claims import attention_ranks_unlike_importance as claim
from tests.unit.suites.attention_explanation.claims._records import STRONG, WEAK, evidence, records


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


def test_the_verdict_on_synthetic_records():
    assert claim.judge(evidence(records(*WEAK))).verdict == "agrees"
    assert claim.judge(evidence(records(*STRONG))).verdict == "disagrees"
