"""Dynamic NTK: NTK-aware scaling with s = max(1, l/L) for the current length l (emozilla 2023; in Peng et al. 2023, arXiv 2309.00071, sec. 3.3).

The base is recomputed for every sequence, so lengths up to L are encoded exactly as in training. A
sequence's length is its last position + 1 (with a KV cache: cached + new tokens), so keys cached at a
shorter length keep the rotation of that length, as in the Hugging Face implementation (Peng et al. 3.3
advise caching keys before the rotation instead). Scored on windows of exactly the evaluation length, as
position_extrapolation scores them, it gives the same numbers as ``ntk`` at headroom 1 with
``rope_scale=auto``; that suite therefore counts the two as one measurement (its NTK-aware finding).
"""

from __future__ import annotations

from dataclasses import dataclass

from ._base import rope_scalings
from .ntk import NtkAware


@dataclass(frozen=True)
class DynamicNtk(NtkAware):
    """NTK-aware frequencies at s = max(1, sequence length / L)."""

    dynamic: bool = True


rope_scalings.add("dynamic_ntk", DynamicNtk())
