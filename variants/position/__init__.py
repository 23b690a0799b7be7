"""Position encodings: each module registers one under its file name."""

from ._base import PositionEncoding, adds_score_bias, positions

__all__ = ["PositionEncoding", "adds_score_bias", "positions"]
