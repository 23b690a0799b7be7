"""Attention is a minor share of a block's time where d_model > n / 12 (Kaplan et al.): the verdict and the
crossover length."""

import pytest

from suites.sequence_cost.claims import attention_minor_at_moderate_length as claim
from suites.sequence_cost.share_table import share_rows
from tests.unit.suites.sequence_cost.claims._records import as_is, share_records


def test_the_crossover_is_interpolated_in_log_length():
    rows = share_rows(share_records({256: 0.25, 1024: 0.75}))
    assert claim.crossover(rows) == pytest.approx(512.0)
    assert claim.crossover(share_rows(share_records({64: 0.1, 128: 0.2}))) is None


def test_a_minor_share_at_every_moderate_length_agrees_and_a_majority_disagrees():
    assert claim.judge(as_is(share_records({64: 0.2, 256: 0.1, 1024: 0.3}))).verdict == "agrees"
    found = claim.judge(as_is(share_records({64: 0.2, 256: 0.6, 1024: 0.7})))
    assert found.verdict == "disagrees" and "n = 256" in found.cause
    noisy = claim.judge(
        as_is(share_records({64: 0.2, 256: 0.45}, relative_sd=0.1))
    )  # 0.45 x (1 + 0.28) reaches past half
    assert noisy.verdict == "inconclusive"


def test_a_length_past_twelve_d_is_shown_but_not_judged():
    found = claim.judge(
        as_is(share_records({1024: 0.3, 4096: 0.9}))
    )  # n / d = 16 at 4096: outside Kaplan's "small" regime
    assert found.verdict == "agrees" and "4096" in found.sentence
