"""SDPA pinned to its cuDNN backend: NVIDIA's fused flash-style attention (cuDNN 9; after Dao 2023, arXiv 2307.08691).

CUDA only (compute capability 8.0 or newer), float16 and bfloat16, with a score bias and grouped-query
attention. Its backward pass returns no gradient for the bias (torch 2.13), so it cannot train a learned one. Pinned with ``torch.nn.attention.sdpa_kernel``: an input the backend cannot take raises.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ._base import kernels
from .sdpa import Sdpa


@dataclass(frozen=True)
class SdpaCudnn(Sdpa):
    """SDPA's cuDNN backend, pinned (CUDA)."""

    devices: tuple[str, ...] = ("cuda",)
    dtypes: tuple[torch.dtype, ...] = (torch.float16, torch.bfloat16)
    backend: str | None = "cudnn"

    def trains_score_bias_on(self, device: str) -> bool:
        return False  # aten._scaled_dot_product_cudnn_attention_backward returns grad_q, grad_k, grad_v only

    def missing(self) -> str | None:
        if torch.version.cuda is None:
            return "this PyTorch build has no CUDA, so no cuDNN attention"
        if not torch.backends.cudnn.is_available():
            return "cuDNN is not available to this PyTorch build"
        return None


kernels.add("sdpa_cudnn", SdpaCudnn())
