"""LayerNorm without its bias: centre, divide by the standard deviation, learned gain only (PaLM, arXiv 2204.02311).

Chowdhery et al. 2022 drop every bias, the norms' included, for training stability at scale; MPT (MosaicML 2023)
does the same, so a model with ALiBi and this norm is exactly Hugging Face's ``MptForCausalLM`` (bench/export/hf.py).
eps 1e-5, as LayerNorm's.
"""

from __future__ import annotations

from torch import nn

from ._base import norms


@norms.register()
class LayernormNobias(nn.LayerNorm):
    """(x - mean) / std * gain over the last dimension, no bias."""

    def __init__(self, d_model: int) -> None:
        super().__init__(d_model, bias=False)
