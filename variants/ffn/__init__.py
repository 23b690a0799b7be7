"""Position-wise feed-forward layers: each module registers one under its file name."""

from ._base import FeedForward, ffns

__all__ = ["FeedForward", "ffns"]
