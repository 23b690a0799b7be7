"""ALiBi: a fixed, head-specific linear penalty on query-key distance (Press et al. 2022, arXiv 2108.12409).

No position vector is added anywhere; head h adds -m_h * (i - j) to the score of query i and key j,
after the 1/sqrt(d) scaling. The slopes m_h are fixed: for n heads, n a power of two, the geometric
sequence whose first term and ratio are 2^(-8/n); otherwise the slopes for the largest power of two
p below n followed by every other slope of the sequence for 2p, up to n values. A bias once built is kept
on its device for the next call of the same shape (up to CACHED_ELEMENTS elements in all).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ._base import PositionEncoding, positions
from ._tables import DevicePosition, Offset

#: most bias elements (H x T x S, over all cached shapes) an ALiBi encoding keeps built between calls
CACHED_ELEMENTS = 1 << 24


def _power_of_two_slopes(n: int) -> list[float]:
    start = 2.0 ** (-8.0 / n)
    return [start ** (i + 1) for i in range(n)]


def alibi_slopes(n_heads: int) -> list[float]:
    """The ALiBi slope of each head, exactly as in the paper's reference code."""
    if n_heads < 1:
        raise ValueError(f"ALiBi needs at least one head, got {n_heads}")
    if math.log2(n_heads).is_integer():
        return _power_of_two_slopes(n_heads)
    closest = 2 ** math.floor(math.log2(n_heads))
    extra = _power_of_two_slopes(2 * closest)[0::2][: n_heads - closest]
    return _power_of_two_slopes(closest) + extra


@positions.register()
class Alibi(PositionEncoding):
    """Linear distance penalties on attention scores, one fixed slope per head."""

    #: score_bias builds the bias of a DevicePosition on the device (a captured decode step)
    static_positions = True

    def __init__(self, d_model: int, n_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__(d_model, n_heads, head_dim, max_len)
        self.register_buffer("slopes", torch.tensor(alibi_slopes(n_heads)), persistent=False)
        #: biases already built, by (T, S, offset, dtype, slopes' dtype and device); a training step asks for
        #: the same one every time. Read-only for callers (every kernel adds it out of place).
        self._biases: dict[tuple, torch.Tensor] = {}

    def score_bias(self, q_len: int, k_len: int, q_offset: Offset, dtype: torch.dtype) -> torch.Tensor | None:
        if isinstance(q_offset, DevicePosition):  # a captured step: built on the device each replay, never cached
            distance = (q_offset.rows(q_len)[:, None] - torch.arange(k_len, device=self.slopes.device)).to(dtype)
            return -self.slopes.to(dtype)[:, None, None] * distance  # (H, T, S)
        key = (q_len, k_len, q_offset, dtype, self.slopes.dtype, self.slopes.device)
        bias = self._biases.get(key)
        if bias is None:
            # ordinary tensors even under inference mode, so one built in evaluation can serve training
            with torch.inference_mode(False), torch.no_grad():
                bias = self._build_bias(q_len, k_len, q_offset, dtype)
            if self.n_heads * q_len * k_len <= CACHED_ELEMENTS:  # long ones are rebuilt rather than held
                if sum(b.numel() for b in self._biases.values()) + bias.numel() > CACHED_ELEMENTS:
                    self._biases.clear()
                self._biases[key] = bias
        return bias

    def _build_bias(self, q_len: int, k_len: int, q_offset: int, dtype: torch.dtype) -> torch.Tensor:
        # query i sits at absolute position q_offset + i, key j at j: bias = -m * (i - j) for j <= i.
        # Keys after the query get a positive bias that the causal mask removes anyway.
        q_pos = torch.arange(q_offset, q_offset + q_len, device=self.slopes.device)
        k_pos = torch.arange(k_len, device=self.slopes.device)
        distance = (q_pos[:, None] - k_pos[None, :]).to(dtype)  # (T, S)
        return -self.slopes.to(dtype)[:, None, None] * distance  # (H, T, S)

    def score_mod(self, q_offset: int) -> Callable | None:
        slopes = self.slopes  # (H,)

        def alibi(score, b, h, q_idx, kv_idx):
            return score - slopes[h] * (q_idx + q_offset - kv_idx)

        return alibi

    def bidirectional_score_mod(self) -> Callable | None:
        slopes = self.slopes  # (H,)

        def alibi_bidirectional(score, b, h, q_idx, kv_idx):
            return score - slopes[h] * (q_idx - kv_idx).abs()  # the mirrored bias: -m |i - j|

        return alibi_bidirectional
