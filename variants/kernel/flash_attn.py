"""FlashAttention-2 from the flash-attn package (Dao 2023, arXiv 2307.08691): CUDA only, float16/bfloat16.

Exact attention tiled through on-chip memory, never materialising the (T, S) scores. Keys and values
may have fewer heads than queries (native grouped-query attention); a causal mask with fewer queries
than keys is aligned to the last key, as a KV cache needs. It takes no additive score bias here. The
package is imported on first use, so listing kernels works without it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

import torch

from ._base import AttentionKernel, kernels


@dataclass(frozen=True)
class FlashAttn(AttentionKernel):
    """flash_attn.flash_attn_func (FlashAttention-2), CUDA only."""

    devices: tuple[str, ...] = ("cuda",)
    dtypes: tuple[torch.dtype, ...] = (torch.float16, torch.bfloat16)
    takes_score_bias: bool = False
    native_gqa: bool = True

    def missing(self) -> str | None:
        if importlib.util.find_spec("flash_attn") is None:
            return "the flash-attn package is not installed (pip install flash-attn, which builds against CUDA)"
        return None

    def attend(self, q, k, v, *, causal: bool, bias=None, scale: float | None = None, score_fn=None):
        self._reject_score_fn(score_fn)
        if bias is not None:
            raise ValueError("kernel 'flash_attn' takes no score bias")
        from flash_attn import flash_attn_func

        # flash-attn wants (B, T, H, Dh)
        out = flash_attn_func(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), softmax_scale=scale, causal=causal
        )
        return out.transpose(1, 2)


kernels.add("flash_attn", FlashAttn())
