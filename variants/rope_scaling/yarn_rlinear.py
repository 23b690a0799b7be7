"""YaRN with the ramp linear in the rotation count r, as the paper's equation writes it (Peng et al. 2023, arXiv 2309.00071, eq. 18-19).

gamma(r) = 0 below alpha, 1 above beta, (r - alpha) / (beta - alpha) between, with r_i = L theta_i / (2 pi);
theta'_i = (1 - gamma(r_i)) theta_i / s + gamma(r_i) theta_i, and the same temperature as ``yarn``. Since
r_i falls geometrically with i, this ramp is exponential in the pair index where the authors' code
(``yarn``, the default) is linear in it: at L = 64, d = 16 the fastest pair (r = 10.2 < beta = 32) keeps
only 0.30 of its frequency here and all of it there. An alternative, named so that it is never taken
for the authors' YaRN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ._base import BASE, rope_frequencies, rope_scalings
from .yarn import Yarn


def r_ramp(r: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
    """gamma(r): 0 if r < alpha, 1 if r > beta, (r - alpha) / (beta - alpha) between."""
    return ((r - alpha) / (beta - alpha)).clamp(0.0, 1.0)


@dataclass(frozen=True)
class YarnRLinear(Yarn):
    """YaRN's frequencies with gamma linear in r (the paper's equation), not in the pair index."""

    def keep(self, head_dim: int, train_len: int, base: float = BASE) -> torch.Tensor:
        r = train_len * rope_frequencies(head_dim, base) / (2 * math.pi)  # (head_dim/2,) turns within L
        return r_ramp(r, self.alpha, self.beta)


rope_scalings.add("yarn_rlinear", YarnRLinear())
