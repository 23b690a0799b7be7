"""A learned table of absolute position vectors added to the embeddings (Gehring et al. 2017; GPT).

Vaswani et al. 2017 (Table 3, row E) found learned positions "nearly identical" to sinusoidal ones at
the training length. The table has one row per trained position, so it cannot represent longer
sequences: asking for more positions is reported, never clipped.
"""

from __future__ import annotations

import torch
from torch import nn

from ._base import PositionEncoding, positions
from ._tables import DevicePosition, Offset


@positions.register()
class Learned(PositionEncoding):
    """Learned absolute position vectors; no positions beyond the training length."""

    #: embed gathers the rows of a DevicePosition on the device (a captured decode step)
    static_positions = True

    def __init__(self, d_model: int, n_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__(d_model, n_heads, head_dim, max_len)
        self.max_positions = max_len
        self.table = nn.Embedding(max_len, d_model)
        nn.init.normal_(self.table.weight, std=d_model**-0.5)  # as fairseq's learned positions

    def embed(self, x: torch.Tensor, offset: Offset = 0) -> torch.Tensor:
        if isinstance(offset, DevicePosition):  # a captured step: its capacity bounds every position it reaches
            problem = self.length_problem(offset.capacity)
            idx = offset.rows(x.shape[1])
        else:
            problem = self.length_problem(offset + x.shape[1])
            idx = torch.arange(offset, offset + x.shape[1], device=x.device)
        if problem:
            raise ValueError(problem)
        return x + self.table(idx)  # (B, T, D) + (T, D)
