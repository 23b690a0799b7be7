"""NTK-aware scaling: RoPE's base raised to b' = b * s^(d/(d-2)) (bloc97 2023; described in Peng et al. 2023, arXiv 2309.00071).

theta'_i = b'^(-2i/d): the highest frequency (i = 0) is unchanged and the lowest (i = d/2 - 1) is divided
by exactly s, with the ones between spread geometrically, so nearby positions stay sharp while the longest
wavelengths are interpolated. It needs no fine-tuning for moderate s.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ._base import BASE, RopeScaling, rope_frequencies, rope_scalings


def ntk_base(head_dim: int, s: float, base: float = BASE) -> float:
    """b' = b * s^(d / (d - 2))."""
    return base * s ** (head_dim / (head_dim - 2))


@dataclass(frozen=True)
class NtkAware(RopeScaling):
    """The base b raised to b * s^(d/(d-2))."""

    def frequencies(self, head_dim: int, s: float, train_len: int, base: float = BASE) -> torch.Tensor:
        return rope_frequencies(head_dim, ntk_base(head_dim, s, base))  # (head_dim/2,)


rope_scalings.add("ntk", NtkAware())
