"""Intervals that fit the quantity (harness/intervals.py): positive ones stay positive, bounded ones within their
bounds, counts show their range, and one seed shows no interval and marks its verdict indicative only."""

import math

import pandas as pd
import pytest

from harness.findings import INDICATIVE, Claim, Estimate, finding, not_testable
from harness.intervals import change, spread
from harness.paired import directional, paired
from harness.report import fmt_mean_ci, mean_ci

CLAIM = Claim("k", "suite", "a claim", "Someone 2020", "x")


def test_the_student_t_interval_of_a_difference_is_unchanged():
    # mean 2, sd 1, n 3: half-width t(0.975, 2) * 1 / sqrt(3) = 4.303 / 1.732 = 2.484
    e = Estimate.of("d", [1.0, 2.0, 3.0])
    assert (e.value, e.low, e.high) == pytest.approx((2.0, 2.0 - 2.4841, 2.0 + 2.4841), abs=1e-4)
    assert mean_ci([1.0, 2.0, 3.0]) == pytest.approx((2.0, 2.4841, 3), abs=1e-4)
    assert e.interval_text() == "[-0.484, 4.48]"


def test_a_positive_quantity_keeps_a_positive_interval():
    values = [0.5, 3.0, 9.0]  # a ratio whose Student-t interval runs far below 0
    assert Estimate.of("r", values).low < 0
    e = Estimate.of("r", values, kind="log")
    assert e.low > 0 and e.low < e.value < e.high
    # pinned: exp(mean log +- t sd(log) / sqrt 3), logs -0.693, 1.099, 2.197
    logs = [math.log(v) for v in values]
    centre = sum(logs) / 3
    sd = math.sqrt(sum((x - centre) ** 2 for x in logs) / 2)
    assert e.low == pytest.approx(math.exp(centre - 4.302653 * sd / math.sqrt(3)), rel=1e-5)
    assert e.high == pytest.approx(math.exp(centre + 4.302653 * sd / math.sqrt(3)), rel=1e-5)
    assert (round(e.low, 3), round(e.high, 3)) == (0.063, 89.287)


def test_a_relative_change_stays_above_minus_100_percent():
    # a variant whose perplexity falls to a tenth and a fifth of its reference's: a t interval would pass -100%
    s = change([0.1, 0.2, 0.9])
    assert -100 < s.low < s.mean < s.high
    d = paired("ppl", {0: 0.4, 1: 0.8, 2: 3.6}, {0: 4.0, 1: 4.0, 2: 4.0}, relative=True)
    assert d.estimate.low > -100 and d.estimate.unit == "%" and d.mean == pytest.approx(-60.0)
    assert d.estimate.kind == "log"


def test_a_bounded_quantity_keeps_within_its_bounds():
    bleu = [99.0, 100.0, 97.0]
    assert Estimate.of("BLEU", bleu).high > 100
    e = Estimate.of("BLEU", bleu, kind="bounded", bounds=(0, 100))
    assert e.high == 100 and e.low == pytest.approx(98.6667 - 4.302653 * math.sqrt(7 / 3) / math.sqrt(3), rel=1e-5)
    # a difference of two BLEUs keeps within [-100, 100]
    gap = paired("gap", {0: 99.0, 1: 100.0, 2: 60.0}, {0: 2.0, 1: 1.0, 2: 30.0}, "BLEU", bounds=(0, 100))
    assert gap.estimate.low >= -100 and gap.estimate.high == 100
    assert paired("gap", {0: 99.0, 1: 100.0, 2: 60.0}, {0: 2.0, 1: 1.0, 2: 30.0}).estimate.high > 100


def test_values_beyond_the_bounds_are_not_hidden():
    # a share of peak over 100% (timed under a changing load): the interval still holds the mean
    s = spread([104.0, 106.0], "bounded", (0, 100))
    assert s.low <= s.mean <= s.high


def test_a_count_shows_its_range_over_seeds_and_no_interval():
    e = Estimate.of("longest lag learned, lstm", [100, 50, 100], "steps", "count")
    assert e.low is None and e.high is None
    assert e.text() == "longest lag learned, lstm 83.3 steps (range 50-100, 3 seeds)"
    assert e.interval_text() == "range 50-100"
    assert Estimate.of("rnn", [5, 5, 5], "steps", "count").text() == "rnn 5 steps (all 5, 3 seeds)"
    assert fmt_mean_ci([1, 6, 4], 1, "count") == "3.7 (range 1-6, n=3)"


def test_fmt_mean_ci_of_each_kind():
    assert fmt_mean_ci([1.0, 2.0, 3.0]) == "2.00 ± 2.48 (n=3)"
    assert fmt_mean_ci([1.0, 2.0, 3.0], kind="log") == "2.00 [0.46, 7.22] (n=3)"
    assert fmt_mean_ci([99.0, 100.0, 98.0], 1, "bounded", (0, 100)) == "99.0 [96.5, 100.0] (n=3)"
    assert fmt_mean_ci([]) == "-"


@pytest.mark.parametrize("kind", ["t", "log", "bounded", "count"])
def test_one_seed_has_no_interval_whatever_its_kind(kind):
    bounds = (0, 100) if kind == "bounded" else None
    e = Estimate.of("x", [42.0], "u", kind, bounds)
    assert e.low is None and e.high is None and e.interval_text() == "none (1 seed)"
    assert "range" not in e.text() and "[" not in e.text()
    assert fmt_mean_ci([42.0], 1, kind, bounds) == "42.0 (n=1)"


def test_a_bad_kind_or_missing_bounds_is_one_clear_sentence():
    with pytest.raises(ValueError, match="'normal' is not one of t, log, bounded, count"):
        Estimate.of("x", [1.0, 2.0], kind="normal")
    with pytest.raises(ValueError, match="needs bounds"):
        Estimate.of("x", [1.0, 2.0], kind="bounded")


def test_a_one_seed_verdict_is_indicative_only():
    found = finding(CLAIM, "agrees", "This run agrees.", [Estimate.of("x", [1.0])])
    assert found.indicative and found.note == INDICATIVE
    assert found.sentence == f"This run agrees. ({INDICATIVE}.)"
    assert found.interval() == f"none ({INDICATIVE})"
    assert found.verdict == "agrees"  # the verdict vocabulary is unchanged
    # three seeds, an inconclusive verdict, a verdict on exact bytes or timing repeats: no note
    assert not finding(CLAIM, "agrees", "s", [Estimate.of("x", [1.0, 2.0, 3.0])]).indicative
    assert not finding(CLAIM, "inconclusive", "s", [Estimate.of("x", [1.0])]).indicative
    timed = finding(CLAIM, "agrees", "s", [Estimate.of("x", [1.0])], over_seeds=False)
    assert not timed.indicative and timed.sentence == "s" and timed.interval() == "none (1 seed)"
    assert not not_testable(CLAIM, "a GPU claim", "a GPU", [Estimate.of("x", [1.0])]).indicative


def test_the_verdict_rule_uses_the_fitting_interval():
    # relative changes: the log interval excludes 0 exactly when the log ratios' t interval does
    d = paired("ppl", {0: 4.4, 1: 4.5, 2: 4.3}, {0: 4.0, 1: 4.1, 2: 4.0}, relative=True)
    assert d.interval_excludes_zero and directional(d, +1) == "agrees"
