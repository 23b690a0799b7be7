"""The RoPE-scaling protocol: new rotation frequencies (and an attention factor) for lengths past training.

RoPE rotates pair i of a head of dimension d at angle m * theta_i, theta_i = b^(-2i/d), b = 10000
(Su et al. 2021). A model trained at length L and evaluated at L' = s * L can keep its weights and change
only these frequencies: Position Interpolation divides them all by s (Chen et al. 2023, arXiv 2306.15595),
NTK-aware scaling raises the base, dynamic NTK recomputes s per sequence, and YaRN interpolates the long
wavelengths only and sharpens the softmax (Peng et al. 2023, arXiv 2309.00071). A scaling adds no weights,
so one trained RoPE model serves every scaling (suites/position_extrapolation/suite.py trains it once).

The scale s is a spec field, ``rope_scale``: a number, or ``auto`` = max(1, evaluation length / L), where the
evaluation length is the one a suite sets with ``set_context_length`` (else the sequence's own length).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from .._registry import Registry

if TYPE_CHECKING:
    from ..axis_spec import AxisSpec

rope_scalings: Registry[RopeScaling] = Registry(
    "rope scaling", package="variants.rope_scaling", list_command="bench list positions"
)

BASE = 10000.0


def rope_frequencies(head_dim: int, base: float = BASE) -> torch.Tensor:
    """(head_dim/2,) float64 theta_i = base^(-2i/head_dim), i = 0 .. head_dim/2 - 1."""
    return base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)


def scale_factor(scale: str | float, length: int, train_len: int) -> float:
    """s: a fixed ``scale``, or for ``auto`` max(1, length / train_len)."""
    if scale == "auto":
        return max(1.0, length / train_len)
    return float(scale)


@dataclass(frozen=True)
class RopeScaling:
    """Base class: RoPE's own frequencies at every scale; subclasses override ``frequencies``."""

    #: s follows the length of each sequence (dynamic NTK), not the evaluation length a suite sets
    dynamic: bool = False

    @property
    def name(self) -> str:
        return type(self).__module__.rsplit(".", 1)[-1]

    def frequencies(self, head_dim: int, s: float, train_len: int, base: float = BASE) -> torch.Tensor:
        """(head_dim/2,) float64 angular frequencies at scale s for a model trained at ``train_len``."""
        return rope_frequencies(head_dim, base)

    def attention_factor(self, s: float) -> float:
        """Multiplies the rotated queries and keys each, so the logits by its square (1: none)."""
        return 1.0

    def problems(self, spec: AxisSpec) -> list[str]:
        """Why this scaling cannot apply to ``spec`` at its ``rope_scale`` (empty when it can); whether the spec's
        position rotates by RoPE at all is the spec's check (variants/spec.py), which sees both axes."""
        reasons = []
        problem = scale_problem(spec.rope_scale)
        if problem:
            reasons.append(problem)
        elif self.dynamic and spec.rope_scale != "auto":
            reasons.append(
                f"rope scaling '{self.name}' takes s from each sequence's length, so rope_scale must be "
                f"'auto', not {spec.rope_scale!r}"
            )
        return reasons


def scale_problem(scale: str | float) -> str | None:
    """Why ``scale`` is not 'auto' or a number of at least 1, or None."""
    if scale == "auto":
        return None
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale < 1:
        return f"rope_scale must be 'auto' or a number of at least 1, got {scale!r}"
    return None
