"""Multi-head attention with n_kv_heads key/value heads: MHA, GQA or MQA (Vaswani et al. 2017; Ainslie et al. 2023, arXiv 2305.13245).

The block's standard self-attention (``variants/transformer.py``'s ``Attention``): every query head reads one of
``kv_heads`` key/value heads, and the cache holds 2 x kv_heads x head_dim values per token and layer, or, with a
sliding window W, those of the last W tokens only (a rolling buffer of W slots).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._base import SelfAttention, attentions

if TYPE_CHECKING:
    from ..axis_spec import AxisSpec


@attentions.register()
class Grouped(SelfAttention):
    """Multi-head attention with kv_heads key/value heads (MHA, GQA, MQA), optionally in a sliding window."""

    @staticmethod
    def from_spec(spec: AxisSpec, position, kernel):
        from ..transformer import Attention

        return Attention(
            spec.d_model,
            spec.n_heads,
            spec.kv_heads,
            position,
            kernel,
            spec.scoring,
            window=getattr(spec, "window", None),
        )

    @classmethod
    def cache_elements(cls, spec: AxisSpec, tokens: int) -> int:
        window = getattr(spec, "window", None)
        kept = tokens if window is None else min(tokens, window)
        return 2 * spec.kv_heads * spec.head_dim * kept
