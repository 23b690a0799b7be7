"""PyTorch's scaled_dot_product_attention, backend chosen by PyTorch and recorded (Vaswani et al. 2017; Dao et al. 2022).

On CPU it dispatches to a fused flash-style kernel (memory linear in sequence length) or to the math
path; on CUDA to cuDNN, FlashAttention-2, memory-efficient or math. Which one ran is not visible in the
output, so ``dispatch`` asks PyTorch's own chooser and the suites record the answer; the ``sdpa_math``,
``sdpa_flash``, ``sdpa_efficient`` and ``sdpa_cudnn`` kernels pin one backend and fail rather than fall
back. ALiBi reaches SDPA as a float score bias (attn_mask, given 4-D, the shape the fused CPU kernel
accepts; a 3-D mask silently sends it to the math path); grouped-query attention uses ``enable_gqa``.
A pure causal mask with T == S is passed as ``is_causal=True`` so the kernel can skip masked blocks.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F

from ..score_bias import dense_bias
from ._base import AttentionKernel, causal_mask, kernels, repeat_kv

#: names of torch.nn.attention.SDPBackend members, keyed by the word used in kernel names and records
BACKENDS = {"math": "MATH", "flash": "FLASH_ATTENTION", "efficient": "EFFICIENT_ATTENTION", "cudnn": "CUDNN_ATTENTION"}
_BY_VALUE = {0: "math", 1: "flash", 2: "efficient", 3: "cudnn"}


@dataclass(frozen=True)
class Sdpa(AttentionKernel):
    """torch.nn.functional.scaled_dot_product_attention, backend chosen by PyTorch and recorded."""

    native_gqa: bool = True
    #: a key of BACKENDS to pin, or None to let PyTorch choose
    backend: str | None = None

    def _inputs(self, q, k, v, causal: bool, bias) -> tuple[torch.Tensor, torch.Tensor, dict[str, Any]]:
        """(k, v, keyword arguments of F.scaled_dot_product_attention) for one call."""
        q_len, k_len = q.shape[-2], k.shape[-2]
        gqa = k.shape[1] != q.shape[1]
        if gqa and not self.native_gqa:
            k, v, gqa = repeat_kv(k, q.shape[1]), repeat_kv(v, q.shape[1]), False
        causal = causal and q_len > 1  # a single last query sees every key: nothing to mask
        bias = dense_bias(bias)
        if bias is None and (not causal or q_len == k_len):
            return k, v, dict(is_causal=causal, enable_gqa=gqa)
        mask = torch.zeros(q_len, k_len, dtype=q.dtype, device=q.device) if bias is None else bias.to(q.dtype)
        if causal:
            mask = mask.masked_fill(causal_mask(q_len, k_len, q.device), float("-inf"))
        if mask.dim() == 3:  # (H, T, S) -> (1, H, T, S)
            mask = mask.unsqueeze(0)
        return k, v, dict(attn_mask=mask, enable_gqa=gqa)

    def _pinned(self):
        if self.backend is None:
            return contextlib.nullcontext()
        from torch.nn.attention import SDPBackend, sdpa_kernel

        return sdpa_kernel([getattr(SDPBackend, BACKENDS[self.backend])])

    def attend(self, q, k, v, *, causal: bool, bias=None, scale: float | None = None, score_fn=None):
        self._reject_score_fn(score_fn)
        k, v, kwargs = self._inputs(q, k, v, causal, bias)
        with self._pinned():
            return F.scaled_dot_product_attention(q, k, v, scale=scale, **kwargs)

    def dispatch(self, q, k, v, *, causal: bool, bias=None, scale: float | None = None) -> str:
        """'sdpa:<backend>': the pinned backend, or the one PyTorch's chooser picks for these inputs."""
        if self.backend is not None:
            return f"sdpa:{self.backend}"
        chooser = getattr(torch, "_fused_sdp_choice", None)  # PyTorch's own dispatcher, not a public API
        if chooser is None:
            return "sdpa:unreported (this torch does not expose its backend choice)"
        k, v, kwargs = self._inputs(q, k, v, causal, bias)
        choice = int(chooser(q, k, v, scale=scale, **kwargs))
        return f"sdpa:{_BY_VALUE.get(choice, f'backend {choice}')}"


kernels.add("sdpa", Sdpa())
