"""Luong "general" bilinear score q^T W k with a learned d x d matrix W (Luong et al. 2015, arXiv 1508.04025).

Computed as (q W) . k, a transform of the query alone, so every dot-product kernel runs it and cached
keys stay untouched; unscaled, as in the paper. W starts as the identity, so the scoring starts equal
to ``dot`` and learns from there; in a Transformer head it adds d^2 parameters per layer (one W shared
by the heads).
"""

from __future__ import annotations

import torch
from torch import nn

from ._base import Scoring, scorings


@scorings.register()
class General(Scoring):
    """q^T W k, W learned (d x d), unscaled."""

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.weight = nn.Parameter(torch.eye(dim))  # (dim, dim)

    def scale(self) -> float:
        return 1.0

    def query(self, q: torch.Tensor) -> torch.Tensor:
        return q @ self.weight  # (..., T, dim)
