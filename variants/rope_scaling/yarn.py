"""YaRN: NTK-by-parts interpolation plus an attention temperature (Peng et al. 2023, arXiv 2309.00071).

Pair i has wavelength lambda_i = 2 pi / theta_i and completes r_i = L / lambda_i turns over the training
length L. With gamma(r) = 0 below alpha = 1, 1 above beta = 32 and linear between (the paper's Llama
values), theta'_i = (1 - gamma(r_i)) theta_i / s + gamma(r_i) theta_i: wavelengths longer than L are
interpolated as in PI, those that turn many times within L are kept, and the ones between are blended.
The logits are multiplied by 1/t with sqrt(1/t) = 0.1 ln(s) + 1, applied here to queries and keys each.
The paper's code rounds the ends of the ramp to whole dimensions; this follows the formula.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ._base import BASE, RopeScaling, rope_frequencies, rope_scalings


def ramp(r: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
    """gamma(r): 0 if r < alpha, 1 if r > beta, (r - alpha) / (beta - alpha) between."""
    return ((r - alpha) / (beta - alpha)).clamp(0.0, 1.0)


@dataclass(frozen=True)
class Yarn(RopeScaling):
    """NTK-by-parts frequencies and sqrt(1/t) = 0.1 ln s + 1 on queries and keys."""

    alpha: float = 1.0
    beta: float = 32.0

    def frequencies(self, head_dim: int, s: float, train_len: int, base: float = BASE) -> torch.Tensor:
        theta = rope_frequencies(head_dim, base)  # (head_dim/2,)
        r = train_len * theta / (2 * math.pi)  # L / lambda_i
        gamma = ramp(r, self.alpha, self.beta)
        return (1 - gamma) * theta / s + gamma * theta

    def attention_factor(self, s: float) -> float:
        return 0.1 * math.log(s) + 1.0


rope_scalings.add("yarn", Yarn())
