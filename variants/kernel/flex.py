"""FlexAttention: attention compiled from a score_mod and a block mask (Dong et al. 2024, arXiv 2412.05496).

``torch.nn.attention.flex_attention`` under ``torch.compile``: both masks are cached block masks of 128 x 128
blocks, the causal one skipping fully masked blocks and the full one all-true (without a block mask PyTorch
makes one block spanning the whole sequence, whose peak memory grows about quadratically with length:
measured slope ~1.6 against ~0.95 with the block mask, 256-4096 tokens on CPU), ALiBi enters as a ``score_mod`` computed inside the kernel (no (H, T, S) bias
tensor), and grouped-query attention is native. The first call for each shape compiles, which takes tens of
seconds on CPU. With torch 2.13 the CPU kernel has no backward pass, so on CPU it serves inference only.
On CUDA the compiled kernel needs a head dimension of at least 16 (declared, so smaller heads are skipped
with that reason instead of failing in Inductor).
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass

import torch

from ..score_bias import ScoreBias, dense_bias
from ._base import AttentionKernel, kernels

#: compilations of flex_attention kept per process: one per score_mod, grouping and dtype a process meets (a
#: cost sweep or the equivalence gate meets more than Dynamo's default 8); past the limit Dynamo would run it
#: eagerly, which materialises the scores, and a timing would silently be the eager one's
RECOMPILE_LIMIT = 64


@functools.lru_cache(maxsize=1)
def _compiled_flex():
    from torch._dynamo import config
    from torch.nn.attention.flex_attention import flex_attention

    config.recompile_limit = max(config.recompile_limit, RECOMPILE_LIMIT)
    return torch.compile(flex_attention)


@functools.lru_cache(maxsize=64)
def _causal_block_mask(q_len: int, k_len: int, device: str):
    """Query i (at absolute position k_len - q_len + i) sees keys 0 .. k_len - q_len + i."""
    from torch.nn.attention.flex_attention import create_block_mask

    offset = k_len - q_len

    def causal(b, h, q_idx, kv_idx):
        return q_idx + offset >= kv_idx

    return create_block_mask(causal, None, None, q_len, k_len, device=device)


@functools.lru_cache(maxsize=64)
def _full_block_mask(q_len: int, k_len: int, device: str):
    """Every query sees every key, in blocks of 128 x 128 (``block_mask=None`` would be one block over all)."""
    from torch.nn.attention.flex_attention import create_block_mask, noop_mask

    return create_block_mask(noop_mask, None, None, q_len, k_len, device=device)


def block_mask(q_len: int, k_len: int, device: str, causal: bool):
    """The cached block mask of a (q_len, k_len) call: causal, or full (all true); never None."""
    return (_causal_block_mask if causal else _full_block_mask)(q_len, k_len, device)


def _tensor_score_mod(bias: torch.Tensor, shape: tuple[int, int, int, int]):
    """A score_mod that adds a dense bias broadcastable to (B, H, T, S) (for callers that pass a tensor)."""
    full = bias.expand(shape)

    def add_bias(score, b, h, q_idx, kv_idx):
        return score + full[b, h, q_idx, kv_idx]

    return add_bias


@dataclass(frozen=True)
class Flex(AttentionKernel):
    """torch.nn.attention.flex_attention, compiled; ALiBi as a score_mod."""

    dtypes: tuple[torch.dtype, ...] = (torch.float32, torch.float16, torch.bfloat16)
    native_gqa: bool = True
    backward_devices: tuple[str, ...] | None = ("cuda",)
    compiles: bool = True
    #: Inductor's CUDA flex template: "NYI: embedding dimension of the query, key, and value must be at least 16"
    min_head_dims: tuple[tuple[str, int], ...] = (("cuda", 16),)

    def missing(self) -> str | None:
        if importlib.util.find_spec("torch.nn.attention.flex_attention") is None:
            return f"torch {torch.__version__} has no torch.nn.attention.flex_attention (needs torch >= 2.5)"
        return None

    def attend(self, q, k, v, *, causal: bool, bias=None, scale: float | None = None, score_fn=None):
        self._reject_score_fn(score_fn)
        q_len, k_len = q.shape[-2], k.shape[-2]
        score_mod = None
        if isinstance(bias, ScoreBias) and bias.score_mod is not None:
            score_mod = bias.score_mod
        elif bias is not None:
            score_mod = _tensor_score_mod(dense_bias(bias).to(q.dtype), (q.shape[0], q.shape[1], q_len, k_len))
        mask = block_mask(q_len, k_len, str(q.device), causal)
        return _compiled_flex()(
            q, k, v, score_mod=score_mod, block_mask=mask, scale=scale, enable_gqa=k.shape[1] != q.shape[1]
        )

    def dispatch(self, q, k, v, *, causal: bool, bias=None, scale: float | None = None) -> str:
        return "flex:compiled"


kernels.add("flex", Flex())
