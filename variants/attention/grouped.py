"""Multi-head attention with n_kv_heads key/value heads: MHA, GQA or MQA (Vaswani et al. 2017; Ainslie et al. 2023, arXiv 2305.13245).

The block's standard self-attention, ``Attention``: every query head reads one of ``kv_heads`` key/value heads, and
the cache holds 2 x kv_heads x head_dim values per token and layer, or, with a sliding window W, those of the last W
tokens only (a rolling buffer of W slots). The same layer serves bidirectional self-attention (an encoder's) and
cross-attention (the encoder-decoder's decoder reading the encoder's output, variants/models/transformer.py's
``Block``). ``Grouped`` is what the registry holds: how a spec builds the layer and what its cache holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch import nn

from ..decode.kv_cache import KVCache, LayerCache, NoCache, PairCache
from ..decode.rolling_cache import RollingCache
from ..kernel._base import AttentionKernel
from ..position._base import PositionEncoding, adds_score_bias
from ..score_bias import with_key_padding
from ..scoring._base import Scoring, scorings
from ._base import SelfAttention, attentions

if TYPE_CHECKING:
    from ..axis_spec import AxisSpec

#: one layer's keys and values: a cache (variants/decode/) or a (K, V) pair of (B, Hkv, S, Dh)
Cache = KVCache | tuple[torch.Tensor, torch.Tensor]


@attentions.register()
class Grouped(SelfAttention):
    """Multi-head attention with kv_heads key/value heads (MHA, GQA, MQA), optionally in a sliding window."""

    @staticmethod
    def from_spec(spec: AxisSpec, position, kernel) -> Attention:
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


class Attention(nn.Module):
    """Multi-head (or grouped-query) attention with a pluggable scoring and kernel: causal self-attention (the
    decoder LM, the encoder-decoder's decoder), bidirectional self-attention (its encoder) or cross-attention to a
    memory (its decoder reading the encoder's output), with padded keys masked.

    The position's hooks act in self-attention (rotation, and the bias through ``attention_bias``); cross-attention
    has none, as in T5. ``scoring`` is a registry key or a Scoring module built for the head size (default: scaled
    dot product). ``window`` W restricts causal self-attention to the last W keys (sliding-window attention,
    Beltagy et al. 2020, arXiv 2004.05150; Jiang et al. 2023, arXiv 2310.06825), given to the kernel as a -inf
    score mask, and its cache is a RollingCache of W slots.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        n_kv_heads: int,
        position: PositionEncoding,
        kernel: AttentionKernel,
        scoring: str | Scoring = "scaled_dot",
        window: int | None = None,
    ):
        super().__init__()
        self.window = window
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.head_dim, bias=False)
        self.kv_proj = nn.Linear(d_model, 2 * n_kv_heads * self.head_dim, bias=False)
        self.out_proj = nn.Linear(n_heads * self.head_dim, d_model, bias=False)
        self.position, self.kernel = position, kernel
        self.scoring = scorings.get(scoring)(self.head_dim) if isinstance(scoring, str) else scoring

    def empty_cache(self, batch: int, capacity: int = 0, dtype=None, device=None) -> LayerCache | RollingCache:
        """The empty self-attention cache of this layer, with room for ``capacity`` tokens: buffers (B, Hkv, capacity,
        Dh), or with a sliding window a rolling buffer of at most W slots."""
        if self.window is not None:
            return RollingCache.empty(batch, self.n_kv_heads, self.head_dim, self.window, capacity, dtype, device)
        return LayerCache.empty(batch, self.n_kv_heads, self.head_dim, capacity, dtype, device)

    def _keys_values(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, S, D) -> keys and values, each (B, Hkv, S, Dh)."""
        B, S, _ = x.shape
        return self.kv_proj(x).view(B, S, 2, self.n_kv_heads, self.head_dim).permute(2, 0, 3, 1, 4)

    def _project(
        self,
        x: torch.Tensor,
        cache: Cache | None,
        memory: torch.Tensor | None = None,
        causal: bool = True,
        key_padding: torch.Tensor | None = None,
    ):
        """(q, k, v, bias, cache): q (B, H, T, Dh); k, v (B, Hkv, S, Dh); the bias the kernel adds (ScoreBias or
        None); the cache to return.

        Self-attention (no memory): keys are the cache's S - T earlier positions then x's. A LayerCache is written
        in place and read back as views of its buffers; a (K, V) pair is extended by concatenation. Cross-attention:
        keys are the memory's, or the cache's when given (the memory's keys and values, computed once)."""
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)  # (B, H, T, Dh)
        if memory is not None:  # cross-attention: no position hooks
            k, v = cache if cache is not None else self._keys_values(memory)
            cache, bias = (k, v), None
        else:
            # every cache takes the step's keys and values and says what the step attends to (variants/decode/kv_cache.py):
            # training and full-sequence runs keep no cache and attend to this forward's keys alone
            cache = NoCache() if cache is None else PairCache.of(cache)
            past = cache.length  # positions already cached (a DevicePosition for a static cache)
            k, v = self._keys_values(x)  # (B, Hkv, T, Dh)
            q, k = self.position.rotate(q, k, q_offset=past, k_offset=past)
            ordered = adds_score_bias(type(self.position))  # a score bias reads key order (distances)
            cache, k, v = cache.update(k, v, ordered=ordered)  # k, v (B, Hkv, S, Dh)
            bias = cache.bias(self, T, k.shape[2], past, q.dtype, q.device, causal)  # of (H, T, S), or None
        if key_padding is not None:
            bias = with_key_padding(bias, key_padding, q.dtype)  # of (B, H, T, S)
        return self.scoring.query(q), k, v, bias, cache

    def forward(
        self,
        x: torch.Tensor,
        cache: Cache | None = None,
        *,
        memory: torch.Tensor | None = None,
        causal: bool = True,
        key_padding: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, Cache]:
        """x: (B, T, D) queries; keys and values from x (self-attention) or ``memory`` (B, S, D) (cross-attention);
        ``key_padding`` (B, S) True at keys to mask. Returns (B, T, D) and the cache with x's keys and values (without
        a cache: x's), or in cross-attention the memory's keys and values."""
        B, T, _ = x.shape
        q, k, v, bias, cache = self._project(x, cache, memory, causal, key_padding)
        y = self.kernel.attend(
            q, k, v, causal=causal, bias=bias, scale=self.scoring.scale(), **self.scoring.kernel_options()
        )  # (B, H, T, Dh)
        return self.out_proj(y.transpose(1, 2).reshape(B, T, -1)), cache

    def dispatch(self, x: torch.Tensor) -> str:
        """The implementation the kernel runs for causal self-attention on x (B, T, D), e.g. 'sdpa:flash'
        (recorded with results).

        Run with gradients enabled it answers for training, since some backends differ with requires_grad.
        """
        q, k, v, bias, _ = self._project(x, None)
        return self.kernel.dispatch(q, k, v, causal=True, bias=bias, scale=self.scoring.scale())
