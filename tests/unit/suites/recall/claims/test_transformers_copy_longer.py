"""Transformers copy longer: RoPE above every rival at n, paired over seeds, once RoPE has learned copying."""

from suites.recall.claims import transformers_copy_longer as claim
from tests.unit.suites.recall.claims._records import frame, judged, rows


def test_it_is_a_finding_with_a_precondition():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.precondition


def test_copy_needs_both_pairs_and_an_attention_arm_that_learned_copying():
    good = frame(
        rows("rope", "copy", {4: 1.0, 8: 0.99, 16: 0.2}, 8), rows("lstm", "copy", {4: 0.9, 8: 0.5, 16: 0.1}, 8)
    )
    assert judged(claim, good).verdict == "agrees"
    bad = frame(
        rows("rope", "copy", {4: 1.0, 8: 0.92}, 8),
        rows("lstm", "copy", {4: 1.0, 8: 1.0}, 8),
        rows("mingru", "copy", {4: 1.0, 8: 0.5}, 8),
    )
    found = judged(claim, bad)
    assert found.verdict == "disagrees"  # rope above mingru, below lstm: one reversed pair refutes the claim
    assert found.headline.label.startswith("rope - lstm")
    unlearned = frame(rows("rope", "copy", {4: 0.6, 8: 0.4}, 8), rows("lstm", "copy", {4: 1.0, 8: 0.9}, 8))
    found = judged(claim, unlearned)
    assert found.verdict == "not testable here" and "below the 0.9 that counts as learned" in found.cause


def test_no_margin_counts_a_gap_at_several_seeds_and_one_seed_gives_no_verdict():
    # a 0.15 gap, larger than the profile's accuracy_margin, whose per-seed gaps straddle 0
    noisy = frame(rows("rope", "copy", {8: 0.95}, 8, jitter=0.0), rows("lstm", "copy", {8: 0.8}, 8, jitter=0.3))
    found = judged(claim, noisy)
    assert found.verdict == "inconclusive" and "interval includes 0" in found.sentence
    one = frame(rows("rope", "copy", {8: 1.0}, 8, seeds=(0,)), rows("lstm", "copy", {8: 0.1}, 8, seeds=(0,)))
    found = judged(claim, one)
    assert found.verdict == "inconclusive" and "1 seed: no verdict" in found.sentence


def test_missing_arms_are_not_run():
    df = frame(rows("lstm", "mqar", {1: 0.5}, 1), rows("lstm", "copy", {4: 0.5}, 4))
    assert judged(claim, df).verdict == "not run"
