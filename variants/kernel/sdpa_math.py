"""SDPA pinned to its math backend: softmax(q k^T / sqrt(d)) v in plain ATen ops (Vaswani et al. 2017).

Pinned with ``torch.nn.attention.sdpa_kernel``, so it never silently becomes another backend. It
materialises the scores like ``naive`` and accepts every dtype, score bias and grouped-query layout.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._base import kernels
from .sdpa import Sdpa


@dataclass(frozen=True)
class SdpaMath(Sdpa):
    """SDPA's math backend, pinned."""

    backend: str | None = "math"
    #: the math path computes softmax(q k^T) v in plain ATen ops, scores first: unfused by design
    materialises_scores: bool = True


kernels.add("sdpa_math", SdpaMath())
