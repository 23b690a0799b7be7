"""Scaled dot product q.k / sqrt(d): unit-variance scores for unit-variance q, k (Vaswani et al. 2017, arXiv 1706.03762).

If q and k have independent unit-variance components, q.k has variance d; dividing by sqrt(d) restores
unit variance, so the softmax does not saturate as d grows. The Transformer's default.
"""

from __future__ import annotations

from ._base import Scoring, scorings


@scorings.register()
class ScaledDot(Scoring):
    """q.k / sqrt(d)."""
