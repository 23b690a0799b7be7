"""Uniform attention: every score 0, so the softmax weighs every unmasked key alike (Wiegreffe & Pinter 2019).

Wiegreffe & Pinter ("Attention is not not Explanation", arXiv 1908.04626, section 3.1) train a model whose
attention weights are frozen to the uniform distribution as the baseline any claim about learned attention must
beat: where uniform weights do as well, the task does not need attention, and its weights cannot explain much.
Here it is the dot product at scale 0: (q . k) x 0 = 0 for every pair, so every kernel (fused or not) computes it,
and the context is the mean of the values over the keys the mask keeps.
"""

from __future__ import annotations

from ._base import Scoring, scorings


@scorings.register()
class Uniform(Scoring):
    """Every score 0: uniform weights over the unmasked keys (Wiegreffe & Pinter 2019's baseline)."""

    def scale(self) -> float:
        return 0.0
