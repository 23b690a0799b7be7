"""Gated linear attention (GLA; Yang et al. 2023, arXiv 2312.06635): linear attention with a data-dependent decay per key.

Each head's state S (K x V) decays channel by channel before each write, eq. 3 (S transposed):
S_t = diag(alpha_t) S_{t-1} + k_t v_t^T, o_t = S_t^T q_t, alpha_t = sigmoid(W_a2 W_a1 x_t + b)^(1/tau), a low-rank
(16) map and tau = 16 so that most gates start near 1 (section 4.1). The layer (section 4.1): q, k, v linear, keys
at half the width (K = d / 2H per head), q scaled by K^-0.5, the output normalised per head (RMSNorm here, as the
authors' library; the paper's GroupNorm is LayerNorm per head) and gated by Swish(W_r x + b_r) before the output
projection. Training runs the chunked form (variants/mixer/_chunked.py, section 3.3); decoding carries S, H K V
numbers per sequence.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from ._base import mixers
from ._chunked import gated_linear_chunked, gated_linear_step
from ._heads import NORM_EPS, ChunkedMixer, merge_heads, split_heads

#: rank of the gate's projection and its temperature (GLA section 4.1)
GATE_RANK, TAU = 16, 16


@mixers.register()
class GLA(ChunkedMixer):
    """Gated linear attention (Yang et al. 2023): a K x V state per head with a data-dependent decay per key channel."""

    #: a decay per key channel makes a chunk's own term a (C, C, K) tensor of factors, so GLA's chunks are half the
    #: other mixers' (the paper's kernel likewise splits each chunk into sub-chunks of 16): measured at recall's
    #: sizes on one CPU thread, a training step takes half the time at C = 16 than at C = 32
    default_chunk = 16

    def __init__(
        self, d_model: int, n_heads: int, state_size: int | None = None, chunk_size: int | None = None
    ) -> None:
        super().__init__(d_model, n_heads)
        self.key_dim = state_size or max(1, d_model // (2 * n_heads))
        self.value_dim = d_model // n_heads
        self.chunk = chunk_size or self.default_chunk
        keys = n_heads * self.key_dim
        self.qkv = nn.Linear(d_model, 2 * keys + d_model, bias=False)
        self.gate_down = nn.Linear(d_model, GATE_RANK, bias=False)
        self.gate_up = nn.Linear(GATE_RANK, keys)
        self.output_gate = nn.Linear(d_model, d_model)
        self.norm = nn.RMSNorm(self.value_dim, eps=NORM_EPS)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)

    def _inputs(self, x: torch.Tensor):
        keys = self.n_heads * self.key_dim
        q, k, v = self.qkv(x).split([keys, keys, self.d_model], -1)
        log_alpha = F.logsigmoid(self.gate_up(self.gate_down(x))) / TAU  # log of sigmoid(.)^(1/tau), <= 0
        q = split_heads(q, self.n_heads) * self.key_dim**-0.5
        return q, split_heads(k, self.n_heads), split_heads(v, self.n_heads), split_heads(log_alpha, self.n_heads)

    def _output(self, x: torch.Tensor, o: torch.Tensor) -> torch.Tensor:
        return self.out_proj(merge_heads(self.norm(o)) * F.silu(self.output_gate(x)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v, log_alpha = self._inputs(x)
        o, _ = gated_linear_chunked(q, k, v, log_alpha, self.chunk)
        return self._output(x, o)

    def initial_state(self, batch: int, device=None, dtype=None) -> torch.Tensor:
        return torch.zeros(batch, self.n_heads, self.key_dim, self.value_dim, device=device, dtype=dtype)

    def step(self, x: torch.Tensor, S: torch.Tensor):
        q, k, v, log_alpha = self._inputs(x)
        o, S = gated_linear_step(q, k, v, log_alpha, S)
        return self._output(x, o), S

    def state_numel(self, context: int = 0) -> int:
        return self.n_heads * self.key_dim * self.value_dim
