"""A minimal GPT in plain PyTorch, the baseline of the paired throughput benchmark (paired_gpt.py).

Written for this benchmark after the architecture of nanoGPT (Andrej Karpathy, github.com/karpathy/nanoGPT,
model.py), at the "baby" size of its character-level Shakespeare run (config/train_shakespeare_char.py,
shrunk as its README does for small machines): 4 layers, 4 heads, d 128, block 256, batch 16, vocabulary 65,
no dropout. Like nanoGPT: learned absolute positions added to the token embedding, Pre-LN blocks (LayerNorm,
causal self-attention through fused F.scaled_dot_product_attention(is_causal=True), LayerNorm, GELU MLP of
4 x d), a final LayerNorm, the output layer tied to the token embedding, linear layers without biases
(nanoGPT's train.py trains with bias=False), AdamW with weight decay on matrices only, gradient clipping 1.0,
linear warm-up then cosine learning rate.

One deliberate difference: the LayerNorms keep their bias (nn.LayerNorm), as the registry's LayerNorm does,
so that both models of the benchmark have exactly the same parameters. nanoGPT with bias=False drops the
LayerNorm biases: (2 x n_layer + 1) x n_embd = 1152 fewer parameters at this size (0.14% of 0.82M).
Nothing here imports the registry or the harness: it is the price of neither.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F


@dataclass(frozen=True)
class PlainConfig:
    """nanoGPT's baby character-level configuration (the benchmark's defaults)."""

    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128
    block_size: int = 256
    vocab_size: int = 65
    batch_size: int = 16


class SelfAttention(nn.Module):
    """Causal multi-head self-attention, queries, keys and values from one fused projection."""

    def __init__(self, c: PlainConfig):
        super().__init__()
        self.n_head = c.n_head
        self.qkv = nn.Linear(c.n_embd, 3 * c.n_embd, bias=False)
        self.proj = nn.Linear(c.n_embd, c.n_embd, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, D = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.n_head, D // self.n_head).permute(2, 0, 3, 1, 4)  # each (B, H, T, Dh)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(B, T, D))


class Block(nn.Module):
    """x + attn(ln(x)), then x + mlp(ln(x))."""

    def __init__(self, c: PlainConfig):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(c.n_embd), nn.LayerNorm(c.n_embd)
        self.attn = SelfAttention(c)
        self.up = nn.Linear(c.n_embd, 4 * c.n_embd, bias=False)
        self.down = nn.Linear(4 * c.n_embd, c.n_embd, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.down(F.gelu(self.up(self.ln2(x))))


class PlainGPT(nn.Module):
    """tokens (B, T) -> logits (B, T, V); with targets, (logits, mean cross-entropy) as nanoGPT's forward."""

    def __init__(self, c: PlainConfig = PlainConfig()):
        super().__init__()
        self.config = c
        self.tok = nn.Embedding(c.vocab_size, c.n_embd)
        self.pos = nn.Embedding(c.block_size, c.n_embd)
        self.blocks = nn.ModuleList(Block(c) for _ in range(c.n_layer))
        self.ln_f = nn.LayerNorm(c.n_embd)
        self.head = nn.Linear(c.n_embd, c.vocab_size, bias=False)
        self.head.weight = self.tok.weight  # tied, as nanoGPT (and GPT-2)
        for module in self.modules():  # GPT-2's N(0, 0.02), residual projections scaled down by depth
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)
        for name, p in self.named_parameters():
            if name.endswith(("proj.weight", "down.weight")) and "qkv" not in name:
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * c.n_layer))

    def num_parameters(self) -> int:
        """Trainable parameters, the tied embedding counted once (position table included)."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def forward(self, tokens: torch.Tensor, targets: torch.Tensor | None = None):
        T = tokens.shape[1]
        x = self.tok(tokens) + self.pos(torch.arange(T, device=tokens.device))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))
        if targets is None:
            return logits
        return logits, F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def make_adamw(model: nn.Module, lr: float, betas, weight_decay: float) -> torch.optim.AdamW:
    """AdamW, weight decay on matrices and embeddings (dim >= 2) only; fused on CUDA (as nanoGPT)."""
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
        {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
    ]
    fused = {"fused": True} if params and all(p.is_cuda for p in params) else {}
    return torch.optim.AdamW(groups, lr=lr, betas=betas, **fused)


def cosine_lr(step: int, lr: float, warmup: int, total: int, min_ratio: float) -> float:
    """Linear warm-up to ``lr``, then cosine decay to ``min_ratio * lr`` at ``total`` steps."""
    if step < warmup:
        return lr * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return lr * (min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))
