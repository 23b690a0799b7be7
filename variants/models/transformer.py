"""The Transformer's residual block and the decoder-only language model built of it.

The encoder-decoder (variants/models/seq2seq_transformer.py) is built of the same Block and init_weights
(variants/models/init_scheme.py). The architecture of Vaswani et al. 2017 (arXiv 1706.03762) with input and output
embeddings tied (Press & Wolf 2017; ``tie_embeddings=False`` unties them), scaled by sqrt(d_model). By default:
Pre-LN blocks (Xiong et al. 2020), LayerNorm, a GELU feed-forward layer, scaled dot-product scores, multi-head
attention and the SDPA kernel. Every one of these is an axis of the spec resolved once here into a component that
owns its behaviour: the self-attention layer (variants/attention/; grouped attention's ``Attention`` also serves
cross-attention) calls the position's hooks (embed, rotate, attention_bias), the scoring's query transform, scale
and kernel options, and the kernel's ``attend``; a block takes its norm slots from the placement. No ``if name ==``
branch is needed anywhere on the call path.
"""

from __future__ import annotations

import torch
from torch import nn

from ..attention._base import attentions
from ..attention.grouped import Attention, Cache
from ..decode.kv_cache import LayerCache
from ..ffn._base import ffns
from ..kernel._base import AttentionKernel, kernels
from ..norm._base import norms, placements
from ..position._base import PositionEncoding, build_position
from ..spec import TransformerSpec
from .init_scheme import init_weights


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
        cache: Cache | None = None,
        *,
        causal: bool = True,
        padding: torch.Tensor | None = None,
        memory: torch.Tensor | None = None,
        memory_padding: torch.Tensor | None = None,
        memory_cache: Cache | None = None,
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

    def forward(self, tokens: torch.Tensor, caches: list[Cache] | None = None):
        """tokens (B, T) -> logits (B, T, V); with ``caches`` (one per layer, variants/decode/kv_cache.py) also returns
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


__all__ = ["Block", "DecoderLM", "build"]
