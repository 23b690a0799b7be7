"""The position-encoding protocol: three hooks that attention calls, so it needs no branches.

A position encoding acts in exactly one of three places:
- ``embed``: adds a vector to each token embedding (learned, sinusoidal);
- ``rotate``: rotates queries and keys by their positions (RoPE);
- ``score_bias``: adds a bias to the attention scores (ALiBi).
The defaults do nothing, so an encoding overrides only the hook it uses. An encoding with a score bias
may also write it as a FlexAttention ``score_mod``, which the flex kernel computes without an (H, T, S)
tensor; attention hands kernels both forms through ``attention_bias``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, List, Optional, Tuple

import torch
from torch import nn

from .._registry import Registry
from ..kernel._base import ScoreBias

if TYPE_CHECKING:
    from ..spec import TransformerSpec

positions: Registry[type] = Registry("position", package="variants.position", list_command="bench list positions")


class PositionEncoding(nn.Module):
    """Base class: every hook is the identity; subclasses override the one they use."""

    #: the longest sequence the encoding can represent (None: any length)
    max_positions: Optional[int] = None

    def __init__(self, d_model: int, n_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__()
        self.d_model, self.n_heads, self.head_dim, self.max_len = d_model, n_heads, head_dim, max_len

    @classmethod
    def problems(cls, spec: "TransformerSpec") -> List[str]:
        """Reasons this encoding cannot be built for ``spec`` (empty when it can)."""
        return []

    def length_problem(self, length: int) -> Optional[str]:
        """Why a sequence of ``length`` tokens cannot be encoded, or None when it can."""
        if self.max_positions is not None and length > self.max_positions:
            return (
                f"{type(self).__name__} has a table of {self.max_positions} positions and cannot "
                f"encode {length} tokens without clipping"
            )
        return None

    def embed(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """x: (B, T, d_model) token embeddings of positions offset..offset+T-1."""
        return x

    def rotate(
        self, q: torch.Tensor, k: torch.Tensor, q_offset: int = 0, k_offset: int = 0
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """q: (B, H, T, Dh) at positions q_offset.., k: (B, Hkv, S, Dh) at positions k_offset.."""
        return q, k

    def score_bias(self, q_len: int, k_len: int, q_offset: int, dtype: torch.dtype) -> Optional[torch.Tensor]:
        """An additive score bias of shape (H, T, S), or None. Keys sit at positions 0..S-1."""
        return None

    def score_mod(self, q_offset: int) -> Optional[Callable]:
        """``score_bias`` as a FlexAttention score_mod (score, b, h, q_idx, kv_idx) -> score, or None."""
        return None

    def attention_bias(self, q_len: int, k_len: int, q_offset: int, dtype: torch.dtype) -> Optional[ScoreBias]:
        """What attention hands its kernel: None, or the bias as a lazy (H, T, S) tensor and a score_mod."""
        if not adds_score_bias(type(self)):
            return None
        return ScoreBias(lambda: self.score_bias(q_len, k_len, q_offset, dtype), self.score_mod(q_offset))


def adds_score_bias(cls: type) -> bool:
    """Whether a position-encoding class adds a bias to attention scores (it overrides ``score_bias``)."""
    return getattr(cls, "score_bias", None) is not PositionEncoding.score_bias
