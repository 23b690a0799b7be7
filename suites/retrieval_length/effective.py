"""Effective length (Hsieh et al. 2024, RULER, arXiv 2404.06654), adapted to passkey accuracy.

RULER calls a model's effective length the longest tested length at which its score stays above a threshold, the
score Llama-2-7B reaches at 4K (85.6%). Here: the longest tested length up to which the accuracy (mean over needle
depths) is at least ``THRESHOLD`` at every tested length from L on, so a model that fails at 2L and recovers by
chance at 8L is not credited with 8L. The threshold is absolute, not a share of the model's own accuracy at L: a
model that retrieves 50% at L has no effective length, as in RULER, where a model below Llama-2-7B's 4K score at
4K has none. 0.8 sits just below RULER's 85.6%, leaves room for the draw noise of a few dozen sequences per depth
(sd about 0.07 at p = 0.8 for 32 draws) and lies far above chance (1e-5 for 5 random digits).
"""

from __future__ import annotations

from collections.abc import Mapping

#: the accuracy a length must keep for a model to count as retrieving there
THRESHOLD = 0.8


def effective_length(accuracy: Mapping[float, float], threshold: float = THRESHOLD) -> float:
    """The longest length L_k such that accuracy >= ``threshold`` at every tested length <= L_k; 0 when the shortest
    tested length already falls short (``accuracy``: length -> accuracy of one model)."""
    best = 0.0
    for length in sorted(accuracy):
        if accuracy[length] < threshold:
            break
        best = float(length)
    return best


def effective_text(length: float, train_len: int) -> str:
    """'256 (4L)' or 'below 0.8 at L' for a table cell."""
    if length <= 0:
        return f"below {THRESHOLD:g} at the shortest length"
    mult = length / train_len
    return f"{length:.0f} ({mult:g}L)"
