"""SDPA pinned to its flash backend: tiled exact attention, memory linear in length (Dao et al. 2022, arXiv 2205.14135).

On CPU this is PyTorch's fused flash-style kernel (any float dtype, float score bias given 4-D, native
grouped-query attention); it refuses a bias that requires gradients, so it cannot train a learned bias (T5). On CUDA it is FlashAttention-2 (Dao 2023, arXiv 2307.08691): float16 and
bfloat16 only, no score bias, and a causal mask only when queries and keys have the same length.
Pinned with ``torch.nn.attention.sdpa_kernel``: an input the backend cannot take raises, never falls back.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ._base import kernels
from .sdpa import Sdpa


@dataclass(frozen=True)
class SdpaFlash(Sdpa):
    """SDPA's flash backend, pinned."""

    backend: str | None = "flash"

    def dtypes_on(self, device: str) -> tuple[torch.dtype, ...]:
        return (torch.float16, torch.bfloat16) if device == "cuda" else self.dtypes

    def takes_score_bias_on(self, device: str) -> bool:
        return device != "cuda"

    def trains_score_bias_on(self, device: str) -> bool:
        return False  # CPU: "No available kernel" for an attn_mask that requires grad (torch 2.13)


kernels.add("sdpa_flash", SdpaFlash())
