"""The Transformer core (attention, block) and the decoder-only language model built of it.

The encoder-decoder (variants/seq2seq_transformer.py) is built of the same Attention, Block and init_weights
(variants/init_scheme.py). The architecture of Vaswani et al. 2017 (arXiv 1706.03762) with input and output
embeddings tied (Press & Wolf 2017; ``tie_embeddings=False`` unties them), scaled by sqrt(d_model). By default:
Pre-LN blocks (Xiong et al. 2020), LayerNorm, a GELU feed-forward layer, scaled dot-product scores, multi-head
attention and the SDPA kernel. Every one of these is an axis of the spec resolved once here into a component that
owns its behaviour: attention calls the position's hooks (embed, rotate, attention_bias), the scoring's query
transform, scale and kernel options, and the kernel's ``attend``; a block takes its norm slots from the placement.
No ``if name ==`` branch is needed anywhere on the call path.
"""

from __future__ import annotations

import torch
from torch import nn

from .attention._base import attentions
from .ffn._base import FeedForward, ffns
from .init_scheme import init_weights
from .kernel._base import AttentionKernel, kernels
from .kv_cache import LayerCache, NoCache, PairCache, RollingCache
from .norm._base import norms, placements
from .position._base import PositionEncoding, adds_score_bias, build_position
from .score_bias import with_key_padding
from .scoring._base import Scoring, scorings
from .spec import TransformerSpec

#: one layer's keys and values: a LayerCache (buffers written in place) or a (K, V) pair of (B, Hkv, S, Dh)
KVCache = LayerCache | tuple[torch.Tensor, torch.Tensor]


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
        cache: KVCache | None,
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
            # every cache takes the step's keys and values and says what the step attends to (variants/kv_cache.py):
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
        cache: KVCache | None = None,
        *,
        memory: torch.Tensor | None = None,
        causal: bool = True,
        key_padding: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, KVCache]:
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


class Block(nn.Module):
    """Residual block: self-attention, then (``cross``: the encoder-decoder's decoder) cross-attention to a memory,
    then feed-forward; each sublayer's norm placed before it (Pre-LN) or on its residual sum (Post-LN).

    ``norms_first`` registers the norm layers before the sublayers (the decoder LM) or after them (the
    encoder-decoder). The order changes no function, but it is the order of ``parameters()``, in which the
    gradient norm is summed, so each model keeps the order its pinned numbers were computed in.
    """

    def __init__(
        self,
        spec: TransformerSpec,
        position: PositionEncoding,
        kernel: AttentionKernel,
        *,
        cross: bool = False,
        norms_first: bool = True,
    ):
        super().__init__()
        if norms_first:
            self._add_norms(spec, cross)
        self.attn = attentions.get(getattr(spec, "attention", "grouped")).from_spec(spec, position, kernel)
        if cross:
            self.cross_attn = Attention(spec.d_model, spec.n_heads, spec.kv_heads, position, kernel, spec.scoring)
        self.ffn = ffns.get(spec.ffn)(spec.d_model, spec.d_ff or 4 * spec.d_model)
        if not norms_first:
            self._add_norms(spec, cross)
        self.drop = nn.Dropout(spec.dropout)

    def _add_norms(self, spec: TransformerSpec, cross: bool) -> None:
        """Each sublayer has an input slot (Pre-LN) and a residual-sum slot (Post-LN); the other is the identity."""
        placement, norm = placements.get(spec.norm_placement), norms.get(spec.norm)
        self.norm1_in, self.norm1_out = placement.slots(lambda: norm(spec.d_model))  # self-attention
        if cross:
            self.cross_norm_in, self.cross_norm_out = placement.slots(lambda: norm(spec.d_model))
        self.norm2_in, self.norm2_out = placement.slots(lambda: norm(spec.d_model))  # feed-forward

    def forward(
        self,
        x: torch.Tensor,
        cache: KVCache | None = None,
        *,
        causal: bool = True,
        padding: torch.Tensor | None = None,
        memory: torch.Tensor | None = None,
        memory_padding: torch.Tensor | None = None,
        memory_cache: KVCache | None = None,
    ):
        """x (B, T, D) -> (x, cache); with ``memory`` (B, S, D), which a ``cross`` block reads, (x, cache,
        memory_cache): the self-attention cache (Attention.forward) and the memory's keys and values.

        ``padding`` (B, T) and ``memory_padding`` (B, S): True at keys to mask in self- and cross-attention.
        """
        a, cache = self.attn(self.norm1_in(x), cache, causal=causal, key_padding=padding)
        x = self.norm1_out(x + self.drop(a))
        if memory is not None:
            c, memory_cache = self.cross_attn(
                self.cross_norm_in(x), memory_cache, memory=memory, causal=False, key_padding=memory_padding
            )
            x = self.cross_norm_out(x + self.drop(c))
        x = self.norm2_out(x + self.drop(self.ffn(self.norm2_in(x))))
        return (x, cache) if memory is None else (x, cache, memory_cache)


