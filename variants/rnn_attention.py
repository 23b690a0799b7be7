"""Global attention of an RNN decoder over the encoder's states, with three score functions.

Luong, Pham & Manning 2015 (arXiv 1508.04025), section 3.1: at target step t the decoder state h_t scores
every source state h_s, a softmax over the real (unpadded) source positions gives the weights a_t, and
the context c_t = sum_s a_t(s) h_s. The score functions:
- ``additive``: v^T tanh(W h_t + U h_s), the MLP score of Bahdanau, Cho & Bengio 2014 (arXiv 1409.0473);
- ``dot``: h_t . h_s, unscaled;
- ``general``: h_t^T W h_s, a bilinear form.
Keys are projected once per sentence (``prepare``), so a decoding step costs one score per source word.
"""

from __future__ import annotations

from typing import Tuple

import torch
from torch import nn

SCORINGS = ("additive", "dot", "general")


class GlobalAttention(nn.Module):
    """Scores queries (B, T, D) against keys (B, S, D); returns contexts (B, T, D) and weights (B, T, S)."""

    def __init__(self, scoring: str, d_model: int, d_attn: int):
        super().__init__()
        if scoring not in SCORINGS:
            raise ValueError(f"Unknown attention scoring '{scoring}'; choose one of {', '.join(SCORINGS)}.")
        self.scoring = scoring
        if scoring == "general":
            self.w_key = nn.Linear(d_model, d_model, bias=False)  # W of h_t^T W h_s
        elif scoring == "additive":
            self.w_key = nn.Linear(d_model, d_attn, bias=True)  # U h_s (+ bias)
            self.w_query = nn.Linear(d_model, d_attn, bias=False)  # W h_t
            self.v = nn.Linear(d_attn, 1, bias=False)

    def prepare(self, keys: torch.Tensor) -> torch.Tensor:
        """The part of the score that depends on keys alone: (B, S, D) -> (B, S, D or d_attn)."""
        return keys if self.scoring == "dot" else self.w_key(keys)

    def scores(self, query: torch.Tensor, prepared: torch.Tensor) -> torch.Tensor:
        """(B, T, D) queries against prepared keys -> (B, T, S) scores."""
        if self.scoring == "additive":
            hidden = torch.tanh(self.w_query(query).unsqueeze(2) + prepared.unsqueeze(1))  # (B, T, S, d_attn)
            return self.v(hidden).squeeze(-1)
        return query @ prepared.transpose(1, 2)  # (B, T, S)

    def forward(self, query: torch.Tensor, prepared: torch.Tensor, values: torch.Tensor,
                key_padding: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """query (B, T, D), prepared keys, values (B, S, D), key_padding (B, S) True at padding."""
        scores = self.scores(query, prepared).masked_fill(key_padding.unsqueeze(1), float("-inf"))
        weights = torch.softmax(scores, dim=-1)  # (B, T, S); padding gets exactly 0
        return weights @ values, weights
