"""NTK-aware scaling: RoPE's base raised to b' = b * s^(d/(d-2)) (bloc97 2023; described in Peng et al. 2023, arXiv 2309.00071, sec. 3.1).

theta'_i = b'^(-2i/d): the highest frequency (i = 0) is unchanged and the lowest (i = d/2 - 1) is divided
by exactly s, with the ones between spread geometrically, so nearby positions stay sharp while the longest
wavelengths are interpolated. It needs no fine-tuning for moderate s. Some middle pairs are extrapolated
past the angles seen in training ("out of bound"), so in practice s "has to be set higher than the
expected scale" (Peng et al. 3.1): with ``headroom`` h the base is raised for s' = 1 + h (s - 1), the form of
Hugging Face transformers' dynamic NTK scaling factor (h = 1: s itself, the formula as written; s' = 1 at
the training length, so lengths up to L keep their frequencies).
position_extrapolation chooses it on validation text (suites/position_extrapolation/tuning.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ._base import BASE, RopeScaling, rope_frequencies, rope_scalings


def with_headroom(s: float, headroom: float) -> float:
    """s' = 1 + headroom x (s - 1): above s for headroom > 1, and 1 at s = 1."""
    return 1.0 + headroom * (s - 1.0)


def ntk_base(head_dim: int, s: float, base: float = BASE) -> float:
    """b' = b * s^(d / (d - 2))."""
    return base * s ** (head_dim / (head_dim - 2))


@dataclass(frozen=True)
class NtkAware(RopeScaling):
    """The base b raised to b * s'^(d/(d-2)), s' = 1 + headroom (s - 1)."""

    #: the base is raised for 1 + headroom (s - 1), not s (Peng et al. 3.1: set higher than the expected scale)
    headroom: float = 1.0

    def frequencies(self, head_dim: int, s: float, train_len: int, base: float = BASE) -> torch.Tensor:
        return rope_frequencies(head_dim, ntk_base(head_dim, with_headroom(s, self.headroom), base))  # (head_dim/2,)


rope_scalings.add("ntk", NtkAware())
