"""The verdict rules (harness/paired.py): paired over seeds, magnitude-aware, inconclusive inside the noise."""

import math

import pytest

from harness.findings import NOT_TESTABLE, Claim, not_testable
from harness.paired import combine_verdicts, directional, equivalent, not_worse, paired


def test_a_consistent_paired_difference_counts_even_when_the_arms_overlap():
    # the arms overlap (seed spread 2) but every seed moves by +0.1: the paired interval excludes 0
    d = paired("x", {0: 1.1, 1: 2.1, 2: 3.1}, {0: 1.0, 1: 2.0, 2: 3.0})
    assert d.interval_excludes_zero and d.counts
    assert directional(d, +1) == "agrees" and directional(d, -1) == "disagrees"


def test_only_the_paired_interval_counts_never_the_seed_ranges_or_a_margin_at_several_seeds():
    # rnn [100, 100, 10] against lstm [20, 20, 20]: the interval of the differences includes 0
    d = paired("lag", {0: 100, 1: 100, 2: 10}, {0: 20, 1: 20, 2: 20})
    assert not d.counts and directional(d, -1) == "inconclusive"
    # separate ranges with a paired interval that reaches 0 do not count (the range test ignored the pairing)
    d = paired("loss", {0: 3.0, 1: 2.2, 2: 2.9}, {0: 1.6, 1: 2.1, 2: 1.65})
    assert not d.counts and directional(d, +1) == "inconclusive"
    # a margin applies to one seed only: at three seeds a mean beyond it does not count by itself
    d = paired("acc", {0: 0.9, 1: 0.2, 2: 0.8}, {0: 0.5, 1: 0.5, 2: 0.5}, margin=0.1)
    assert abs(d.mean) > 0.1 and not d.counts and not d.beyond_margin


def test_only_seeds_both_arms_have_are_paired_and_nan_drops_its_seed():
    d = paired("x", {0: 1.0, 1: 2.0, 2: math.nan, 3: 5.0}, {0: 0.5, 1: 1.5, 2: 1.0})
    assert d.seeds == 2 and d.mean == pytest.approx(0.5)


def test_one_seed_counts_only_beyond_a_declared_margin():
    d = paired("t", {0: 1.05}, {0: 1.0})
    assert not d.counts and d.why() == "1 seed: no verdict" and d.no_verdict
    assert equivalent(d, tolerance=3.0) == "inconclusive" and not_worse(d, margin=3.0) == "inconclusive"
    assert paired("t", {0: 1.2}, {0: 1.0}, margin=0.1).counts
    assert not paired("t", {0: 1.05}, {0: 1.0}, margin=0.1).counts


def test_one_seed_is_widened_by_its_calibrated_margin_in_every_rule_shape():
    from harness.paired import one_seed_margin

    margin = one_seed_margin([1.0, 2.0, 3.0])  # sd 1 from 3 seeds: t(0.975, 2) = 4.303
    assert margin == pytest.approx(4.3027, abs=1e-3)
    assert one_seed_margin([1.0, 2.0, 3.0], arms=2) == pytest.approx(4.3027 * 2**0.5, abs=1e-3)
    with pytest.raises(ValueError):
        one_seed_margin([1.0, 2.0])
    near = paired("d", {0: 0.5}, {0: 0.0}, margin=0.2)  # 0.5 +- 0.2
    assert equivalent(near, tolerance=1.0) == "agrees" and equivalent(near, tolerance=0.6) == "inconclusive"
    assert not_worse(near, margin=0.75) == "agrees" and not_worse(near, margin=0.6) == "inconclusive"
    assert not_worse(near, margin=0.2) == "disagrees"


def test_relative_differences_are_in_percent():
    d = paired("ppl", {0: 4.4, 1: 4.62}, {0: 4.0, 1: 4.2}, relative=True)
    assert d.mean == pytest.approx(10.0) and d.estimate.unit == "%"


def test_equivalence_needs_the_interval_inside_the_tolerance():
    inside = paired("d", {0: 4.02, 1: 4.01, 2: 3.99}, {0: 4.0, 1: 4.0, 2: 4.0}, relative=True)
    assert equivalent(inside, tolerance=2.0) == "agrees"
    assert equivalent(inside, tolerance=0.1) == "inconclusive"  # interval wider than the tolerance
    worse = paired("d", {0: 4.4, 1: 4.41, 2: 4.39}, {0: 4.0, 1: 4.0, 2: 4.0}, relative=True)
    assert equivalent(worse, tolerance=2.0) == "disagrees"


def test_a_real_difference_smaller_than_the_tolerance_is_equivalent():
    # +1% on every seed: the interval excludes zero (the difference counts), yet lies inside +-3%: alike (TOST)
    small = paired("d", {0: 4.04, 1: 4.042, 2: 4.038}, {0: 4.0, 1: 4.0, 2: 4.0}, relative=True)
    assert small.counts and equivalent(small, tolerance=3.0) == "agrees"
    assert equivalent(small, tolerance=0.5) == "disagrees"


def test_not_worse_is_one_sided_a_better_arm_passes_a_worse_one_needs_its_interval_inside_the_margin():
    base = {0: 4.0, 1: 4.0, 2: 4.0}
    better = paired("d", {0: 3.9, 1: 3.95, 2: 3.85}, base, relative=True)  # -3.75% to -1.25%: better, interval wide
    assert equivalent(better, tolerance=3.0) == "inconclusive" and not_worse(better, margin=3.0) == "agrees"
    slightly = paired("d", {0: 4.04, 1: 4.042, 2: 4.038}, base, relative=True)  # +1% every seed
    assert not_worse(slightly, margin=3.0) == "agrees" and not_worse(slightly, margin=0.5) == "disagrees"
    noisy = paired("d", {0: 4.0, 1: 4.2, 2: 3.9}, base, relative=True)  # upper end past +3%, inside the seed spread
    assert not_worse(noisy, margin=3.0) == "inconclusive"


def test_combining_comparisons():
    assert combine_verdicts(["agrees", "agrees"]) == "agrees"
    assert combine_verdicts(["agrees", "inconclusive"]) == "inconclusive"
    assert combine_verdicts(["disagrees", "inconclusive"]) == "disagrees"
    assert combine_verdicts(["agrees", "disagrees"]) == "inconclusive"
    assert combine_verdicts([]) == "not run"


def test_not_testable_says_why_and_what_would_test_it():
    claim = Claim("k", "s", "n", "src", "pub")
    f = not_testable(claim, "the claim is about GPUs", "a run on a CUDA device")
    assert f.verdict == NOT_TESTABLE and "a run on a CUDA device would test it" in f.cause


def test_a_claim_kind_is_finding_or_check():
    assert Claim("k", "s", "n", "src", "pub", kind="check").kind == "check"
    with pytest.raises(ValueError, match="kind"):
        Claim("k", "s", "n", "src", "pub", kind="fact")


def test_a_findings_seed_count_is_its_headlines_not_the_largest_of_its_estimates():
    from harness.findings import finding

    claim = Claim("k", "s", "n", "src", "pub")
    three = paired("x", {0: 1.0, 1: 2.0, 2: 3.0}, {0: 0.0, 1: 0.5, 2: 1.0}).estimate
    two = paired("gap", {0: 1.0, 1: 2.0}, {0: 0.0, 1: 0.5}).estimate
    assert finding(claim, "agrees", "s", [three, two], headline=1).seeds == 2
    assert finding(claim, "agrees", "s", [three, two]).seeds == 3
