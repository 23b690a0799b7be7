"""Rotary position embedding, RoPE (Su et al. 2021, RoFormer, arXiv 2104.09864).

Queries and keys are rotated pairwise by angles proportional to their position, so the score
<R(m) q, R(n) k> depends on the offset m - n alone. Pairs follow the half-split convention (dimension
i pairs with i + Dh/2, as in GPT-NeoX and Hugging Face Llama); the interleaved convention of the
original paper is the same up to a fixed permutation of dimensions.
"""

from __future__ import annotations

import functools
from typing import List, Tuple

import torch

from ._base import PositionEncoding, positions


def rope_angles(length: int, head_dim: int, offset: int = 0, base: float = 10000.0) -> torch.Tensor:
    """(length, head_dim/2) rotation angles theta_p,i = p * base^(-2i/Dh)."""
    inv_freq = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    pos = torch.arange(offset, offset + length, dtype=torch.float64)
    return torch.outer(pos, inv_freq)


@functools.lru_cache(maxsize=32)
def _cos_sin(length: int, head_dim: int, offset: int, base: float, dtype: torch.dtype, device: str):
    # built outside inference mode, so a table first made during evaluation can serve training too
    with torch.inference_mode(False):
        angles = rope_angles(length, head_dim, offset, base)
        return angles.cos().to(device=device, dtype=dtype), angles.sin().to(device=device, dtype=dtype)


def apply_rope(x: torch.Tensor, offset: int = 0, base: float = 10000.0) -> torch.Tensor:
    """Rotate x: (B, H, T, Dh) for positions offset..offset+T-1 (half-split pairs)."""
    # the tables depend on shape only, so they are cached (computed in float64 once, then cast)
    cos, sin = _cos_sin(x.shape[-2], x.shape[-1], offset, base, x.dtype, str(x.device))  # (T, Dh/2)
    x1, x2 = x.chunk(2, dim=-1)  # each (B, H, T, Dh/2)
    return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)


@positions.register()
class Rope(PositionEncoding):
    """Rotary embedding of queries and keys; scores depend on relative offset only."""

    @classmethod
    def problems(cls, spec) -> List[str]:
        head_dim = spec.d_model // spec.n_heads if spec.n_heads else 0
        if head_dim % 2:
            return [f"rope needs an even head dimension, got {head_dim} (d_model {spec.d_model} / {spec.n_heads} heads)"]
        return []

    def rotate(
        self, q: torch.Tensor, k: torch.Tensor, q_offset: int = 0, k_offset: int = 0
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        return apply_rope(q, q_offset), apply_rope(k, k_offset)
