"""The Transformer encoder-decoder with cross-attention (Vaswani et al. 2017, arXiv 1706.03762).

The encoder's self-attention sees the whole source (padding masked); the decoder's self-attention is
causal and its cross-attention reads the encoder's output. The Transformer's axes carry over from the
TransformerSpec: the position encoding (its hooks act in self-attention; cross-attention has none, as in
T5), head grouping (n_kv_heads), the attention kernel and norm placement (Pre-LN by default, Xiong et al.
2020; Post-LN as in the original). Source, target and output embeddings are one tied table over the joint
vocabulary, scaled by sqrt(d_model) as in the decoder LM (variants/transformer.py).

A score bias defined for causal attention (ALiBi: -m (i - j) for keys j <= i) is mirrored onto the keys
after each query in the encoder, giving the symmetric -m |i - j|.
"""

from __future__ import annotations

import math
from typing import Dict, Optional, Tuple

import torch
from torch import nn

from .kernel._base import AttentionKernel, kernels
from .position._base import PositionEncoding, positions
from .seq2seq_spec import PAD, Seq2SeqTransformerSpec
from .transformer import Attention, FeedForward

State = Dict[str, torch.Tensor]  # batch-first tensors: memory (B, S, D), pad (B, S), prefix (B, t)


def mirrored(bias: torch.Tensor) -> torch.Tensor:
    """(H, T, T) causal score bias -> the bias of bidirectional attention: key j > i gets bias[j, i]."""
    upper = torch.ones(bias.shape[-2:], dtype=torch.bool, device=bias.device).triu(1)
    return torch.where(upper, bias.transpose(-1, -2), bias)


def padding_bias(key_padding: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """(B, S) True at padding -> (B, 1, 1, S) additive bias: -inf at padding, 0 elsewhere."""
    bias = torch.zeros(key_padding.shape, dtype=dtype, device=key_padding.device)
    return bias.masked_fill(key_padding, float("-inf"))[:, None, None, :]


class SeqAttention(Attention):
    """Self-attention (causal or not) or cross-attention to a memory, with source padding masked."""

    def forward(self, x: torch.Tensor, memory: Optional[torch.Tensor] = None, *, causal: bool = False,
                key_padding: Optional[torch.Tensor] = None) -> torch.Tensor:
        """x (B, T, D) queries; keys/values from memory (B, S, D) or, when None, from x itself."""
        B, T, _ = x.shape
        source = x if memory is None else memory
        S = source.shape[1]
        q = self.q_proj(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)  # (B, H, T, Dh)
        k, v = self.kv_proj(source).view(B, S, 2, self.n_kv_heads, self.head_dim).permute(2, 0, 3, 1, 4)  # (B, Hkv, S, Dh)
        bias = None
        if memory is None:  # positions act within a sequence only
            q, k = self.position.rotate(q, k)
            bias = self.position.score_bias(T, S, 0, q.dtype)  # (H, T, S) or None
            if bias is not None and not causal:
                bias = mirrored(bias)
        if key_padding is not None:
            pad = padding_bias(key_padding, q.dtype)
            bias = pad if bias is None else bias + pad  # (B, H, T, S)
        y = self.kernel.attend(q, k, v, causal=causal, bias=bias)  # (B, H, T, Dh)
        return self.out_proj(y.transpose(1, 2).reshape(B, T, -1))


class Sublayer(nn.Module):
    """A residual sub-layer with its LayerNorm before (Pre-LN) or after (Post-LN) the residual sum."""

    def __init__(self, d_model: int, placement: str, dropout: float):
        super().__init__()
        self.norm, self.pre, self.drop = nn.LayerNorm(d_model), placement == "pre", nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, fn) -> torch.Tensor:
        if self.pre:
            return x + self.drop(fn(self.norm(x)))
        return self.norm(x + self.drop(fn(x)))


class EncoderLayer(nn.Module):
    def __init__(self, spec: Seq2SeqTransformerSpec, position: PositionEncoding, kernel: AttentionKernel):
        super().__init__()
        self.attn = SeqAttention(spec.d_model, spec.n_heads, spec.kv_heads, position, kernel)
        self.ffn = FeedForward(spec.d_model, spec.d_ff or 4 * spec.d_model)
        self.sub1, self.sub2 = (Sublayer(spec.d_model, spec.norm_placement, spec.dropout) for _ in range(2))

    def forward(self, x: torch.Tensor, pad: torch.Tensor) -> torch.Tensor:
        x = self.sub1(x, lambda h: self.attn(h, key_padding=pad))
        return self.sub2(x, self.ffn)


