"""Position Interpolation: every RoPE frequency divided by s, i.e. position m read as m/s (Chen et al. 2023, arXiv 2306.15595).

theta'_i = theta_i / s. Positions up to s * L fall back into the trained range of angles, at the price of
resolution: neighbouring positions are s times closer. The paper fine-tunes about 1000 steps at the new
length; without fine-tuning it expects higher perplexity than at L.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ._base import BASE, RopeScaling, rope_frequencies, rope_scalings


@dataclass(frozen=True)
class PositionInterpolation(RopeScaling):
    """theta_i / s for every i."""

    def frequencies(self, head_dim: int, s: float, train_len: int, base: float = BASE) -> torch.Tensor:
        return rope_frequencies(head_dim, base) / s  # (head_dim/2,)


rope_scalings.add("pi", PositionInterpolation())
