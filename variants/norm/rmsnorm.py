"""RMSNorm: divide by the root mean square, learned gain, no centring or bias (Zhang & Sennrich 2019, arXiv 1910.07467).

Drops LayerNorm's mean subtraction and bias (half the parameters, less computation); the norm of
LLaMA and T5. eps 1e-6.
"""

from __future__ import annotations

import torch
from torch import nn

from ._base import norms


@norms.register()
class RmsNorm(nn.Module):
    """x / rms(x) * gain over the last dimension."""

    def __init__(self, d_model: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d_model))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
