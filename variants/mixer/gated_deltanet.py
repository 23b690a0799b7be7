"""Gated DeltaNet (Yang, Kautz & Hatamizadeh 2024, ICLR 2025, arXiv 2412.06464): the delta rule with Mamba-2's decay.

S_t = alpha_t (I - beta_t k_t k_t^T) S_{t-1} + beta_t k_t v_t^T (their eq. 10, S transposed): the gate alpha_t in
(0, 1) erases the whole state quickly when the context changes, the delta rule edits one key's value precisely.
alpha_t = exp(-exp(A_log) softplus(w_a . x_t + dt_bias)) per head as in Mamba-2; the output is RMS-normalised per
head and gated by SiLU(W_g x) before the output projection (section 3.3, Figure 1). Everything else as DeltaNet
(variants/mixer/deltanet.py): short convolutions and SiLU on q, k, v, L2-normalised q and k, the chunked form in
training (variants/mixer/_chunked.py), the state and convolution window in decoding.
"""

from __future__ import annotations

from ._base import mixers
from .deltanet import DeltaNet


@mixers.register()
class GatedDeltaNet(DeltaNet):
    """Gated DeltaNet (Yang, Kautz & Hatamizadeh 2024): the delta rule with a decaying gate and an output gate."""

    gated = True
