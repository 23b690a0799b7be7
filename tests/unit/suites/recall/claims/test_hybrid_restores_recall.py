"""The Mamba-2 hybrid against its pure recurrent stack on MQAR, testable only where the pure stack falls short of
recall: the deficit is measured first, whatever the hybrid scores."""

from suites.recall.claims import hybrid_restores_recall as claim
from tests.unit.suites.recall.claims._records import MAMBA2, arm, frame, judged


def test_it_is_a_finding_with_a_precondition_about_the_deficit_and_a_smallest_effect():
    assert claim.CLAIM.kind == "finding" and "falls short of recall" in claim.CLAIM.precondition
    assert claim.CLAIM.smallest_effect == 0.05 and claim.CLAIM.smallest_effect_source


def test_without_both_arms_a_claim_is_not_run():
    assert judged(claim, frame(arm("mamba2", 0.5))).verdict == "not run"


def test_the_hybrid_claim_compares_the_hybrid_with_its_pure_stack_where_the_pure_stack_falls_short():
    found = judged(claim, frame(arm("mamba2+hybrid2", 0.95), arm("mamba2", 0.4)))
    assert found.verdict == "agrees" and found.headline.label.startswith("mamba2+hybrid2 - mamba2")
    assert "The deficit: mamba2's token accuracy at 8 pairs is 0.400" in found.sentence
    worse = judged(claim, frame(arm("mamba2+hybrid2", 0.2), arm("mamba2", 0.4)))
    assert worse.verdict == "disagrees"


def test_without_a_deficit_it_is_not_testable_whichever_way_the_hybrid_goes():
    # pure Mamba-2 recalls 0.99 at the most pairs: nothing to restore, whether the hybrid is a hair above or far below
    for hybrid in (1.0, 0.5):
        found = judged(claim, frame(arm("mamba2+hybrid2", hybrid, jitter=0.001), arm("mamba2", 0.99, jitter=0.001)))
        assert found.verdict == "not testable here", hybrid
        assert "not wholly below the 0.9" in found.cause and found.boundary == 0.9
        assert found.headline.label == "mamba2 token accuracy at 8 pairs"
        assert "Shown, not judged" in found.sentence


def test_a_lag_behind_attention_beyond_the_smallest_effect_is_a_deficit_too():
    # 0.92 is not below the learned threshold, but RoPE leads it by 0.08, wholly above 0.05
    found = judged(
        claim,
        frame(
            arm("mamba2+hybrid2", 1.0, jitter=0.002), arm("mamba2", 0.92, jitter=0.002), arm("rope", 1.0, jitter=0.0)
        ),
    )
    assert found.verdict == "agrees" and "wholly above the smallest effect 0.05" in found.sentence
    # RoPE ahead by 0.01 only: no deficit
    close = judged(
        claim,
        frame(
            arm("mamba2+hybrid2", 1.0, jitter=0.002), arm("mamba2", 0.99, jitter=0.002), arm("rope", 1.0, jitter=0.0)
        ),
    )
    assert close.verdict == "not testable here"


def test_what_would_test_it_names_the_sizes_that_outgrow_the_pure_stack():
    df = frame(
        arm("mamba2+hybrid2", 1.0, jitter=0.001),
        arm("mamba2", 0.99, jitter=0.001, spec=MAMBA2),
        arm("mamba2+state16", 0.7, jitter=0.001),
    )
    found = judged(claim, df)
    assert "more pairs than 8 against the pure stack's 15,240-number state" in found.cause
    assert "mamba2+state16+hybrid2 against mamba2+state16" in found.cause


def test_the_format_precondition_holds_for_both_arms_alike():
    found = judged(claim, frame(arm("mamba2+hybrid2", 0.95), arm("mamba2", 0.4, at_two=0.6)))
    assert found.verdict == "not testable here" and "mamba2 0.60 against the 0.9" in found.sentence
