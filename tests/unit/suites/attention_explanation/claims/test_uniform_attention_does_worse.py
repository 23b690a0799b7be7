"""Wiegreffe & Pinter's baseline: the learned-attention translator's BLEU against its uniform twin's, paired."""

from suites.attention_explanation.claims import uniform_attention_does_worse as claim
from tests.unit.suites.attention_explanation.claims._records import STRONG, UNIFORM, WEAK, evidence, records


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


def test_the_verdict_on_synthetic_records():
    weak = records(*WEAK)
    assert claim.judge(evidence(weak)).verdict == "agrees"
    assert claim.judge(evidence(records(*STRONG))).verdict == "disagrees"
    assert claim.judge(evidence(weak[weak.variant != UNIFORM])).verdict == "not run"
