"""The reference kernel: explicit scores, mask, softmax and weighted sum (Vaswani et al. 2017, eq. 1).

Materialises the (B, H, T, S) score matrix, so memory grows with T x S; every other kernel is checked
against this one. A query row with every key masked yields NaN here (softmax over -inf), where fused
kernels return zeros; causal self-attention never produces such a row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import torch

from ._base import AttentionKernel, causal_mask, kernels, repeat_kv


@dataclass(frozen=True)
class Naive(AttentionKernel):
    """Explicit q k^T, mask, softmax and weighted sum; the reference for every kernel."""

    def attend(self, q, k, v, *, causal: bool, bias: Optional[torch.Tensor] = None, scale: Optional[float] = None):
        k, v = repeat_kv(k, q.shape[1]), repeat_kv(v, q.shape[1])  # (B, H, S, Dh)
        scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
        scores = (q @ k.transpose(-2, -1)) * scale  # (B, H, T, S)
        if bias is not None:
            scores = scores + bias
        if causal:
            scores = scores.masked_fill(causal_mask(q.shape[-2], k.shape[-2], q.device), float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return weights @ v  # (B, H, T, Dh)


kernels.add("naive", Naive())
