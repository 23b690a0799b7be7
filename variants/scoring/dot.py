"""Unscaled dot product q.k (Luong et al. 2015 "dot", arXiv 1508.04025; the ablation of Vaswani et al. 2017, 3.2.1).

Without the 1/sqrt(d) factor the score variance grows with d, pushing the softmax toward one-hot
weights with small gradients; Vaswani et al. report that additive attention beats it at large d.
"""

from __future__ import annotations

from ._base import Scoring, scorings


@scorings.register()
class Dot(Scoring):
    """q.k, no scaling."""

    def scale(self) -> float:
        return 1.0
