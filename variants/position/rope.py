"""Rotary position embedding, RoPE (Su et al. 2021, RoFormer, arXiv 2104.09864).

Queries and keys are rotated pairwise by angles proportional to their position, so the score
<R(m) q, R(n) k> depends on the offset m - n alone. Pairs follow the half-split convention (dimension
i pairs with i + Dh/2, as in GPT-NeoX and Hugging Face Llama); the interleaved convention of the
original paper is the same up to a fixed permutation of dimensions. A RoPE scaling (variants/rope_scaling:
PI, NTK-aware, dynamic NTK, YaRN) changes the frequencies for lengths past training without new weights.
"""

from __future__ import annotations

import torch

from ..rope_scaling._base import BASE, RopeScaling, rope_frequencies, scale_factor
from ._base import PositionEncoding, positions
from ._tables import DevicePosition, Offset, table_rows


def rope_angles(
    length: int, head_dim: int, offset: int = 0, base: float = BASE, inv_freq: torch.Tensor | None = None
) -> torch.Tensor:
    """(length, head_dim/2) rotation angles p * theta_i, theta_i = base^(-2i/Dh) unless ``inv_freq`` is given."""
    inv_freq = rope_frequencies(head_dim, base) if inv_freq is None else inv_freq
    pos = torch.arange(offset, offset + length, dtype=torch.float64)
    return torch.outer(pos, inv_freq)


def _cos_sin_table(
    length: int,
    head_dim: int,
    offset: int,
    base: float,
    dtype: torch.dtype,
    device: str,
    scaling: RopeScaling | None = None,
    s: float = 1.0,
    train_len: int = 0,
):
    """(cos, sin), each (length, head_dim/2), of positions offset .. offset + length - 1, built afresh."""
    inv_freq = None if scaling is None else scaling.frequencies(head_dim, s, train_len, base)
    angles = rope_angles(length, head_dim, offset, base, inv_freq)
    factor = 1.0 if scaling is None else scaling.attention_factor(s)  # YaRN's sqrt(1/t) on q and k each
    return (
        (factor * angles.cos()).to(device=device, dtype=dtype),
        (factor * angles.sin()).to(device=device, dtype=dtype),
    )


def _cos_sin(
    length: int,
    head_dim: int,
    offset: int,
    base: float,
    dtype: torch.dtype,
    device: str,
    scaling: RopeScaling | None = None,
    s: float = 1.0,
    train_len: int = 0,
):
    """The rows of ``_cos_sin_table`` from one table per (shape, scale, dtype, device), grown on demand."""

    def build(capacity: int):
        return _cos_sin_table(capacity, head_dim, 0, base, dtype, device, scaling, s, train_len)

    return table_rows(("rope", head_dim, base, dtype, device, scaling, s, train_len), offset, length, build)


def rotate_pairs(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x (..., T, Dh) rotated by cos, sin broadcastable to (..., T, Dh/2), half-split pairs."""
    x1, x2 = x.chunk(2, dim=-1)  # each (..., T, Dh/2)
    return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)


def apply_rope(
    x: torch.Tensor,
    offset: Offset = 0,
    base: float = BASE,
    scaling: RopeScaling | None = None,
    s: float = 1.0,
    train_len: int = 0,
) -> torch.Tensor:
    """Rotate x: (B, H, T, Dh) for positions offset..offset+T-1 (half-split pairs), with a scaling at scale s."""
    # the tables depend on shape and scale only, so they are cached on the device (computed in float64, then
    # cast) and grown on demand: decoding token by token slices one table instead of building one per step
    cos, sin = _cos_sin(
        x.shape[-2], x.shape[-1], offset, base, x.dtype, str(x.device), scaling, s, train_len
    )  # (T, Dh/2)
    return rotate_pairs(x, cos, sin)


def apply_rope_at(x: torch.Tensor, pos: torch.Tensor, base: float = BASE) -> torch.Tensor:
    """Rotate x: (B, H, T, Dh) for explicit positions pos: (B, T) (randomized positions)."""
    angles = pos.to(torch.float64)[..., None] * rope_frequencies(x.shape[-1], base).to(pos.device)  # (B, T, Dh/2)
    cos, sin = angles.cos().to(x.dtype)[:, None], angles.sin().to(x.dtype)[:, None]  # (B, 1, T, Dh/2)
    return rotate_pairs(x, cos, sin)


@positions.register()
class Rope(PositionEncoding):
    """Rotary embedding of queries and keys; scores depend on relative offset only."""

    #: takes a RoPE scaling (variants/rope_scaling)
    rotary = True
    #: rotate gathers the rows of a DevicePosition on the device, unless its scaling reads the length (static_problem)
    static_positions = True

    def __init__(self, d_model: int, n_heads: int, head_dim: int, max_len: int) -> None:
        super().__init__(d_model, n_heads, head_dim, max_len)
        self.scaling: RopeScaling | None = None
        self.scale: str | float = "auto"
        self.context_len: int | None = None

    @classmethod
    def problems(cls, spec) -> list[str]:
        head_dim = spec.d_model // spec.n_heads if spec.n_heads else 0
        if head_dim % 2:
            return [
                f"rope needs an even head dimension, got {head_dim} (d_model {spec.d_model} / {spec.n_heads} heads)"
            ]
        return []

    def scale_rope(self, scaling: RopeScaling | None, scale: str | float = "auto") -> None:
        self.scaling, self.scale = scaling, scale

    def set_context_length(self, length: int | None) -> None:
        self.context_len = length

    def scale_at(self, length: int) -> float:
        """s for a sequence of ``length`` tokens (1 without a scaling); max_len is the training length L."""
        if self.scaling is None:
            return 1.0
        target = length if self.scaling.dynamic or self.context_len is None else self.context_len
        return scale_factor(self.scale, target, self.max_len)

    def static_problem(self) -> str | None:
        if self.scaling is not None:
            return (
                f"RoPE scaling '{self.scaling.name}' picks its scale from the sequence length, which a captured "
                f"decode step does not know"
            )
        return None

    def rotate(
        self, q: torch.Tensor, k: torch.Tensor, q_offset: Offset = 0, k_offset: Offset = 0
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if isinstance(q_offset, DevicePosition) or isinstance(k_offset, DevicePosition):
            if self.static_problem():
                raise ValueError(self.static_problem())
            return apply_rope(q, q_offset), apply_rope(k, k_offset)  # no scaling: s = 1
        s = self.scale_at(max(q_offset + q.shape[-2], k_offset + k.shape[-2]))
        extra = dict(scaling=self.scaling, s=s, train_len=self.max_len)
        return apply_rope(q, q_offset, **extra), apply_rope(k, k_offset, **extra)
