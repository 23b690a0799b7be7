"""The position-encoding protocol: three hooks that attention calls, so it needs no branches.

A position encoding acts in exactly one of three places:
- ``embed``: adds a vector to each token embedding (learned, sinusoidal);
- ``rotate``: rotates queries and keys by their positions (RoPE);
- ``score_bias``: adds a bias to the attention scores (ALiBi).
The defaults do nothing, so an encoding overrides only the hook it uses. An encoding with a score bias
may also write it as a FlexAttention ``score_mod``, which the flex kernel computes without an (H, T, S)
tensor; attention hands kernels both forms through ``attention_bias``. Three smaller hooks: attention that
sees later keys too (an encoder) asks ``bidirectional_bias`` (by default the causal bias mirrored; through
``attention_bias(..., causal=False)``, with ``bidirectional_score_mod`` as its FlexAttention form); a suite
announces the length it evaluates at with ``set_context_length`` (read by RoPE scalings); a RoPE
encoding (``rotary``) takes a scaling through ``scale_rope``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import torch
from torch import nn

from .._registry import Registry
from ..score_bias import ScoreBias

if TYPE_CHECKING:
    from ..axis_spec import AxisSpec

positions: Registry[type] = Registry("position", package="variants.position", list_command="bench list positions")

#: the hooks that take a position offset (an int, or a DevicePosition in a captured decode step)
OFFSET_HOOKS = ("embed", "rotate", "score_bias")


class PositionEncoding(nn.Module):
    """Base class: every hook is the identity; subclasses override the one they use."""

    #: the longest sequence the encoding can represent (None: any length)
    max_positions: int | None = None
    #: rotates queries and keys by RoPE, so a RoPE scaling (variants/rope_scaling) applies
    rotary: bool = False
    #: its score bias has trainable parameters, so training needs a kernel that passes gradients to the bias (one
    #: that cannot is skipped with that reason); leave False for a fixed bias, which any kernel taking a bias runs
    learned_bias: bool = False

    def __init__(self, d_model: int, n_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__()
        self.d_model, self.n_heads, self.head_dim, self.max_len = d_model, n_heads, head_dim, max_len

    @classmethod
    def problems(cls, spec: AxisSpec) -> list[str]:
        """Reasons this encoding cannot be built for ``spec`` (empty when it can)."""
        return []

    def length_problem(self, length: int) -> str | None:
        """Why a sequence of ``length`` tokens cannot be encoded, or None when it can."""
        if self.max_positions is not None and length > self.max_positions:
            return (
                f"{type(self).__name__} has a table of {self.max_positions} positions and cannot "
                f"encode {length} tokens without clipping"
            )
        return None

    #: whether ``embed``, ``rotate`` and ``score_bias`` take a DevicePosition (_tables.py) as their offset, so a decode
    #: step can be captured in a CUDA graph (variants/decode/static_decode.py). The identity hooks do; a subclass that
    #: overrides one of them is False unless it sets True itself, since an offset written for ints (``q_offset + q_len``)
    #: fails on a DevicePosition. False only rules out the captured step: ordinary cached decoding passes ints.
    static_positions = True

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "static_positions" not in cls.__dict__ and any(hook in cls.__dict__ for hook in OFFSET_HOOKS):
            cls.static_positions = False

    def static_problem(self) -> str | None:
        """Why a decode step of this encoding cannot take a DevicePosition (cannot be captured), or None."""
        if type(self).static_positions:
            return None
        return f"{type(self).__name__} positions do not take a position held on the device"

    def embed(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """x: (B, T, d_model) token embeddings of positions offset..offset+T-1."""
        return x

    def rotate(
        self, q: torch.Tensor, k: torch.Tensor, q_offset: int = 0, k_offset: int = 0
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """q: (B, H, T, Dh) at positions q_offset.., k: (B, Hkv, S, Dh) at positions k_offset.."""
        return q, k

    def score_bias(self, q_len: int, k_len: int, q_offset: int, dtype: torch.dtype) -> torch.Tensor | None:
        """An additive score bias of shape (H, T, S), or None. Keys sit at positions 0..S-1."""
        return None

    def score_mod(self, q_offset: int) -> Callable | None:
        """``score_bias`` as a FlexAttention score_mod (score, b, h, q_idx, kv_idx) -> score, or None."""
        return None

    def bidirectional_bias(self, q_len: int, k_len: int, dtype: torch.dtype) -> torch.Tensor | None:
        """The (H, T, S) score bias of attention that also sees later keys (an encoder), or None.

        By default the causal bias mirrored onto the keys after each query (ALiBi: -m |i - j|).
        """
        bias = self.score_bias(q_len, k_len, 0, dtype)
        return None if bias is None else mirrored(bias)

    def enable_bidirectional(self) -> None:
        """Called by a model with bidirectional attention before its weights are initialised; an encoding
        with separate state for it (T5's encoder buckets) creates that state here."""

    def set_context_length(self, length: int | None) -> None:
        """The length the model is about to be evaluated at (None: as trained); RoPE scalings read it."""

    def scale_rope(self, scaling, scale="auto") -> None:
        """Take a RoPE scaling (variants/rope_scaling); only a ``rotary`` encoding can."""
        if scaling is not None:
            raise ValueError(
                f"{type(self).__name__} does not rotate by RoPE, so rope scaling '{scaling.name}' cannot apply"
            )

    def bidirectional_score_mod(self) -> Callable | None:
        """``bidirectional_bias`` as a FlexAttention score_mod, or None (the kernel then adds the tensor)."""
        return None

    def attention_bias(
        self, q_len: int, k_len: int, q_offset: int, dtype: torch.dtype, causal: bool = True
    ) -> ScoreBias | None:
        """What attention hands its kernel: None, or the bias as a lazy (H, T, S) tensor and a score_mod;
        ``causal=False`` (attention that sees later keys too, an encoder's) gives the bidirectional form."""
        if not adds_score_bias(type(self)):
            return None
        if not causal:
            return ScoreBias(lambda: self.bidirectional_bias(q_len, k_len, dtype), self.bidirectional_score_mod())
        return ScoreBias(lambda: self.score_bias(q_len, k_len, q_offset, dtype), self.score_mod(q_offset))


def mirrored(bias: torch.Tensor) -> torch.Tensor:
    """(H, T, T) causal score bias -> the bias of bidirectional attention: key j > i gets bias[j, i]."""
    upper = torch.ones(bias.shape[-2:], dtype=torch.bool, device=bias.device).triu(1)
    return torch.where(upper, bias.transpose(-1, -2), bias)


def build_position(spec: AxisSpec) -> PositionEncoding:
    """The position encoding of a spec, with its RoPE scaling when the spec names one."""
    from ..rope_scaling._base import rope_scalings

    encoding = positions.get(spec.position)(spec.d_model, spec.n_heads, spec.head_dim, spec.max_len)
    name = getattr(spec, "rope_scaling", None)
    encoding.scale_rope(rope_scalings.get(name) if name else None, getattr(spec, "rope_scale", "auto"))
    return encoding


def adds_score_bias(cls: type) -> bool:
    """Whether a position-encoding class adds a bias to attention scores (it overrides ``score_bias``)."""
    return getattr(cls, "score_bias", None) is not PositionEncoding.score_bias
