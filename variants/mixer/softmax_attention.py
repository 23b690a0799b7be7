"""Causal softmax attention as a mixer: the attention layers of a hybrid stack, global or over a sliding window.

Multi-head scaled dot-product attention (Vaswani et al. 2017) with no position encoding: in a hybrid the
recurrent layers carry order. A hybrid keeps a few of these among recurrent layers (Waleffe et al. 2024, arXiv
2406.07887: Mamba-2 with about 7% attention layers; Arora et al. 2024, Based, arXiv 2402.18668: linear attention
beside sliding-window attention). Decoding keeps the keys and values of the context (2 d numbers per token), or of
the last ``window`` tokens only, so its state grows with the context up to the window; the other mixers' do not.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from ._base import SequenceMixer, mixers
from ._heads import heads_problem, merge_heads, split_heads


@mixers.register()
class SoftmaxAttention(SequenceMixer):
    """Causal softmax attention without positions, global or windowed: the attention layers of a hybrid stack."""

    def __init__(self, d_model: int, n_heads: int, window: int | None = None) -> None:
        super().__init__(d_model, n_heads)
        self.window = window
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)

    @classmethod
    def problems(cls, d_model: int, n_heads: int, window: int | None = None, **options) -> list:
        out = heads_problem(d_model, n_heads) + super().problems(d_model, n_heads, **options)
        if window is not None and (not isinstance(window, int) or window < 1):
            out.append(
                f"window={window!r} cannot bound attention: give a whole number of at least 1 (keys each query "
                "sees), or leave it unset for global attention."
            )
        return out

    def _mask(self, T: int, device) -> torch.Tensor | None:
        """(T, T) True where query t may see key s: s <= t, and t - s < window with one."""
        t = torch.arange(T, device=device)
        seen = t[None, :] <= t[:, None]
        return seen & (t[:, None] - t[None, :] < self.window) if self.window else seen

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = (split_heads(t, self.n_heads) for t in self.qkv(x).chunk(3, -1))  # (B, H, T, d_h)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=self._mask(x.shape[1], x.device))
        return self.out_proj(merge_heads(o))

    def initial_state(self, batch: int, device=None, dtype=None) -> tuple[torch.Tensor, torch.Tensor]:
        empty = torch.zeros(batch, self.n_heads, 0, self.d_model // self.n_heads, device=device, dtype=dtype)
        return empty, empty.clone()

    def step(self, x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]):
        keys, values = state  # (B, H, t - 1, d_h): the cache so far
        q, k, v = (split_heads(t, self.n_heads).unsqueeze(2) for t in self.qkv(x).chunk(3, -1))  # (B, H, 1, d_h)
        keys, values = torch.cat([keys, k], 2), torch.cat([values, v], 2)
        if self.window:
            keys, values = keys[:, :, -self.window :], values[:, :, -self.window :]
        o = F.scaled_dot_product_attention(q, keys, values)  # one query sees the whole cache
        return self.out_proj(merge_heads(o.squeeze(2))), (keys, values)

    def state_numel(self, context: int = 0) -> int:
        """Keys and values of ``context`` tokens (of at most ``window``): 2 d each."""
        kept = min(context, self.window) if self.window else context
        return 2 * self.d_model * kept
