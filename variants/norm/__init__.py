"""Normalisation layers: each module registers one under its file name."""

from ._base import Placement, norms, placements

__all__ = ["Placement", "norms", "placements"]