class DecoderLM(nn.Module):
    """Causal Transformer LM: tokens (B, T) -> next-token logits (B, T, vocab)."""

    def __init__(self, spec: TransformerSpec):
        super().__init__()
        self.spec = spec
        self.position = build_position(spec)  # with the spec's RoPE scaling, if any
        kernel = kernels.get(spec.kernel)
        self.embed = nn.Embedding(spec.vocab_size, spec.d_model)
        self.drop = nn.Dropout(spec.dropout)
        self.blocks = nn.ModuleList(Block(spec, self.position, kernel) for _ in range(spec.n_layers))
        self.norm = placements.get(spec.norm_placement).final(lambda: norms.get(spec.norm)(spec.d_model))
        self.head = nn.Linear(spec.d_model, spec.vocab_size, bias=False)
        if spec.tie_embeddings:
            self.head.weight = self.embed.weight  # tied input/output embeddings (Press & Wolf 2017)
        init_weights(self, spec, branches=2, drawn=(nn.Linear, nn.Embedding))

    def length_problem(self, length: int) -> str | None:
        """Why this model cannot process ``length`` tokens at once, or None."""
        return self.position.length_problem(length)

    def set_context_length(self, length: int | None) -> None:
        """Announce the evaluation length (a RoPE scaling with rope_scale=auto takes s = length / max_len)."""
        self.position.set_context_length(length)

    def forward(self, tokens: torch.Tensor, caches: list[KVCache] | None = None):
        """tokens (B, T) -> logits (B, T, V); with ``caches`` (one per layer, variants/kv_cache.py) also returns
        the caches holding these tokens too."""
        if caches is not None:
            caches = [LayerCache.of(c) for c in caches]
        past = 0 if caches is None else caches[0].length
        x = self.drop(self.position.embed(self.embed(tokens) * self.embed_scale, offset=past))  # (B, T, D)
        new_caches = []
        for i, block in enumerate(self.blocks):
            x, c = block(x, None if caches is None else caches[i])
            new_caches.append(c)
        logits = self.head(self.norm(x))
        return logits if caches is None else (logits, new_caches)

    def num_parameters(self) -> int:
        """Trainable parameters, the tied embedding counted once."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def attention_dispatch(self, batch: int, length: int) -> str:
        """The attention implementation that runs for (batch, length) token inputs, e.g. 'sdpa:flash'."""
        param = self.embed.weight
        x = torch.zeros(batch, length, self.spec.d_model, device=param.device, dtype=param.dtype)
        return self.blocks[0].attn.dispatch(x)


def build(spec: TransformerSpec) -> DecoderLM:
    """The model a spec describes."""
    return DecoderLM(spec)


__all__ = [
    "Attention",
    "Block",
    "DecoderLM",
    "FeedForward",
    "KVCache",
    "LayerCache",
    "build",
    "init_weights",
    "with_key_padding",
]
