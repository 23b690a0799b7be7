"""GELU feed-forward: down(GELU(up(x))) (Hendrycks & Gimpel 2016, arXiv 1606.08415; BERT, GPT-2).

The exact (erf) GELU, x * Phi(x): a smooth ReLU that weighs inputs by their Gaussian CDF. The default.
"""

from __future__ import annotations

from ._base import FeedForward, ffns


@ffns.register()
class Gelu(FeedForward):
    """down(GELU(up(x))), hidden size d_ff."""
