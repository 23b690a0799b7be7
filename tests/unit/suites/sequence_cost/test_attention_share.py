"""Attention's share of a Transformer block (sequence_cost): Kaplan et al.'s count."""

from __future__ import annotations

import pytest

from suites.sequence_cost.attention_share import analytic_share, core_flops


def test_kaplan_s_count_puts_half_of_a_causal_layer_s_flops_in_attention_at_twelve_d():
    assert analytic_share(12 * 256, 256) == 0.5
    # the causal core's 2 B n (n + 1) d against the weights' 24 d^2 per token: Kaplan's share with the diagonal
    assert core_flops(8, 1024, 256) / (core_flops(8, 1024, 256) + 8 * 1024 * 24 * 256**2) == pytest.approx(
        analytic_share(1025, 256)
    )
