"""Sequence mixers that replace attention in a residual block: each module registers one under its file name."""

from ._backends import fla_unavailable
from ._base import SequenceMixer, mixers

__all__ = ["SequenceMixer", "fla_unavailable", "mixers"]
