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


def test_a_pair_reversed_only_at_its_own_five_percent_does_not_refute_the_pair_of_them():
    # DeltaNet above Gated DeltaNet by a gap whose one-sided p is about 1.4%, below 2.5% but above Holm's 2.5% / 2
    df = frame(arm("gated_deltanet", 0.8, jitter=0.0), arm("mamba2", 0.5), arm("deltanet", 0.85, jitter=0.0))
    df.loc[(df.variant == "deltanet") & (df.x == 8.0), "value"] = [0.835, 0.865, 0.85]
    found = judged(claim, df)
    assert found.verdict == "inconclusive" and "not with the 2 parts held at 5% together (Holm" in found.cause
