"""Every rule a verdict rests on is a test of its stated size: simulated under the null, each says "agrees" and
"disagrees" at most 2.5% of the time apiece (5% in all) — the one-sided threshold test at a mean exactly on the bar,
the equivalence and non-inferiority tests at their boundary, conjunctions and combiners of several null parts, and
the one-seed margin from three seeds' spread (harness/paired.py)."""

import math

import numpy as np
import pytest

from harness.estimate import Estimate
from harness.paired import (
    all_hold,
    combine_verdicts,
    directional,
    equivalent,
    not_worse,
    one_seed_margin,
    paired,
    reaches,
)

DRAWS = 4000
#: 2.5% plus three Monte-Carlo standard errors at DRAWS: a branch of size 2.5% passes
BRANCH = 0.025 + 3 * (0.025 * 0.975 / DRAWS) ** 0.5
#: 5% plus three Monte-Carlo standard errors: the rule as a whole
WHOLE = 0.05 + 3 * (0.05 * 0.95 / DRAWS) ** 0.5


def _diff(rng, n, shift=0.0):
    seeds = range(n)
    shared = rng.normal(0.0, 1.0, n)
    a, b = shared + shift + rng.normal(0, 0.3, n), shared + rng.normal(0, 0.3, n)
    return paired("x", dict(zip(seeds, a)), dict(zip(seeds, b)))


def _rates(words):
    words = list(words)
    return words.count("agrees") / len(words), words.count("disagrees") / len(words)


@pytest.mark.parametrize("n", [3, 5])
def test_a_threshold_is_a_one_sided_test_at_a_mean_on_the_bar(n):
    rng = np.random.default_rng(n)
    # accuracies whose true mean is exactly the bar 0.8: the old rule ("mean below 0.8 disagrees") said so ~46-50%
    words = [
        reaches(Estimate.of("acc", 0.8 + rng.normal(0, 0.1, n), kind="bounded", bounds=(0.0, 1.0)), 0.8)
        for _ in range(DRAWS)
    ]
    agree, disagree = _rates(words)
    assert agree <= BRANCH and disagree <= BRANCH, (agree, disagree)


def test_a_threshold_decides_a_clear_mean():
    assert reaches(Estimate.of("acc", [0.95, 0.97, 0.96], kind="bounded", bounds=(0, 1)), 0.8) == "agrees"
    assert reaches(Estimate.of("acc", [0.15, 0.3, 0.2], kind="bounded", bounds=(0, 1)), 0.8) == "disagrees"
    assert reaches(Estimate.of("acc", [0.15, 0.9, 0.6], kind="bounded", bounds=(0, 1)), 0.8) == "inconclusive"
    assert reaches(Estimate.of("loss", [1.0, 1.1, 1.05]), 2.0, above=False) == "agrees"


@pytest.mark.parametrize("rule, boundary", [(equivalent, 0.5), (not_worse, 0.5)])
def test_equivalence_and_non_inferiority_hold_their_size_at_the_boundary(rule, boundary):
    rng = np.random.default_rng(7)
    words = [rule(_diff(rng, 3, shift=boundary), boundary) for _ in range(DRAWS)]
    agree, disagree = _rates(words)
    assert agree <= BRANCH and disagree <= BRANCH, (agree, disagree)


@pytest.mark.parametrize("k", [2, 3, 4, 5])
@pytest.mark.parametrize("combine", [all_hold, combine_verdicts])
def test_a_conjunction_or_combiner_of_null_parts_holds_its_size(k, combine):
    # k independent null parts: each alone says "disagrees" 2.5% of the time, so "any part disagrees" was 4.9-12%
    rng = np.random.default_rng(100 + k)
    words = [combine([directional(_diff(rng, 3), +1) for _ in range(k)]) for _ in range(DRAWS)]
    agree, disagree = _rates(words)
    assert disagree <= BRANCH and agree + disagree <= WHOLE, (k, agree, disagree)


def test_a_conjunction_is_still_refuted_by_one_clearly_reversed_part():
    rng = np.random.default_rng(3)
    good = directional(_diff(rng, 5, shift=3.0), +1)
    bad = directional(_diff(rng, 5, shift=-3.0), +1)
    assert good == "agrees" and bad == "disagrees"
    assert all_hold([good, bad]) == "disagrees" and combine_verdicts([bad, bad]) == "disagrees"
    assert all_hold([good, good]) == "agrees" and combine_verdicts([good, bad]) == "inconclusive"


@pytest.mark.parametrize("arms", [1, 2])
def test_the_one_seed_margin_from_three_seeds_counts_null_noise_at_most_five_percent(arms):
    # the margin is set from three seeds of one arm's spread; the judged one-seed quantity is one arm (arms=1) or a
    # difference of two one-seed arms (arms=2). A fixed 2.8 sd counted 10.6% (18.6% for the difference).
    rng = np.random.default_rng(11 + arms)
    standard = rng.normal(0, 1, (DRAWS, 3))
    judged = rng.normal(0, 1, (DRAWS, arms)) @ np.array([1.0, -1.0][:arms])
    hits = sum(abs(x) > one_seed_margin(s, arms=arms) for s, x in zip(standard, judged))
    assert hits / DRAWS <= WHOLE, hits / DRAWS


def test_verdicts_carry_their_p_values():
    d = paired("x", {0: 1.0, 1: 1.2, 2: 1.1}, {0: 0.0, 1: 0.1, 2: 0.05})
    v = directional(d, +1)
    assert v == "agrees" and v.p < 0.05 and v.p == pytest.approx(d.p_value(), rel=1e-9)
    assert v.p_for < 0.025 < v.p_against
    flipped = directional(d, -1)
    assert flipped == "disagrees" and flipped.p_against == pytest.approx(v.p_for)
    assert math.isnan(directional(paired("x", {0: 1.0}, {0: 0.0}, margin=0.1), +1).p)
