"""Vaswani et al. 2017, 3.2.1: var(q.k) = d_k for unit-variance components, and what scaling does to the softmax."""

import math

import pytest
import torch

from suites.attention_scaling.softmax_probe import softmax_stats, unit_gaussians
from variants.scoring._base import scorings


def stats(scoring: str, d_k: int, n_queries: int = 1024):
    torch.manual_seed(0)
    return softmax_stats(
        scorings.get(scoring)(d_k), *unit_gaussians(n_queries, 64, d_k, torch.Generator().manual_seed(0))
    )


@pytest.mark.parametrize("d_k", [16, 64, 256])
def test_the_variance_of_q_dot_k_is_d_k(d_k):
    s = stats("dot", d_k)
    assert s.qk_variance == pytest.approx(d_k, rel=0.05)
    assert s.score_variance == pytest.approx(d_k, rel=0.05)


@pytest.mark.parametrize("d_k", [16, 64, 256])
def test_scaling_by_one_over_sqrt_d_k_restores_unit_variance(d_k):
    assert stats("scaled_dot", d_k).score_variance == pytest.approx(1.0, rel=0.05)


def test_unscaled_scores_saturate_the_softmax_at_large_d_k_and_scaled_ones_do_not():
    scaled, unscaled = stats("scaled_dot", 256), stats("dot", 256)
    assert scaled.entropy > 3.0 and unscaled.entropy < 0.5  # log 64 = 4.16 nats is uniform
    assert unscaled.saturated_fraction > 0.3 and scaled.saturated_fraction == 0.0
    assert unscaled.jacobian_norm < scaled.jacobian_norm
    # the scaled softmax looks the same at every d_k
    assert stats("scaled_dot", 16).entropy == pytest.approx(scaled.entropy, abs=0.05)


def test_the_jacobian_norm_matches_autograd():
    q, k, v, g = unit_gaussians(1, 5, 4, torch.Generator().manual_seed(1))
    s = softmax_stats(scorings.get("dot")(4), q, k, v, g)
    scores = (q @ k[0].T).squeeze(0)
    jac = torch.autograd.functional.jacobian(lambda x: torch.softmax(x, -1), scores)
    assert s.jacobian_norm == pytest.approx(float(jac.norm()), rel=1e-5)
    p = torch.softmax(scores, -1)
    assert s.entropy == pytest.approx(float(-(p * p.log()).sum()), rel=1e-5)


def test_a_uniform_softmax_is_not_saturated():
    q, k, v, g = unit_gaussians(8, 16, 4, torch.Generator().manual_seed(0))
    s = softmax_stats(scorings.get("dot")(4), torch.zeros_like(q), k, v, g)
    assert s.entropy == pytest.approx(math.log(16)) and s.saturated_fraction == 0.0
    assert s.jacobian_norm == pytest.approx(math.sqrt(15) / 16, rel=1e-5)
