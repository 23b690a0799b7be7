"""PyTorch's fused ``scaled_dot_product_attention`` (torch.nn.functional), any backend it picks.

On CPU it dispatches to a fused flash-style kernel (memory linear in sequence length) or to the math
path; on CUDA to FlashAttention-2, memory-efficient, cuDNN or math. ALiBi reaches it as a float score
bias (attn_mask), which the fused CPU kernel accepts; grouped-query attention uses ``enable_gqa``.
A pure causal mask with T == S is passed as ``is_causal=True`` so the kernel can skip masked blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn.functional as F

from ._base import AttentionKernel, causal_mask, kernels


@dataclass(frozen=True)
class Sdpa(AttentionKernel):
    """torch.nn.functional.scaled_dot_product_attention; ALiBi as a float attn_mask."""

    native_gqa: bool = True

    def attend(self, q, k, v, *, causal: bool, bias: Optional[torch.Tensor] = None, scale: Optional[float] = None):
        gqa = k.shape[1] != q.shape[1]
        q_len, k_len = q.shape[-2], k.shape[-2]
        if bias is None and (not causal or q_len == k_len):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale, enable_gqa=gqa)
        mask = torch.zeros(q_len, k_len, dtype=q.dtype, device=q.device) if bias is None else bias.to(q.dtype)
        if causal:
            mask = mask.masked_fill(causal_mask(q_len, k_len, q.device), float("-inf"))
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale, enable_gqa=gqa)


kernels.add("sdpa", Sdpa())
