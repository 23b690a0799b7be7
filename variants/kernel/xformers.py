"""xFormers memory_efficient_attention (Rabe & Staats 2021, arXiv 2112.05682; Lefaudeux et al. 2022): CUDA only.

Attention computed in chunks with memory linear in length, from the xformers package. Every CPU call
raises "No operator found", so the kernel is declared for CUDA alone. Key/value heads are repeated for
grouped-query attention; the causal mask is aligned to the last key (``LowerTriangularFromBottomRightMask``),
as a KV cache needs. It takes no additive score bias here. The package is imported on first use. It counts
as available only when its op runs: a wheel built for another torch imports and then fails at its first
call, so the first question about it runs one tiny call on the GPU (once per process, answer kept:
variants/kernel/_capabilities.py) and a failure is the reason every plan and the support matrix give.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

import torch

from ._base import AttentionKernel, kernels, repeat_kv
from ._capabilities import current, probe


def _run_once() -> None:
    """One tiny causal call of memory_efficient_attention on the GPU (raises whatever the library raises)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "xFormers can't load C++/CUDA extensions": the call below says it plainly
        import xformers.ops as xops
        from xformers.ops.fmha.attn_bias import LowerTriangularFromBottomRightMask

    q = torch.randn(1, 8, 2, 64, device="cuda", dtype=torch.bfloat16)  # (B, T, H, Dh)
    xops.memory_efficient_attention(q, q, q, attn_bias=LowerTriangularFromBottomRightMask())
    torch.cuda.synchronize()


@dataclass(frozen=True)
class Xformers(AttentionKernel):
    """xformers.ops.memory_efficient_attention, CUDA only."""

    devices: tuple[str, ...] = ("cuda",)
    dtypes: tuple[torch.dtype, ...] = (torch.float32, torch.float16, torch.bfloat16)
    takes_score_bias: bool = False

    def missing(self) -> str | None:
        if importlib.util.find_spec("xformers") is None:
            return "the xformers package is not installed (pip install xformers)"
        if not current().present("cuda"):
            return None  # nothing to probe on: unavailable() names the missing device
        failure = probe("xformers", _run_once)
        if failure:
            return (
                f"the xformers package is installed but its attention op does not run here ({failure}); "
                f"its C++/CUDA extensions are probably built for another torch or CUDA"
            )
        return None

    def attend(self, q, k, v, *, causal: bool, bias=None, scale: float | None = None, score_fn=None):
        self._reject_score_fn(score_fn)
        if bias is not None:
            raise ValueError("kernel 'xformers' takes no score bias")
        import xformers.ops as xops
        from xformers.ops.fmha.attn_bias import LowerTriangularFromBottomRightMask

        k, v = repeat_kv(k, q.shape[1]), repeat_kv(v, q.shape[1])  # (B, H, S, Dh)
        mask = LowerTriangularFromBottomRightMask() if causal else None
        # xformers wants (B, T, H, Dh)
        out = xops.memory_efficient_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), attn_bias=mask, scale=scale
        )
        return out.transpose(1, 2)


kernels.add("xformers", Xformers())
