"""A scoring that declares a dot product but returns a learned scale is refused by fused kernels at planning."""

import torch
from torch import nn

from variants.kernel._base import kernels
from variants.scoring._base import Scoring, fused_dot_product, scorings


class LearnedTemperature(Scoring):
    """A dot product times a learned temperature (declared a dot product, its scale a tensor)."""

    def __init__(self, dim):
        super().__init__(dim)
        self.log_scale = nn.Parameter(torch.zeros(()))

    def scale(self):
        return self.log_scale.exp() / self.dim**0.5


def test_the_built_in_dot_products_are_fused_and_a_learned_scale_is_not():
    assert fused_dot_product(scorings.get("scaled_dot")) and fused_dot_product(scorings.get("dot"))
    assert not fused_dot_product(scorings.get("additive"))
    assert not fused_dot_product(LearnedTemperature)


def test_only_kernels_that_materialise_scores_take_a_learned_scale_and_they_compute_it():
    taking = [name for name in kernels.names() if kernels.get(name).supports_scoring(LearnedTemperature)]
    assert taking and all(kernels.get(name).any_scoring for name in taking)
    assert "sdpa" not in taking
    scoring = LearnedTemperature(4)
    q, k, v = (torch.randn(1, 2, 3, 4) for _ in range(3))
    naive = kernels.get(taking[0])
    got = naive.attend(q, k, v, causal=True, scale=scoring.scale(), **scoring.kernel_options())
    want = (
        torch.softmax(
            (q @ k.transpose(-2, -1) * scoring.scale()).masked_fill(
                torch.ones(3, 3, dtype=torch.bool).triu(1), float("-inf")
            ),
            -1,
        )
        @ v
    )
    torch.testing.assert_close(got, want)
    got.sum().backward()
    assert scoring.log_scale.grad is not None  # the learned scale trains through the kernel that takes it
