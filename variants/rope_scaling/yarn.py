"""YaRN: NTK-by-parts interpolation plus an attention temperature (Peng et al. 2023, arXiv 2309.00071).

Pair i (of d/2) turns r_i = L / lambda_i = L theta_i / (2 pi) times over the training length L. The
authors' code (github.com/jquesnelle/yarn, scaled_rope/modeling_llama_yarn.py: ``_yarn_find_correction_dim``,
``_yarn_find_correction_range``, ``_yarn_linear_ramp_mask``; Hugging Face transformers'
``_compute_yarn_parameters`` the same) turns the rotation bounds beta (fast, 32) and alpha (slow, 1) into
pair indices, i(r) = d ln(L / (2 pi r)) / (2 ln b), rounds them outwards (low = floor(i(beta)) >= 0,
high = ceil(i(alpha)) <= d - 1) and ramps linearly *in the pair index* between them:

    keep_i = 1 - clamp((i - low) / (high - low), 0, 1)    (high == low: high + 0.001)
    theta'_i = keep_i theta_i + (1 - keep_i) theta_i / s

so the fastest pairs keep their frequency, the slowest are interpolated as in PI, and the pairs between
are blended. The logits are multiplied by 1/t with sqrt(1/t) = 0.1 ln(s) + 1 (1 for s <= 1), applied to
queries and keys each, as the code scales cos and sin. The paper writes the ramp as a function of r,
gamma(r) = (r - alpha) / (beta - alpha): linear in r, which is exponential in i, so the two differ in shape
and not only by rounding; that form is the alternative ``yarn_rlinear`` (yarn_rlinear.py).

alpha = 1 and beta = 32 are the paper's values for Llama (L = 2048/4096, d = 128), which it says to tune
case by case; position_extrapolation chooses them on validation text (suites/position_extrapolation/tuning.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ._base import BASE, RopeScaling, rope_frequencies, rope_scalings


def correction_index(rotations: float, head_dim: int, base: float, train_len: int) -> float:
    """The (fractional) pair index i whose pair turns ``rotations`` times over ``train_len``: d ln(L / (2 pi r)) / (2 ln b)."""
    return head_dim * math.log(train_len / (rotations * 2 * math.pi)) / (2 * math.log(base))


def correction_range(beta: float, alpha: float, head_dim: int, base: float, train_len: int) -> tuple[int, int]:
    """(low, high) pair indices of the ramp: floor(i(beta)) clamped at 0, ceil(i(alpha)) clamped at d - 1 (as the code)."""
    low = math.floor(correction_index(beta, head_dim, base, train_len))
    high = math.ceil(correction_index(alpha, head_dim, base, train_len))
    return max(low, 0), min(high, head_dim - 1)


def pair_ramp(low: float, high: float, pairs: int) -> torch.Tensor:
    """(pairs,) float64 clamp((i - low) / (high - low), 0, 1): 0 up to ``low``, 1 from ``high`` on."""
    if low == high:
        high += 0.001  # as the authors' code: no division by zero
    i = torch.arange(pairs, dtype=torch.float64)
    return ((i - low) / (high - low)).clamp(0.0, 1.0)


def blend(theta: torch.Tensor, keep: torch.Tensor, s: float) -> torch.Tensor:
    """theta_i kept where keep_i = 1, divided by s where keep_i = 0, linear between."""
    return keep * theta + (1 - keep) * theta / s


@dataclass(frozen=True)
class Yarn(RopeScaling):
    """NTK-by-parts frequencies ramped in the pair index (the authors' code) and sqrt(1/t) = 0.1 ln s + 1."""

    #: the slow bound (beta_slow in the code): pairs turning fewer times than this within L are interpolated
    alpha: float = 1.0
    #: the fast bound (beta_fast): pairs turning more times than this within L are kept
    beta: float = 32.0

    def keep(self, head_dim: int, train_len: int, base: float = BASE) -> torch.Tensor:
        """(head_dim/2,) the share of each pair's own frequency that is kept (1: extrapolated, 0: interpolated)."""
        low, high = correction_range(self.beta, self.alpha, head_dim, base, train_len)
        return 1 - pair_ramp(low, high, head_dim // 2)

    def frequencies(self, head_dim: int, s: float, train_len: int, base: float = BASE) -> torch.Tensor:
        return blend(rope_frequencies(head_dim, base), self.keep(head_dim, train_len, base), s)  # (head_dim/2,)

    def attention_factor(self, s: float) -> float:
        return 1.0 if s <= 1 else 0.1 * math.log(s) + 1.0


rope_scalings.add("yarn", Yarn())
