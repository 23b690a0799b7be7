"""ReLU feed-forward: down(max(0, up(x))), the original Transformer's FFN (Vaswani et al. 2017, arXiv 1706.03762)."""

from __future__ import annotations

import torch
from torch.nn import functional as F

from ._base import FeedForward, ffns


@ffns.register()
class Relu(FeedForward):
    """down(ReLU(up(x))), hidden size d_ff."""

    def activation(self, h: torch.Tensor) -> torch.Tensor:
        return F.relu(h)
