"""Randomized positions on RoPE: each sequence's positions are a sorted random subset of a larger range (Ruoss et al. 2023, arXiv 2305.16843).

The T tokens of a sequence get the positions of a sorted sample without replacement of 0..M-1,
M = 16 x the training length (the longest length position_extrapolation evaluates; Ruoss et al. use
M = 2048 for test lengths up to 500), so every offset up to M - 1 is seen in training. The paper draws
at test time too: its official code (github.com/google-deepmind/randomized_positional_encodings,
models/positional_encodings.py ``noisy_fixed_positional_encodings``, called with a fresh key of a
PRNG sequence seeded with 1 for every evaluation batch in experiments/range_evaluation.py) samples the
positions of every forward pass, training or not, and averages the scores over the batches.

Here a training forward pass draws from the global RNG. In evaluation the encoding draws only when
given a generator (``draw_at_test``: fixed seeds, the paper's protocol, which position_extrapolation
averages over several draws); without one it uses 0..T-1, consecutive positions that a model never
trained on (a labelled extra in that suite), as decoding with a KV cache must (its positions grow one
by one). One draw per sequence, in the ``embed`` hook that opens a forward pass; ``rotate`` then uses it
in every layer. The positions enter through RoPE's rotation, so scores depend on sampled offsets only (the
paper's randomized RoPE; it randomizes several base encodings).
"""

from __future__ import annotations

import torch

from ._base import PositionEncoding, positions
from .rope import apply_rope, apply_rope_at

#: M / max_len: the range positions are drawn from
RANGE_FACTOR = 16


def sorted_sample(
    batch: int, length: int, max_position: int, device=None, generator: torch.Generator | None = None
) -> torch.Tensor:
    """(batch, length) positions: per row a sorted sample without replacement of 0..max_position-1.

    Drawn from ``generator`` (on the CPU, then moved to ``device``) when given, else from the global RNG on ``device``.
    """
    if length > max_position:
        raise ValueError(f"cannot draw {length} distinct positions from {max_position}")
    if generator is not None:
        keys = torch.rand(batch, max_position, generator=generator)  # a random permutation per row
    else:
        keys = torch.rand(batch, max_position, device=device)
    return keys.argsort(dim=1)[:, :length].sort(dim=1).values.to(device)


@positions.register()
class Randomized(PositionEncoding):
    """RoPE at sorted random positions from 0..16L-1: in training, and in evaluation when given a generator."""

    #: a captured decode step cannot use it: its rotation is chosen on the host (random positions)
    static_positions = False

    def __init__(self, d_model: int, n_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__(d_model, n_heads, head_dim, max_len)
        self.max_position = RANGE_FACTOR * max_len
        self._sampled: torch.Tensor | None = None  # (B, T) positions of the current forward pass
        self._test_draws: torch.Generator | None = None

    @classmethod
    def problems(cls, spec):
        from .rope import Rope

        return Rope.problems(spec)

    def draw_at_test(self, generator: torch.Generator | None) -> None:
        """Draw evaluation positions from ``generator`` too (the paper's test protocol); None: 0..T-1 in evaluation."""
        self._test_draws = generator

    def embed(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """x: (B, T, D), returned unchanged; draws this forward pass's positions (training, or a test generator)."""
        drawing = self.training or self._test_draws is not None
        sample = drawing and offset == 0 and x.shape[1] <= self.max_position
        generator = None if self.training else self._test_draws
        self._sampled = (
            sorted_sample(x.shape[0], x.shape[1], self.max_position, x.device, generator) if sample else None
        )
        return x

    def rotate(
        self, q: torch.Tensor, k: torch.Tensor, q_offset: int = 0, k_offset: int = 0
    ) -> tuple[torch.Tensor, torch.Tensor]:
        pos = self._sampled
        if pos is None or pos.shape != (q.shape[0], q.shape[-2]) or k.shape[-2] != q.shape[-2]:
            return apply_rope(q, q_offset), apply_rope(k, k_offset)
        return apply_rope_at(q, pos), apply_rope_at(k, pos)
