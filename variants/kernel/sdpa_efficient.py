"""SDPA pinned to its memory-efficient backend (Rabe & Staats 2021, arXiv 2112.05682; xFormers' CUTLASS kernel).

CUDA only: float32, float16 and bfloat16, with a float score bias. The backend has no ``enable_gqa`` (PyTorch
refuses grouped K/V there with "No available kernel"), so for grouped-query attention the kernel repeats
each key/value head for its group of query heads itself. Pinned with ``torch.nn.attention.sdpa_kernel``: an
input the backend cannot take raises, never falls back.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ._base import kernels
from .sdpa import Sdpa


@dataclass(frozen=True)
class SdpaEfficient(Sdpa):
    """SDPA's memory-efficient backend, pinned (CUDA)."""

    devices: tuple[str, ...] = ("cuda",)
    dtypes: tuple[torch.dtype, ...] = (torch.float32, torch.float16, torch.bfloat16)
    backend: str | None = "efficient"
    native_gqa: bool = False  # K/V repeated per group of query heads (Sdpa._inputs), not enable_gqa


kernels.add("sdpa_efficient", SdpaEfficient())
