"""Attention's share of a Transformer block (sequence_cost): Kaplan et al.'s count, the crossover length and the verdict."""

from __future__ import annotations

import pandas as pd
import pytest

from suites.sequence_cost.attention_share import analytic_share, core_flops
from suites.sequence_cost.share_verdict import crossover, share_finding, share_rows


def _records(shares: dict[int, float], d: int = 256, relative_sd: float = 0.01, contaminated: bool = False):
    return pd.DataFrame(
        [
            {"variant": "transformer", "metric": "attention_share", "status": "ok", "x": float(n), "value": s,
             "extra": {"n_over_d": n / d, "flops_share": analytic_share(n, d), "analytic_share": analytic_share(n, d),
                       "relative_sd": relative_sd, "contaminated": contaminated}}
            for n, s in shares.items()
        ]
    )  # fmt: skip


def test_kaplan_s_count_puts_half_of_a_causal_layer_s_flops_in_attention_at_twelve_d():
    assert analytic_share(12 * 256, 256) == 0.5
    # the causal core's 2 B n (n + 1) d against the weights' 24 d^2 per token: Kaplan's share with the diagonal
    assert core_flops(8, 1024, 256) / (core_flops(8, 1024, 256) + 8 * 1024 * 24 * 256**2) == pytest.approx(
        analytic_share(1025, 256)
    )


def test_the_crossover_is_interpolated_in_log_length():
    rows = share_rows(_records({256: 0.25, 1024: 0.75}))
    assert crossover(rows) == pytest.approx(512.0)
    assert crossover(share_rows(_records({64: 0.1, 128: 0.2}))) is None


def test_a_minor_share_at_every_moderate_length_agrees_and_a_majority_disagrees():
    assert share_finding(_records({64: 0.2, 256: 0.1, 1024: 0.3})).verdict == "agrees"
    found = share_finding(_records({64: 0.2, 256: 0.6, 1024: 0.7}))
    assert found.verdict == "disagrees" and "n = 256" in found.cause
    noisy = share_finding(_records({64: 0.2, 256: 0.45}, relative_sd=0.1))  # 0.45 x (1 + 0.28) reaches past half
    assert noisy.verdict == "inconclusive"


def test_a_length_past_twelve_d_is_shown_but_not_judged():
    found = share_finding(_records({1024: 0.3, 4096: 0.9}))  # n / d = 16 at 4096: outside Kaplan's "small" regime
    assert found.verdict == "agrees" and "4096" in found.sentence
