"""Single-token decode attention for grouped-query caches: four exact ways to read shared K/V.

At a decode step one query per head meets a cache of S keys/values with Hkv <= H heads (Ainslie et
al. 2023, GQA; Shazeer 2019, MQA). The step is memory-bound: the work is reading the cache once.
- ``repeat_decode`` copies each K/V head for its G = H / Hkv query heads, then runs MHA attention: it
  reads and writes G times the cache.
- ``sdpa_gqa_decode`` hands the grouped cache to SDPA with ``enable_gqa=True``.
- ``grouped_decode`` views the queries as (Hkv, G): each K/V head serves its G queries in one (G x Dh)
  by (Dh x S) matmul, so the cache is read once and nothing is copied.
- ``split_kv_decode`` (flash-decoding: Dao, Haziza, Massa & Sizov 2023, "Flash-Decoding for long-context
  inference") reads the cache grouped, as ``grouped_decode`` does, in chunks of ``chunk`` positions that
  are scored independently (each its own max, sum of exponentials and weighted values) and then merged by
  their log-sum-exp: at long contexts and small batches the chunks give a GPU work for all its cores
  where one softmax row per head would leave most idle.
All four compute the same softmax(q k^T * scale + bias) v; a single query at the last position sees
every cached key, so no causal mask is needed. ``GroupedDecode`` wraps any kernel so that a model's
single-token steps take the grouped path and everything else the wrapped kernel.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..score_bias import dense_bias
from ._base import AttentionKernel, repeat_kv


def _scale(q: torch.Tensor, scale: float | None) -> float:
    return 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale


def grouped_decode(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: torch.Tensor | None = None, scale: float | None = None
) -> torch.Tensor:
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
        scores = scores + _grouped_bias(bias, B, H, Hkv, S)
    weights = torch.softmax(scores, dim=-1)
    return (weights @ v).reshape(B, H, 1, D)  # (B, Hkv, G, Dh) -> (B, H, 1, Dh)


def _grouped_bias(bias: torch.Tensor | None, B: int, H: int, Hkv: int, S: int) -> torch.Tensor | None:
    """A bias broadcastable to (B, H, 1, S) as (B or 1, Hkv, G, S), grouped as the queries are."""
    if bias is None:
        return None
    full = torch.broadcast_to(bias, (B, H, 1, S) if bias.dim() == 4 else (H, 1, S))
    return full.reshape(*full.shape[:-3], Hkv, H // Hkv, S)


def split_kv_decode(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    bias: torch.Tensor | None = None,
    scale: float | None = None,
    chunk: int = 512,
) -> torch.Tensor:
    """q (B, H, 1, Dh), k/v (B, Hkv, S, Dh), bias broadcastable to (B, H, 1, S) -> (B, H, 1, Dh), the cache read
    in chunks of ``chunk`` positions whose partial softmaxes are merged exactly by their log-sum-exp."""
    B, H, T, D = q.shape
    Hkv, S = k.shape[1], k.shape[2]
    if T != 1:
        raise ValueError(f"split_kv_decode takes one query position per head, got {T}")
    G, n = H // Hkv, S // chunk
    qg = (q.reshape(B, Hkv, G, D) * _scale(q, scale)).unsqueeze(2)  # (B, Hkv, 1, G, Dh)
    grouped = _grouped_bias(bias, B, H, Hkv, S)  # (B or 1, Hkv, G, S) or None
    parts = []  # per piece: (max (B, Hkv, P, G, 1), sum of exp (B, Hkv, P, G, 1), weighted values (B, Hkv, P, G, Dh))
    # the whole chunks as views (B, Hkv, n, chunk, Dh) of the cache (nothing copied), then the remainder as one piece
    for start, pieces, size in ((0, n, chunk), (n * chunk, 1 if S % chunk else 0, S % chunk)):
        if not pieces:
            continue
        keys = k[:, :, start : start + pieces * size].unflatten(2, (pieces, size))
        values = v[:, :, start : start + pieces * size].unflatten(2, (pieces, size))
        scores = qg @ keys.transpose(-2, -1)  # (B, Hkv, P, G, size)
        if grouped is not None:
            scores = scores + grouped[..., start : start + pieces * size].unflatten(-1, (pieces, size)).transpose(
                -3, -2
            )
        top = scores.amax(dim=-1, keepdim=True)  # (B, Hkv, P, G, 1)
        weights = torch.exp(scores - top)
        parts.append((top, weights.sum(dim=-1, keepdim=True), weights @ values))
    top, total, weighted = (torch.cat(t, dim=2) for t in zip(*parts))  # P = every piece
    rescale = torch.exp(top - top.amax(dim=2, keepdim=True))  # each piece's exponentials against the global max
    out = (rescale * weighted).sum(dim=2) / (rescale * total).sum(dim=2)  # (B, Hkv, G, Dh)
    return out.reshape(B, H, 1, D)


def sdpa_gqa_decode(q, k, v, bias=None, scale=None) -> torch.Tensor:
    """SDPA on the grouped cache with ``enable_gqa=True`` (bias as a float attn_mask)."""
    mask = None if bias is None else bias.to(q.dtype)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale, enable_gqa=k.shape[1] != q.shape[1])


def repeat_decode(q, k, v, bias=None, scale=None) -> torch.Tensor:
    """Copy each K/V head for its group, then SDPA as multi-head attention."""
    mask = None if bias is None else bias.to(q.dtype)
    k, v = repeat_kv(k, q.shape[1]), repeat_kv(v, q.shape[1])  # (B, H, S, Dh)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)


DECODE_PATHS: dict[str, Callable[..., torch.Tensor]] = {
    "repeat": repeat_decode,
    "enable_gqa": sdpa_gqa_decode,
    "grouped": grouped_decode,
    "split_kv": split_kv_decode,
}


@dataclass(frozen=True)
class GroupedDecode(AttentionKernel):
    """A kernel whose single-query steps use ``grouped_decode`` (from ``split_from`` cached tokens on,
    ``split_kv_decode``) and whose other calls go to ``inner``."""

    inner: AttentionKernel | None = None
    #: cached tokens from which a step reads the cache in split-KV chunks; None: never
    split_from: int | None = None

    @property
    def name(self) -> str:
        return f"{self.inner.name}+grouped_decode"

    def attend(self, q, k, v, *, causal: bool, bias=None, scale: float | None = None, score_fn=None):
        # the last position sees every key, causal or not; a non-dot-product scoring (score_fn) has no
        # matmul to group, so it stays with the wrapped kernel
        if q.shape[-2] == 1 and score_fn is None:
            split = self.split_from is not None and k.shape[-2] >= self.split_from
            return (split_kv_decode if split else grouped_decode)(q, k, v, bias=dense_bias(bias), scale=scale)
        return self.inner.attend(q, k, v, causal=causal, bias=bias, scale=scale, score_fn=score_fn)


def use_grouped_decode(model: nn.Module, split_from: int | None = None) -> nn.Module:
    """Route the single-token steps of every attention layer of ``model`` through ``grouped_decode``, and from
    ``split_from`` cached tokens on (if given) through ``split_kv_decode``."""
    for module in model.modules():
        kernel = getattr(module, "kernel", None)
        if isinstance(kernel, AttentionKernel):
            inner = kernel.inner if isinstance(kernel, GroupedDecode) else kernel
            module.kernel = GroupedDecode(inner=inner, split_from=split_from)
    return model
