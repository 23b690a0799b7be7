"""Additive (Bahdanau) score v^T tanh(W q + U k), a one-hidden-layer MLP (Bahdanau et al. 2014, arXiv 1409.0473).

Not a dot product: the (..., T, S, dim) hidden activations exist for every query-key pair, so only
kernels that materialise the scores (``naive``) run it, at T x S x dim memory. W, U (dim x dim) and v
(dim) are learned; in a Transformer they are shared by the heads of a layer (2 d^2 + d parameters).
Vaswani et al. 2017 report it beats the unscaled dot product at large d.
"""

from __future__ import annotations

import torch
from torch import nn

from ._base import Scoring, scorings


@scorings.register()
class Additive(Scoring):
    """v^T tanh(W q + U k), learned W, U, v."""

    dot_product = False

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.w_query = nn.Linear(dim, dim, bias=False)
        self.w_key = nn.Linear(dim, dim, bias=False)
        self.v = nn.Linear(dim, 1, bias=False)

    def scale(self) -> float:
        return 1.0

    def prepare_keys(self, k: torch.Tensor) -> torch.Tensor:
        return self.w_key(k)  # U k: (..., S, dim)

    def score_prepared(self, q: torch.Tensor, prepared: torch.Tensor) -> torch.Tensor:
        hidden = torch.tanh(self.w_query(q).unsqueeze(-2) + prepared.unsqueeze(-3))  # (..., T, S, dim)
        return self.v(hidden).squeeze(-1)  # (..., T, S)
