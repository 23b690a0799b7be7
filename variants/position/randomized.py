"""Randomized positions on RoPE: training positions are a sorted random subset of a larger range (Ruoss et al. 2023, arXiv 2305.16843).

During training the T tokens of each sequence get the positions of a sorted random sample of 0..M-1,
M = 16 x the training length (the longest length position_extrapolation evaluates; Ruoss et al. use
M = 2048 for test lengths up to 500), so every offset up to M - 1 is seen in training; in evaluation they
get 0..T-1. The positions enter through RoPE's rotation, so scores depend on sampled offsets only (the
paper's randomized RoPE; it randomizes several base encodings). A fresh sample is drawn per sequence
at each forward pass, in the ``embed`` hook that opens it; ``rotate`` then uses it in every layer.
"""

from __future__ import annotations

from typing import Optional, Tuple

import torch

from ._base import PositionEncoding, positions
from .rope import apply_rope, apply_rope_at

#: M / max_len: the range training positions are drawn from
RANGE_FACTOR = 16


def sorted_sample(batch: int, length: int, max_position: int, device=None) -> torch.Tensor:
    """(batch, length) positions: per row a sorted sample without replacement of 0..max_position-1."""
    if length > max_position:
        raise ValueError(f"cannot draw {length} distinct positions from {max_position}")
    keys = torch.rand(batch, max_position, device=device)  # a random permutation per row, from the global RNG
    return keys.argsort(dim=1)[:, :length].sort(dim=1).values


@positions.register()
class Randomized(PositionEncoding):
    """RoPE at sorted random positions from 0..16L-1 in training, at 0..T-1 in evaluation."""

    #: a captured decode step cannot use it: its rotation is chosen on the host (random positions in training)
    static_positions = False

    def __init__(self, d_model: int, n_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__(d_model, n_heads, head_dim, max_len)
        self.max_position = RANGE_FACTOR * max_len
        self._sampled: Optional[torch.Tensor] = None  # (B, T) positions of the current training forward pass

    @classmethod
    def problems(cls, spec):
        from .rope import Rope

        return Rope.problems(spec)

    def embed(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """x: (B, T, D), returned unchanged; in training, draws this forward pass's positions."""
        sample = self.training and offset == 0 and x.shape[1] <= self.max_position
        self._sampled = sorted_sample(x.shape[0], x.shape[1], self.max_position, x.device) if sample else None
        return x

    def rotate(
        self, q: torch.Tensor, k: torch.Tensor, q_offset: int = 0, k_offset: int = 0
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        pos = self._sampled
        if pos is None or pos.shape != (q.shape[0], q.shape[-2]) or k.shape[-2] != q.shape[-2]:
            return apply_rope(q, q_offset), apply_rope(k, k_offset)
        return apply_rope_at(q, pos), apply_rope_at(k, pos)
