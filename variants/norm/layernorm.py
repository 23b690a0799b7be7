"""LayerNorm: subtract the mean, divide by the standard deviation, learned gain and bias (Ba et al. 2016, arXiv 1607.06450).

The Transformer's norm (Vaswani et al. 2017): normalises each position's d_model features, eps 1e-5.
"""

from __future__ import annotations

from torch import nn

from ._base import norms


@norms.register()
class LayerNorm(nn.LayerNorm):
    """(x - mean) / std * gain + bias over the last dimension."""

    def __init__(self, d_model: int) -> None:
        super().__init__(d_model)
