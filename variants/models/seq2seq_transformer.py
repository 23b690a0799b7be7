"""The Transformer encoder-decoder with cross-attention (Vaswani et al. 2017, arXiv 1706.03762).

The encoder's self-attention sees the whole source (padding masked); the decoder's self-attention is
causal and its cross-attention reads the encoder's output. Both stacks are the decoder LM's blocks
(variants/models/transformer.py; the decoder's with their cross-attention sublayer), so every axis of the
TransformerSpec carries over through the same registries: the position encoding
(its hooks act in self-attention; cross-attention has none, as in T5), the scoring (in self- and
cross-attention), head grouping (n_kv_heads), the norm and its placement (Pre-LN by default, Xiong et al.
2020; Post-LN as in the original), the feed-forward layer and the attention kernel. Source, target and
output embeddings are one tied table over the joint vocabulary, scaled by sqrt(d_model).

The encoder's self-attention takes the position's bidirectional bias: by default a score bias defined for
causal attention (ALiBi: -m (i - j) for keys j <= i) mirrored onto the keys after each query, giving the
symmetric -m |i - j|; T5's buckets have encoder buckets of their own, split by the sign of the offset.
"""

from __future__ import annotations

import torch
from torch import nn

from ..decode.kv_cache import LayerCache
from ..kernel._base import kernels
from ..norm._base import norms, placements
from ..position._base import positions
from ..seq2seq_spec import PAD, Seq2SeqTransformerSpec
from .init_scheme import init_weights
from .transformer import Block

# batch-first tensors: memory (B, S, D), pad (B, S), per-layer cache buffers (B, Hkv, capacity, Dh); and the int
# length, the number of target positions cached
State = dict[str, torch.Tensor | int]


class TransformerSeq2Seq(nn.Module):
    """Source tokens (B, S) and target prefix (B, T) -> next-token logits (B, T, V)."""

    def __init__(self, spec: Seq2SeqTransformerSpec):
        super().__init__()
        self.spec = spec
        self.position = positions.get(spec.position)(spec.d_model, spec.n_heads, spec.head_dim, spec.max_len)
        self.position.enable_bidirectional()  # the encoder's self-attention sees every source token
        kernel = kernels.get(spec.kernel)
        self.embed = nn.Embedding(spec.vocab_size, spec.d_model)
        self.drop = nn.Dropout(spec.dropout)
        self.encoder = nn.ModuleList(
            Block(spec, self.position, kernel, norms_first=False) for _ in range(spec.n_layers)
        )
        self.decoder = nn.ModuleList(
            Block(spec, self.position, kernel, cross=True, norms_first=False) for _ in range(spec.n_layers)
        )
        # Pre-LN stacks end with a norm; Post-LN outputs are normalised already
        final = placements.get(spec.norm_placement).final
        self.enc_norm = final(lambda: norms.get(spec.norm)(spec.d_model))
        self.dec_norm = final(lambda: norms.get(spec.norm)(spec.d_model))
        self.head = nn.Linear(spec.d_model, spec.vocab_size, bias=False)
        self.head.weight = self.embed.weight  # tied
        init_weights(self, spec, branches=3)  # a decoder layer has three residual sublayers

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def _embed(self, tokens: torch.Tensor, offset: int = 0) -> torch.Tensor:
        return self.drop(self.position.embed(self.embed(tokens) * self.embed_scale, offset=offset))  # (B, T, D)

    def start(self, src: torch.Tensor) -> State:
        """Encode src (B, S), right-padded with PAD."""
        pad = src.eq(PAD)
        x = self._embed(src)
        for block in self.encoder:
            x, _ = block(x, causal=False, padding=pad)
        state = {"memory": self.enc_norm(x), "pad": pad, "length": 0}
        # the decoder's self-attention cache: buffers written in place, room for the usual decoding budget
        # (twice the source, variants/decode/beam_search.py), grown by doubling past it
        capacity = 2 * src.shape[1] + 10
        for i in range(len(self.decoder)):
            empty = LayerCache.empty(src.shape[0], self.spec.kv_heads, self.spec.head_dim, capacity, x.dtype, x.device)
            state[f"k{i}"], state[f"v{i}"] = empty.key_buffer, empty.value_buffer  # (B, Hkv, capacity, Dh)
        return state

    def _decode(self, state: State, tokens: torch.Tensor, cached: bool = False) -> tuple[torch.Tensor, State]:
        """tokens (B, T) after the cached prefix (cached) or from the start -> logits (B, T, V), new state."""
        new = dict(state)
        past = state["length"] if cached else 0
        y = self._embed(tokens, offset=past)
        for i, block in enumerate(self.decoder):
            self_past = LayerCache(state[f"k{i}"], state[f"v{i}"], past) if cached else None
            cross = (state[f"ck{i}"], state[f"cv{i}"]) if f"ck{i}" in state else None
            y, self_cache, (new[f"ck{i}"], new[f"cv{i}"]) = block(
                y, self_past, memory=state["memory"], memory_padding=state["pad"], memory_cache=cross
            )
            if cached:  # the buffers the step wrote into (new ones when the cache grew)
                new[f"k{i}"], new[f"v{i}"] = self_cache.key_buffer, self_cache.value_buffer
        if cached:
            new["length"] = past + tokens.shape[1]
        return self.head(self.dec_norm(y)), new  # (B, T, V)

    def forward(self, src: torch.Tensor, tgt_in: torch.Tensor) -> torch.Tensor:
        """Teacher forcing: src (B, S), tgt_in (B, T) = BOS + reference -> logits (B, T, V)."""
        return self._decode(self.start(src), tgt_in)[0]

    def step(self, state: State, tokens: torch.Tensor) -> tuple[torch.Tensor, State]:
        """One decoding step: tokens (N,) -> log-probabilities (N, V) of the next token, new state.

        Keys and values of earlier target positions are cached per layer, and the memory's are computed
        on the first step only, so a step costs one position.
        """
        logits, state = self._decode(state, tokens.unsqueeze(1), cached=True)
        return torch.log_softmax(logits[:, -1].float(), dim=-1), state

    def length_problem(self, length: int) -> str | None:
        return self.position.length_problem(length)


def build(spec: Seq2SeqTransformerSpec) -> TransformerSeq2Seq:
    """The model a spec describes."""
    return TransformerSeq2Seq(spec)
