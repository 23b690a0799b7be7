"""A decoder-only Transformer language model built from a TransformerSpec.

The architecture of Vaswani et al. 2017 (arXiv 1706.03762) with Pre-LN blocks (Xiong et al. 2020), a GELU
feed-forward layer and input and output embeddings tied (Press & Wolf 2017), scaled by sqrt(d_model). The position encoding and
the attention kernel are the spec's axes: attention calls the position's three hooks (embed, rotate,
score_bias) and the kernel's ``attend``, so neither needs an ``if position == ...`` branch.
"""

from __future__ import annotations

import math
from typing import List, Optional, Tuple

import torch
from torch import nn
from torch.nn import functional as F

from .kernel._base import AttentionKernel, kernels
from .position._base import PositionEncoding, positions
from .spec import TransformerSpec

KVCache = Tuple[torch.Tensor, torch.Tensor]  # (B, Hkv, S, Dh) keys and values of one layer


class Attention(nn.Module):
    """Multi-head (or grouped-query) causal self-attention."""

    def __init__(self, d_model: int, n_heads: int, n_kv_heads: int, position: PositionEncoding, kernel: AttentionKernel):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.head_dim, bias=False)
        self.kv_proj = nn.Linear(d_model, 2 * n_kv_heads * self.head_dim, bias=False)
        self.out_proj = nn.Linear(n_heads * self.head_dim, d_model, bias=False)
        self.position, self.kernel = position, kernel

    def forward(self, x: torch.Tensor, cache: Optional[KVCache] = None) -> Tuple[torch.Tensor, KVCache]:
        """x: (B, T, D); cache holds the S - T earlier keys/values. Returns (B, T, D) and the new cache."""
        B, T, _ = x.shape
        past = 0 if cache is None else cache[0].shape[2]
        q = self.q_proj(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)  # (B, H, T, Dh)
        k, v = self.kv_proj(x).view(B, T, 2, self.n_kv_heads, self.head_dim).permute(2, 0, 3, 1, 4)  # (B, Hkv, T, Dh)
        q, k = self.position.rotate(q, k, q_offset=past, k_offset=past)
        if cache is not None:
            k, v = torch.cat((cache[0], k), dim=2), torch.cat((cache[1], v), dim=2)  # (B, Hkv, S, Dh)
        bias = self.position.score_bias(T, k.shape[2], past, q.dtype)  # (H, T, S) or None
        y = self.kernel.attend(q, k, v, causal=True, bias=bias)  # (B, H, T, Dh)
        return self.out_proj(y.transpose(1, 2).reshape(B, T, -1)), (k, v)


class FeedForward(nn.Module):
    """Position-wise two-layer MLP with GELU."""

    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.up, self.down = nn.Linear(d_model, d_ff, bias=False), nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    """Pre-LN residual block: x + attn(norm(x)), then x + ffn(norm(x))."""

    def __init__(self, spec: TransformerSpec, position: PositionEncoding, kernel: AttentionKernel):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(spec.d_model), nn.LayerNorm(spec.d_model)
        self.attn = Attention(spec.d_model, spec.n_heads, spec.kv_heads, position, kernel)
        self.ffn = FeedForward(spec.d_model, spec.d_ff or 4 * spec.d_model)
        self.drop = nn.Dropout(spec.dropout)

    def forward(self, x: torch.Tensor, cache: Optional[KVCache] = None) -> Tuple[torch.Tensor, KVCache]:
        a, new_cache = self.attn(self.norm1(x), cache)
        x = x + self.drop(a)
        return x + self.drop(self.ffn(self.norm2(x))), new_cache


class DecoderLM(nn.Module):
    """Causal Transformer LM: tokens (B, T) -> next-token logits (B, T, vocab)."""

    def __init__(self, spec: TransformerSpec):
        super().__init__()
        self.spec = spec
        self.position = positions.get(spec.position)(spec.d_model, spec.n_heads, spec.head_dim, spec.max_len)
        kernel = kernels.get(spec.kernel)
        self.embed = nn.Embedding(spec.vocab_size, spec.d_model)
        self.drop = nn.Dropout(spec.dropout)
        self.blocks = nn.ModuleList(Block(spec, self.position, kernel) for _ in range(spec.n_layers))
        self.norm = nn.LayerNorm(spec.d_model)
        self.head = nn.Linear(spec.d_model, spec.vocab_size, bias=False)
        self.head.weight = self.embed.weight  # tied input/output embeddings
        self.apply(self._init_weights)
        # Vaswani et al. 2017, 3.4: token embeddings are multiplied by sqrt(d_model); initialised with std
        # d_model^-0.5 they enter with unit scale, comparable to added position vectors (sinusoid RMS 0.71)
        # that would otherwise swamp them, and the tied output layer starts with unit-scale logits.
        nn.init.normal_(self.embed.weight, std=spec.d_model ** -0.5)
        self.embed_scale = math.sqrt(spec.d_model)
        for name, p in self.named_parameters():  # GPT-2: scale residual projections by depth
            if name.endswith(("out_proj.weight", "down.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * spec.n_layers))

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def length_problem(self, length: int) -> Optional[str]:
        """Why this model cannot process ``length`` tokens at once, or None."""
        return self.position.length_problem(length)

    def forward(self, tokens: torch.Tensor, caches: Optional[List[KVCache]] = None):
        """tokens (B, T) -> logits (B, T, V); with ``caches`` also returns the updated caches."""
        past = 0 if caches is None else caches[0][0].shape[2]
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


def build(spec: TransformerSpec) -> DecoderLM:
    """The model a spec describes."""
    return DecoderLM(spec)
