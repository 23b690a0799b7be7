"""Attention is a minor share of a block's time where d_model > n / 12 (Kaplan et al.): each length's share tested
against half on its timing repeats, the lengths held together, and the crossover length."""

import math

import numpy as np
import pytest

from harness.paired import all_hold
from suites.common import timing_repeats as repeats
from suites.sequence_cost.claims import attention_minor_at_moderate_length as claim
from suites.sequence_cost.share_table import share_rows
from tests.unit.suites.sequence_cost.claims._records import as_is, share_records


def test_the_crossover_is_interpolated_in_log_length():
    rows = share_rows(share_records({256: 0.25, 1024: 0.75}))
    assert claim.crossover(rows) == pytest.approx(512.0)
    assert claim.crossover(share_rows(share_records({64: 0.1, 128: 0.2}))) is None


def test_a_minor_share_at_every_moderate_length_agrees_a_majority_disagrees_and_a_near_half_is_inconclusive():
    found = claim.judge(as_is(share_records({64: 0.2, 256: 0.1, 1024: 0.3})))
    assert found.verdict == "agrees" and found.headline.interval_text().endswith("over timing repeats")
    assert found.p is not None and found.p < 0.05
    found = claim.judge(as_is(share_records({64: 0.2, 256: 0.6, 1024: 0.7})))
    assert found.verdict == "disagrees" and "n = 256" in found.cause and "n = 256" in found.headline.label
    noisy = claim.judge(as_is(share_records({64: 0.2, 256: 0.45}, relative_sd=0.2)))
    assert noisy.verdict == "inconclusive"


def test_records_without_each_timings_repeats_use_the_profiles_minimum_conservatively():
    new = share_rows(share_records({256: 0.45}, relative_sd=0.1, repeats=5)).contrast.iloc[0]
    old = share_rows(share_records({256: 0.45}, relative_sd=0.1, repeats=None)).contrast.iloc[0]
    assert old.se == pytest.approx(new.se) and old.df == 4 and new.df > old.df


def test_a_length_past_twelve_d_is_shown_but_not_judged():
    found = claim.judge(
        as_is(share_records({1024: 0.3, 4096: 0.9}))
    )  # n / d = 16 at 4096: outside Kaplan's "small" regime
    assert found.verdict == "agrees" and "4096" in found.sentence


def test_at_a_share_of_exactly_half_at_three_lengths_the_rule_says_a_verdict_at_most_2_5_percent_each_way():
    """The rule's size: the true share exactly 1/2 at three lengths, the core's and the block's 5 repeats each with a
    log sd of 0.05; each length's test at 2.5% a side, "disagrees" Holm-controlled across the lengths."""
    rng = np.random.default_rng(11)
    sims, n, sd, lengths = 4000, 5, 0.05, 3
    verdicts = []
    for _ in range(lengths):
        core = repeats.log_medians(np.exp(math.log(0.5) + sd * rng.standard_normal((sims, n))))
        block = repeats.log_medians(np.exp(sd * rng.standard_normal((sims, n))))
        verdicts.append(repeats.combine([1, -1], *(np.stack([core[i], block[i]], -1) for i in range(3))))
    parts = zip(*(repeats.verdicts(c, se, df, math.log(0.5), above=False) for c, se, df in verdicts))
    words = np.array([str(all_hold(list(p))) for p in parts])
    assert (words == "disagrees").mean() <= 0.03 and (words == "agrees").mean() <= 0.03


def test_its_claim_declares_a_smallest_effect():
    assert claim.CLAIM.smallest_effect and claim.CLAIM.smallest_effect_source
