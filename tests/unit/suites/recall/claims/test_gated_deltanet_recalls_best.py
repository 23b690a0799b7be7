"""Gated DeltaNet above Mamba-2 and DeltaNet on MQAR: both pairs must hold."""

from suites.recall.claims import gated_deltanet_recalls_best as claim
from tests.unit.suites.recall.claims._records import arm, frame, judged


def test_it_is_a_finding_with_a_precondition():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.precondition


def test_gated_deltanet_must_beat_both_mamba2_and_deltanet():
    found = judged(claim, frame(arm("gated_deltanet", 0.8), arm("mamba2", 0.5), arm("deltanet", 0.6)))
    assert found.verdict == "agrees" and found.seeds == 3
    reversed_ = judged(claim, frame(arm("gated_deltanet", 0.8), arm("mamba2", 0.5), arm("deltanet", 0.9)))
    assert reversed_.verdict == "disagrees"  # one reversed pair refutes the conjunction
    assert reversed_.headline.label.startswith("gated_deltanet - deltanet")
