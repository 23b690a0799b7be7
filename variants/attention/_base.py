"""The self-attention-layer protocol: which layer a block's self-attention is, what it caches, why it cannot run.

A block's self-attention is one of these layers (``TransformerSpec.attention``): ``grouped`` is multi-head
attention with ``n_kv_heads`` key/value heads (MHA, GQA, MQA), ``mla`` multi-head latent attention. A layer class
is built from ``(spec, position, kernel)``, keeps ``position`` and ``kernel`` as attributes (so
``use_grouped_decode`` can swap the kernel), and is called as ``layer(x, cache, causal=..., key_padding=...)`` ->
``(y, cache)``. The built layer's ``empty_cache(batch, capacity, dtype, device)`` gives the empty cache it decodes
with, so that clearing a model's caches asks each layer (every cache keeps one protocol, variants/decode/kv_cache.py), and
the class's ``cache_elements`` what that cache holds per sequence, the formula the kv_cache suite checks the measured
bytes against.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .._registry import Registry

if TYPE_CHECKING:
    from ..axis_spec import AxisSpec

attentions: Registry[type] = Registry("attention", package="variants.attention", list_command="bench list variants")


class SelfAttention:
    """Mixin of the class-level declarations every self-attention layer makes (defaults: none of its own)."""

    @classmethod
    def problems(cls, spec: AxisSpec, device: str, dtype: torch.dtype, training: bool) -> list[str]:
        """Reasons this layer cannot run ``spec`` (empty when it can); the kernel's own reasons come separately."""
        return []

    @classmethod
    def cache_elements(cls, spec: AxisSpec, tokens: int) -> int:
        """Values one layer's cache holds for one sequence after ``tokens`` tokens."""
        raise NotImplementedError


def latent_dims(spec: AxisSpec) -> tuple[int, int]:
    """(d_c, d_h^R) of multi-head latent attention at a spec's head size: DeepSeek-V2's ratios (arXiv 2405.04434,
    3.1.2: d_c = 4 d_h = 512, d_h^R = d_h / 2 = 64 at d_h = 128), so its cache equals GQA's with 2.25 groups."""
    head_dim = spec.d_model // spec.n_heads if spec.n_heads else 0
    return 4 * head_dim, head_dim // 2
