"""Uniform attention: every score 0, so the softmax weighs every unmasked key alike (Wiegreffe & Pinter 2019).

Wiegreffe & Pinter ("Attention is not not Explanation", arXiv 1908.04626, section 3.1) train a model whose
attention weights are frozen to the uniform distribution as the baseline any claim about learned attention must
beat: where uniform weights do as well, the task does not need attention, and its weights cannot explain much.
Here every score is 0 (the dot product times 0), and the context is the mean of the values over the keys the mask
keeps. It is declared no dot product, so only kernels that materialise the scores run it: PyTorch's SDPA on a CPU
returns NaN for a scale of 0 under a causal mask.
"""

from __future__ import annotations

from ._base import Scoring, scorings


@scorings.register()
class Uniform(Scoring):
    """Every score 0: uniform weights over the unmasked keys (Wiegreffe & Pinter 2019's baseline)."""

    dot_product = False

    def scale(self) -> float:
        return 0.0
