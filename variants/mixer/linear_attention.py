"""Causal linear attention (Katharopoulos et al. 2020, arXiv 2006.16236): softmax replaced by phi(q).phi(k), an RNN.

With the feature map phi(x) = elu(x) + 1 (their eq. 7), head by head,
y_i = phi(q_i)^T S_i / (phi(q_i)^T z_i), S_i = sum_{j <= i} phi(k_j) v_j^T (d_h x d_h), z_i = sum_{j <= i} phi(k_j).
Training computes every position at once, the causal matrix phi(Q) phi(K)^T masked and normalised by its row
sums (their eq. 4-6, the parallel form; O(T^2 d) work like softmax attention but no softmax); decoding carries
(S, z) from token to token (eq. 18-20), a state of H (d_h^2 + d_h) numbers whatever the context length. No
position encoding: the causal mask is the only source of order, as in the paper's formulation.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from ._base import SequenceMixer, mixers

#: added to the normaliser phi(q)^T z, which is positive (phi > 0), against division by a tiny sum
EPS = 1e-6


def feature_map(x: torch.Tensor) -> torch.Tensor:
    """phi(x) = elu(x) + 1 > 0 (Katharopoulos et al. 2020, eq. 7)."""
    return F.elu(x) + 1


@mixers.register()
class LinearAttention(SequenceMixer):
    """Causal linear attention, elu+1 features: a masked parallel form in training, a d_h x d_h state per head in decoding."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__(d_model, n_heads)
        self.head_dim = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)

    @classmethod
    def problems(cls, d_model: int, n_heads: int, **options) -> list:
        heads = (
            []
            if n_heads >= 1 and d_model % n_heads == 0
            else [f"d_model {d_model} is not divisible by n_heads {n_heads}"]
        )
        return heads + super().problems(d_model, n_heads, **options)

    def _heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """x (..., d) -> phi(q), phi(k), v, each (..., H, d_h)."""
        q, k, v = self.qkv(x).unflatten(-1, (3, self.n_heads, self.head_dim)).unbind(-3)
        return feature_map(q), feature_map(k), v

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape
        q, k, v = (t.transpose(1, 2) for t in self._heads(x))  # (B, H, T, d_h)
        scores = q @ k.transpose(-1, -2)  # (B, H, T, T), all positive
        scores = scores.masked_fill(~torch.ones(T, T, dtype=torch.bool, device=x.device).tril(), 0.0)
        y = (scores @ v) / (scores.sum(-1, keepdim=True) + EPS)  # (B, H, T, d_h)
        return self.out_proj(y.transpose(1, 2).reshape(B, T, self.d_model))

    def initial_state(self, batch: int, device=None, dtype=None) -> tuple[torch.Tensor, torch.Tensor]:
        S = torch.zeros(batch, self.n_heads, self.head_dim, self.head_dim, device=device, dtype=dtype)
        z = torch.zeros(batch, self.n_heads, self.head_dim, device=device, dtype=dtype)
        return S, z

    def step(self, x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]):
        S, z = state
        q, k, v = self._heads(x)  # (B, H, d_h)
        S = S + k.unsqueeze(-1) * v.unsqueeze(-2)  # (B, H, d_h, d_h): S_i = S_{i-1} + phi(k_i) v_i^T
        z = z + k
        num = (q.unsqueeze(-1) * S).sum(-2)  # phi(q)^T S: (B, H, d_h)
        den = (q * z).sum(-1, keepdim=True) + EPS  # (B, H, 1)
        return self.out_proj((num / den).reshape(x.shape[0], self.d_model)), (S, z)

    def state_numel(self, context: int = 0) -> int:
        return self.n_heads * (self.head_dim**2 + self.head_dim)
