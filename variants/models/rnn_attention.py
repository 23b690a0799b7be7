"""Global attention of an RNN decoder over the encoder's states, scored by any registered scoring.

Luong, Pham & Manning 2015 (arXiv 1508.04025), section 3.1: at target step t a decoder state scores every
source state h_s, a softmax over the real (unpadded) source positions gives the weights a_t, and the
context is c_t = sum_s a_t(s) h_s. The query is the new state h_t in Luong's decoder and the previous
state s_{i-1} in Bahdanau's (variants/models/rnn.py). The score function is the ``scoring`` axis shared with the
Transformer (variants/scoring/), built for the hidden size: ``additive`` v^T tanh(W h_t + U h_s) (Bahdanau,
Cho & Bengio 2014, arXiv 1409.0473), ``dot`` h_t . h_s and ``general`` h_t^T W h_s (Luong et al. 2015).
"""

from __future__ import annotations

import torch
from torch import nn

from ..scoring._base import scorings


class GlobalAttention(nn.Module):
    """Scores queries (B, T, D) against keys (B, S, D); returns contexts (B, T, D) and weights (B, T, S)."""

    def __init__(self, scoring: str, d_model: int):
        super().__init__()
        self.scoring = scorings.get(scoring)(d_model)

    def prepare(self, keys: torch.Tensor) -> torch.Tensor:
        """The keys' share of the score, (B, S, D) -> (B, S, D'): computed once when queries come one at a time."""
        return self.scoring.prepare_keys(keys)

    def forward(
        self,
        query: torch.Tensor,
        keys: torch.Tensor,
        values: torch.Tensor,
        key_padding: torch.Tensor,
        prepared: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """query (B, T, D), keys and values (B, S, D), key_padding (B, S) True at padding; ``prepared``: prepare(keys)."""
        prepared = self.prepare(keys) if prepared is None else prepared
        scores = self.scoring.score_prepared(query, prepared).masked_fill(
            key_padding.unsqueeze(1), float("-inf")
        )  # (B, T, S)
        weights = torch.softmax(scores, dim=-1)  # padding gets exactly 0
        return weights @ values, weights
