"""Fixed sinusoidal position vectors added to the embeddings (Vaswani et al. 2017, arXiv 1706.03762).

PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(p / 10000^(2i/d)). Every component is bounded
by 1 and PE(p + k) is a fixed linear map (a rotation per frequency) of PE(p), the property the paper
hoped would let the model attend by relative position and extrapolate. The table is built once per device
and dtype and grown on demand (variants/position/_tables.py), not rebuilt on the host at every forward.
"""

from __future__ import annotations

import math

import torch

from ._base import PositionEncoding, positions
from ._tables import table_rows


def sinusoid_table(length: int, d_model: int, offset: int = 0, base: float = 10000.0) -> torch.Tensor:
    """(length, d_model) table of interleaved sin/cos values for positions offset..offset+length-1."""
    pos = torch.arange(offset, offset + length, dtype=torch.float64).unsqueeze(1)  # (L, 1)
    inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(base) / d_model))
    angles = pos * inv_freq  # (L, ceil(d/2))
    table = torch.zeros(length, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angles)
    table[:, 1::2] = torch.cos(angles[:, : d_model // 2])
    return table.float()


@positions.register()
class Sinusoidal(PositionEncoding):
    """Sinusoidal vectors added to the token embeddings, computed for any length."""

    #: embed gathers the rows of a DevicePosition on the device (table_rows)
    static_positions = True

    def embed(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        d_model = self.d_model

        def build(capacity: int):
            return (sinusoid_table(capacity, d_model).to(device=x.device, dtype=x.dtype),)

        # one table per device and dtype, grown on demand; equal to sinusoid_table(T, d, offset) row for row
        (table,) = table_rows(("sinusoid", d_model, x.device, x.dtype), offset, x.shape[1], build)
        return x + table  # (B, T, D) + (T, D)
