"""T5 relative position buckets: a learned scalar per head and bucket added to the scores (Raffel et al. 2020, arXiv 1910.10683).

The offset between key and query is put in one of 32 buckets: half of them exact for small offsets, the
rest log-spaced up to a maximum distance, every larger offset in the last bucket. Causal attention (the
decoder) spends all buckets on keys at or before the query; bidirectional attention (the encoder) splits
them by the sign of the offset and has a table of its own, as T5's encoder and decoder do. One table per
stack is shared by all its layers, as in T5; the bias is added after the 1/sqrt(d) scaling and starts at
zero. T5's maximum distance is 128 with training sequences of 512, so every bucket is trained; here it is
128 or the training length if shorter (but at least 32, so the log-spaced buckets have a range), which
keeps that property for short training lengths.
Press et al. 2022 (Table: 19.65 at L, 22.91 at ~7L) find it extrapolates nearly as well as ALiBi.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn

from ._base import PositionEncoding, positions

NUM_BUCKETS, MAX_DISTANCE = 32, 128


def relative_bucket(
    relative: torch.Tensor, bidirectional: bool, num_buckets: int = NUM_BUCKETS, max_distance: int = MAX_DISTANCE
) -> torch.Tensor:
    """Bucket index of each offset ``relative`` = key position - query position (any shape, integer), as in T5."""
    buckets = torch.zeros_like(relative)
    if bidirectional:
        num_buckets //= 2
        buckets = buckets + (relative > 0).to(relative.dtype) * num_buckets  # keys after the query: upper half
        distance = relative.abs()
    else:
        distance = (-relative).clamp(min=0)  # keys after the query share bucket 0 (the causal mask hides them)
    max_exact = num_buckets // 2
    # log-spaced from max_exact to max_distance over the other half; clamp(min=1) only avoids log(0) where unused
    log_ratio = torch.log(distance.clamp(min=1).float() / max_exact) / math.log(max_distance / max_exact)
    large = (max_exact + (log_ratio * (num_buckets - max_exact)).to(relative.dtype)).clamp(max=num_buckets - 1)
    return buckets + torch.where(distance < max_exact, distance, large)


@positions.register()
class T5Bias(PositionEncoding):
    """T5's learned bucketed relative bias, one scalar per head and bucket."""

    #: a captured decode step cannot use it: its relative-position buckets are computed on the host
    static_positions = False

    learned_bias = True

    def __init__(self, d_model: int, n_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__(d_model, n_heads, head_dim, max_len)
        # the log-spaced buckets need max_distance > the exact ones (16 causal): at least NUM_BUCKETS
        self.max_distance = max(min(MAX_DISTANCE, max_len), NUM_BUCKETS)
        self.causal_table = nn.Parameter(torch.zeros(n_heads, NUM_BUCKETS))  # (H, buckets)
        self.bidirectional_table: nn.Parameter | None = None

    def enable_bidirectional(self) -> None:
        if self.bidirectional_table is None:
            self.bidirectional_table = nn.Parameter(torch.zeros(self.n_heads, NUM_BUCKETS))  # (H, buckets)

    def _bias(
        self, table: torch.Tensor, q_len: int, k_len: int, q_offset: int, bidirectional: bool, dtype
    ) -> torch.Tensor:
        q_pos = torch.arange(q_offset, q_offset + q_len, device=table.device)
        k_pos = torch.arange(k_len, device=table.device)
        buckets = relative_bucket(
            k_pos[None, :] - q_pos[:, None], bidirectional, NUM_BUCKETS, self.max_distance
        )  # (T, S)
        return table[:, buckets].to(dtype)  # (H, T, S)

    def score_bias(self, q_len: int, k_len: int, q_offset: int, dtype: torch.dtype) -> torch.Tensor | None:
        return self._bias(self.causal_table, q_len, k_len, q_offset, False, dtype)

    def bidirectional_bias(self, q_len: int, k_len: int, dtype: torch.dtype) -> torch.Tensor | None:
        if self.bidirectional_table is None:
            raise RuntimeError("T5Bias serves bidirectional attention only after enable_bidirectional()")
        return self._bias(self.bidirectional_table, q_len, k_len, 0, True, dtype)

    def score_mod(self, q_offset: int) -> Callable | None:
        table, max_distance = self.causal_table, self.max_distance  # (H, buckets)

        def t5_bias(score, b, h, q_idx, kv_idx):
            return score + table[h, relative_bucket(kv_idx - q_idx - q_offset, False, NUM_BUCKETS, max_distance)]

        return t5_bias

    def bidirectional_score_mod(self) -> Callable | None:
        if self.bidirectional_table is None:
            return None
        table, max_distance = self.bidirectional_table, self.max_distance  # (H, buckets)

        def t5_bidirectional(score, b, h, q_idx, kv_idx):
            return score + table[h, relative_bucket(kv_idx - q_idx, True, NUM_BUCKETS, max_distance)]

        return t5_bidirectional
