"""Single-token decode attention for grouped-query caches: three exact ways to read shared K/V.

At a decode step one query per head meets a cache of S keys/values with Hkv <= H heads (Ainslie et
al. 2023, GQA; Shazeer 2019, MQA). The step is memory-bound: the work is reading the cache once.
- ``repeat_decode`` copies each K/V head for its G = H / Hkv query heads, then runs MHA attention: it
  reads and writes G times the cache.
- ``sdpa_gqa_decode`` hands the grouped cache to SDPA with ``enable_gqa=True``.
- ``grouped_decode`` views the queries as (Hkv, G): each K/V head serves its G queries in one (G x Dh)
  by (Dh x S) matmul, so the cache is read once and nothing is copied.
All three compute the same softmax(q k^T * scale + bias) v; a single query at the last position sees
every cached key, so no causal mask is needed. ``GroupedDecode`` wraps any kernel so that a model's
single-token steps take the grouped path and everything else the wrapped kernel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Dict, Optional

import torch
import torch.nn.functional as F
from torch import nn

from ._base import AttentionKernel, dense_bias, repeat_kv


def _scale(q: torch.Tensor, scale: Optional[float]) -> float:
    return 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale


def grouped_decode(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: Optional[torch.Tensor] = None,
                   scale: Optional[float] = None) -> torch.Tensor:
    """q (B, H, 1, Dh), k/v (B, Hkv, S, Dh), bias broadcastable to (B, H, 1, S) -> (B, H, 1, Dh)."""
    B, H, T, D = q.shape
    Hkv, S = k.shape[1], k.shape[2]
    if T != 1:
        raise ValueError(f"grouped_decode takes one query position per head, got {T}")
    G = H // Hkv
    # query head h belongs to K/V head h // G, as in repeat_kv's repeat_interleave
    qg = q.reshape(B, Hkv, G, D) * _scale(q, scale)  # (B, Hkv, G, Dh)
    scores = qg @ k.transpose(-2, -1)  # (B, Hkv, G, S): one matmul per K/V head for its whole group
    if bias is not None:  # (H, 1, S) or (B, H, 1, S) -> the same grouping as the queries
        full = torch.broadcast_to(bias, (B, H, 1, S) if bias.dim() == 4 else (H, 1, S))
        scores = scores + full.reshape(*full.shape[:-3], Hkv, G, S)
    weights = torch.softmax(scores, dim=-1)
    return (weights @ v).reshape(B, H, 1, D)  # (B, Hkv, G, Dh) -> (B, H, 1, Dh)


def sdpa_gqa_decode(q, k, v, bias=None, scale=None) -> torch.Tensor:
    """SDPA on the grouped cache with ``enable_gqa=True`` (bias as a float attn_mask)."""
    mask = None if bias is None else bias.to(q.dtype)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale, enable_gqa=k.shape[1] != q.shape[1])


def repeat_decode(q, k, v, bias=None, scale=None) -> torch.Tensor:
    """Copy each K/V head for its group, then SDPA as multi-head attention."""
    mask = None if bias is None else bias.to(q.dtype)
    k, v = repeat_kv(k, q.shape[1]), repeat_kv(v, q.shape[1])  # (B, H, S, Dh)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)


DECODE_PATHS: Dict[str, Callable[..., torch.Tensor]] = {
    "repeat": repeat_decode,
    "enable_gqa": sdpa_gqa_decode,
    "grouped": grouped_decode,
}


@dataclass(frozen=True)
class GroupedDecode(AttentionKernel):
    """A kernel whose single-query steps use ``grouped_decode`` and whose other calls go to ``inner``."""

    inner: Optional[AttentionKernel] = None

    @property
    def name(self) -> str:
        return f"{self.inner.name}+grouped_decode"

    def attend(self, q, k, v, *, causal: bool, bias=None, scale: Optional[float] = None, score_fn=None):
        # the last position sees every key, causal or not; a non-dot-product scoring (score_fn) has no
        # matmul to group, so it stays with the wrapped kernel
        if q.shape[-2] == 1 and score_fn is None:
            return grouped_decode(q, k, v, bias=dense_bias(bias), scale=scale)
        return self.inner.attend(q, k, v, causal=causal, bias=bias, scale=scale, score_fn=score_fn)


def use_grouped_decode(model: nn.Module) -> nn.Module:
    """Route the single-token steps of every attention layer of ``model`` through ``grouped_decode``."""
    for module in model.modules():
        kernel = getattr(module, "kernel", None)
        if isinstance(kernel, AttentionKernel) and not isinstance(kernel, GroupedDecode):
            module.kernel = GroupedDecode(inner=kernel)
    return model
