"""The reference kernel: explicit scores, mask, softmax and weighted sum (Vaswani et al. 2017, eq. 1).

Materialises the (B, H, T, S) score matrix, so memory grows with T x S; every other kernel is checked
against this one. Because the scores exist as a tensor it runs any scoring, additive included. A query
row with every key masked yields NaN here (softmax over -inf), where fused kernels return zeros; causal
self-attention never produces such a row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ._base import AttentionKernel, causal_mask, dense_bias, kernels, repeat_kv


@dataclass(frozen=True)
class Naive(AttentionKernel):
    """Explicit q k^T, mask, softmax and weighted sum; the reference for every kernel."""

    any_scoring: bool = True

    def attend(self, q, k, v, *, causal: bool, bias=None, scale=None, score_fn=None):
        k, v = repeat_kv(k, q.shape[1]), repeat_kv(v, q.shape[1])  # (B, H, S, Dh)
        if score_fn is None:
            scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
            scores = (q @ k.transpose(-2, -1)) * scale  # (B, H, T, S)
        else:
            scores = score_fn(q, k)  # (B, H, T, S)
        bias = dense_bias(bias)
        if bias is not None:
            scores = scores + bias
        if causal:
            scores = scores.masked_fill(causal_mask(q.shape[-2], k.shape[-2], q.device), float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return weights @ v  # (B, H, T, Dh)


kernels.add("naive", Naive())
