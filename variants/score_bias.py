"""An additive attention-score bias in the two forms kernels take, and the masks added to it.

The ground floor of attention: a position encoding builds a bias (variants/position/), a kernel takes it
(variants/kernel/), and attention adds key padding and a sliding window's cut to it (here), so none of them imports
another for the type. Each mask keeps the bias in both forms: a dense tensor, and a ``score_mod`` so FlexAttention
computes it inside the kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class ScoreBias:
    """An additive score bias offered two ways; each kernel takes the form it can use.

    ``dense()`` builds the (H, T, S) tensor (naive, SDPA); ``score_mod`` is the same bias as a FlexAttention
    function (score, b, h, q_idx, kv_idx) -> score, computed inside the kernel without an (H, T, S) tensor.
    """

    dense: Callable[[], torch.Tensor]
    score_mod: Callable | None = None


Bias = torch.Tensor | ScoreBias | None


def dense_bias(bias: Bias) -> torch.Tensor | None:
    """The tensor of a bias given as a tensor (broadcastable to (B, H, T, S)), a ScoreBias, or None."""
    return bias.dense() if isinstance(bias, ScoreBias) else bias


def padding_bias(key_padding: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """(B, S) True at padding -> (B, 1, 1, S) additive bias: -inf at padding, 0 elsewhere."""
    bias = torch.zeros(key_padding.shape, dtype=dtype, device=key_padding.device)
    return bias.masked_fill(key_padding, float("-inf"))[:, None, None, :]


def with_key_padding(bias: ScoreBias | None, key_padding: torch.Tensor, dtype: torch.dtype) -> ScoreBias:
    """A position's bias (or None) with padded keys masked: the dense (B, H, T, S) sum, and a score_mod when the
    position's bias has one (or there is none), so FlexAttention still computes it in the kernel."""
    pad = padding_bias(key_padding, dtype)  # (B, 1, 1, S)
    if bias is None:
        dense, inner = (lambda: pad), None
    else:
        dense, inner = (lambda: bias.dense() + pad), bias.score_mod
    if bias is not None and inner is None:
        return ScoreBias(dense)  # the position's bias exists as a tensor only
    row = pad[:, 0, 0, :]  # (B, S)

    def padded(score, b, h, q_idx, kv_idx):
        return (score if inner is None else inner(score, b, h, q_idx, kv_idx)) + row[b, kv_idx]

    return ScoreBias(dense, padded)


def window_mask(q_len: int, k_len: int, window: int, device) -> torch.Tensor:
    """(T, S) bool, True where query i (at key position S - T + i) must not see key j because j <= S - T + i - W:
    the sliding window's own cut (the causal mask cuts the keys after the query)."""
    i = torch.arange(q_len, device=device)[:, None]
    j = torch.arange(k_len, device=device)[None, :]
    return (k_len - q_len + i) - j >= window


def with_window(
    bias: ScoreBias | None, q_len: int, k_len: int, window: int, dtype: torch.dtype, device=None
) -> ScoreBias | None:
    """A position's bias (or None) with keys W or more positions before each query masked (-inf): the dense (1, T, S)
    sum, and a score_mod (so FlexAttention computes it in the kernel). Unchanged when no query sees more than W keys."""
    if k_len <= window:
        return bias
    offset = k_len - q_len

    def dense() -> torch.Tensor:
        cut = window_mask(q_len, k_len, window, device)
        mask = torch.zeros(cut.shape, dtype=dtype, device=device).masked_fill(cut, float("-inf"))[None]  # (1, T, S)
        inner = None if bias is None else bias.dense()
        return mask if inner is None else inner + mask

    inner_mod = None if bias is None else bias.score_mod

    def windowed(score, b, h, q_idx, kv_idx):
        score = score if inner_mod is None else inner_mod(score, b, h, q_idx, kv_idx)
        return torch.where(q_idx + offset - kv_idx >= window, float("-inf"), score)

    if bias is not None and inner_mod is None:
        return ScoreBias(dense)
    return ScoreBias(dense, windowed)
