"""Sequence mixers that replace attention in a residual block: each module registers one under its file name."""

from ._base import SequenceMixer, mixers

__all__ = ["SequenceMixer", "mixers"]
