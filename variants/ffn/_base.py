"""The position-wise feed-forward protocol and its registry.

A feed-forward layer is a module built from (d_model, d_ff), mapping (..., d_model) to the same shape.
``d_ff`` is the hidden size of the two-matrix baseline (4 d_model by default); a gated layer with three
matrices shrinks its hidden size so that its parameter count matches (Shazeer 2020). ``FeedForward`` is
the two-matrix layer down(act(up(x))), GELU by default; subclasses change the activation or the shape.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from .._registry import Registry

ffns: Registry[type] = Registry("ffn", package="variants.ffn", list_command="bench list ffns")


class FeedForward(nn.Module):
    """Position-wise two-layer MLP: down(act(up(x))), GELU unless a subclass says otherwise."""

    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        self.up, self.down = nn.Linear(d_model, d_ff, bias=False), nn.Linear(d_ff, d_model, bias=False)

    def activation(self, h: torch.Tensor) -> torch.Tensor:
        return F.gelu(h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(self.activation(self.up(x)))  # (..., d_model)