class DecoderLayer(nn.Module):
    def __init__(self, spec: Seq2SeqTransformerSpec, position: PositionEncoding, kernel: AttentionKernel):
        super().__init__()
        self.self_attn = SeqAttention(spec.d_model, spec.n_heads, spec.kv_heads, position, kernel)
        self.cross_attn = SeqAttention(spec.d_model, spec.n_heads, spec.kv_heads, position, kernel)
        self.ffn = FeedForward(spec.d_model, spec.d_ff or 4 * spec.d_model)
        self.sub1, self.sub2, self.sub3 = (Sublayer(spec.d_model, spec.norm_placement, spec.dropout) for _ in range(3))

    def forward(self, y: torch.Tensor, memory: torch.Tensor, pad: torch.Tensor) -> torch.Tensor:
        y = self.sub1(y, lambda h: self.self_attn(h, causal=True))
        y = self.sub2(y, lambda h: self.cross_attn(h, memory, key_padding=pad))
        return self.sub3(y, self.ffn)


class TransformerSeq2Seq(nn.Module):
    """Source tokens (B, S) and target prefix (B, T) -> next-token logits (B, T, V)."""

    def __init__(self, spec: Seq2SeqTransformerSpec):
        super().__init__()
        self.spec = spec
        self.position = positions.get(spec.position)(spec.d_model, spec.n_heads, spec.head_dim, spec.max_len)
        kernel = kernels.get(spec.kernel)
        self.embed = nn.Embedding(spec.vocab_size, spec.d_model)
        self.drop = nn.Dropout(spec.dropout)
        self.encoder = nn.ModuleList(EncoderLayer(spec, self.position, kernel) for _ in range(spec.n_layers))
        self.decoder = nn.ModuleList(DecoderLayer(spec, self.position, kernel) for _ in range(spec.n_layers))
        pre = spec.norm_placement == "pre"  # Pre-LN stacks end with a norm; Post-LN outputs are normed already
        self.enc_norm = nn.LayerNorm(spec.d_model) if pre else nn.Identity()
        self.dec_norm = nn.LayerNorm(spec.d_model) if pre else nn.Identity()
        self.head = nn.Linear(spec.d_model, spec.vocab_size, bias=False)
        self.head.weight = self.embed.weight  # tied
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
        nn.init.normal_(self.embed.weight, std=spec.d_model ** -0.5)  # unit scale after * sqrt(d_model)
        self.embed_scale = math.sqrt(spec.d_model)
        for name, p in self.named_parameters():  # GPT-2: residual projections scaled by depth
            if name.endswith(("out_proj.weight", "down.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(3 * spec.n_layers))

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def _embed(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.drop(self.position.embed(self.embed(tokens) * self.embed_scale))  # (B, T, D)

    def start(self, src: torch.Tensor) -> State:
        """Encode src (B, S), right-padded with PAD."""
        pad = src.eq(PAD)
        x = self._embed(src)
        for layer in self.encoder:
            x = layer(x, pad)
        return {"memory": self.enc_norm(x), "pad": pad, "prefix": src.new_zeros(src.shape[0], 0)}

    def _decode(self, state: State, tokens: torch.Tensor) -> torch.Tensor:
        y = self._embed(tokens)
        for layer in self.decoder:
            y = layer(y, state["memory"], state["pad"])
        return self.head(self.dec_norm(y))  # (B, T, V)

    def forward(self, src: torch.Tensor, tgt_in: torch.Tensor) -> torch.Tensor:
        """Teacher forcing: src (B, S), tgt_in (B, T) = BOS + reference -> logits (B, T, V)."""
        return self._decode(self.start(src), tgt_in)

    def step(self, state: State, tokens: torch.Tensor) -> Tuple[torch.Tensor, State]:
        """One decoding step: tokens (N,) -> log-probabilities (N, V) of the next token, new state.

        The decoder reruns over the whole prefix (no key/value cache): exact, and cheap at sentence length.
        """
        prefix = torch.cat((state["prefix"], tokens.unsqueeze(1)), dim=1)  # (N, t + 1)
        logits = self._decode(state, prefix)[:, -1]
        return torch.log_softmax(logits.float(), dim=-1), {**state, "prefix": prefix}

    def length_problem(self, length: int) -> Optional[str]:
        return self.position.length_problem(length)


def build(spec: Seq2SeqTransformerSpec) -> TransformerSeq2Seq:
    """The model a spec describes."""
    return TransformerSeq2Seq(spec)
