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

from ..score_bias import dense_bias
from ._base import AttentionKernel, causal_mask, kernels, repeat_kv


@dataclass(frozen=True)
class Naive(AttentionKernel):
    """Explicit q k^T, mask, softmax and weighted sum; the reference for every kernel."""

    any_scoring: bool = True
    materialises_scores: bool = True

    def attend(self, q, k, v, *, causal: bool, bias=None, scale=None, score_fn=None):
        v = repeat_kv(v, q.shape[1])  # (B, H, S, Dh)
        # the scores stay alive through the value product, so the peak holds both (B, H, T, S) tensors
        scores, weights = self._scores_and_weights(q, k, causal, bias, scale, score_fn)
        return weights @ v  # (B, H, T, Dh)

    def weights(self, q, k, *, causal: bool, bias=None, scale=None, score_fn=None):
        """The attention probabilities softmax(score(q, k) + bias, causal), (B, H, T, S); each row sums to 1.

        What ``attend`` multiplies the values by, for suites that read what heads attend to (attention_heads).
        """
        return self._scores_and_weights(q, k, causal, bias, scale, score_fn)[1]

    def _scores_and_weights(self, q, k, causal, bias, scale, score_fn):
        """(masked scores, softmax of them), each (B, H, T, S)."""
        k = repeat_kv(k, q.shape[1])  # (B, H, S, Dh)
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
        return scores, torch.softmax(scores, dim=-1)


kernels.add("naive", Naive())
