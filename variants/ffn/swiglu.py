"""SwiGLU feed-forward: down(SiLU(x W) * (x V)), a gated linear unit (Shazeer 2020, arXiv 2002.05202).

Three matrices instead of two, so the hidden size is round(2/3 d_ff): with d_ff = 4 d the parameter
count matches the two-matrix baseline (3 x d x 8d/3 = 2 x d x 4d) to within rounding, as in the paper
and LLaMA. The gate and value projections are one ``up`` matrix of 2 x hidden outputs.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from ._base import FeedForward, ffns


def swiglu_hidden(d_ff: int) -> int:
    """The hidden size whose three matrices match two of size d_ff: round(2/3 d_ff)."""
    return max(1, round(2 * d_ff / 3))


@ffns.register()
class SwiGLU(FeedForward):
    """down(SiLU(x W) * x V), hidden size round(2/3 d_ff)."""

    def __init__(self, d_model: int, d_ff: int) -> None:
        nn.Module.__init__(self)
        self.hidden = swiglu_hidden(d_ff)
        self.up = nn.Linear(d_model, 2 * self.hidden, bias=False)  # gate and value, (d_model -> 2 hidden)
        self.down = nn.Linear(self.hidden, d_model, bias=False)

    def activation(self, h: torch.Tensor) -> torch.Tensor:
        gate, value = h.chunk(2, dim=-1)  # each (..., hidden)
        return F.silu(gate) * value
