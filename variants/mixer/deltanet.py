"""DeltaNet (Yang et al. 2024, arXiv 2406.06484): linear attention that overwrites by the delta rule, S += beta k (v - S^T k)^T.

Each head's state S (K x V) is corrected towards the new value instead of accumulating, eq. 4:
S_t = (I - beta_t k_t k_t^T) S_{t-1} + beta_t k_t v_t^T, o_t = S_t^T q_t, with beta_t = sigmoid(w_beta . x_t) the
writing strength. As in the paper's architecture (section 3.4): q, k, v from linear maps through a short causal
convolution and SiLU, q and k L2-normalised (so the update is a contraction and the state stays bounded), q
scaled by K^-0.5, the output RMS-normalised per head before the output projection. Training runs the chunked form
(DeltaNet's UT transform, variants/mixer/_chunked.py); decoding carries S and the convolution's window: H K V +
3 (2 H K + H V) numbers per sequence at width 4, constant in the context length.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from ._base import mixers
from ._chunked import gated_delta_chunked, gated_delta_step
from ._heads import CHUNK, NORM_EPS, ChunkedMixer, merge_heads, split_heads
from ._short_conv import ShortConv


@mixers.register()
class DeltaNet(ChunkedMixer):
    """DeltaNet (Yang et al. 2024): the delta rule, a K x V state per head corrected by each token, chunked in training."""

    gated = False

    def __init__(
        self, d_model: int, n_heads: int, state_size: int | None = None, chunk_size: int | None = None
    ) -> None:
        super().__init__(d_model, n_heads)
        self.key_dim = state_size or d_model // n_heads  # K per head
        self.value_dim = d_model // n_heads  # V per head
        self.chunk = chunk_size or CHUNK
        keys = n_heads * self.key_dim
        self.qkv = nn.Linear(d_model, 2 * keys + d_model, bias=False)
        self.conv = ShortConv(2 * keys + d_model)
        self.beta_proj = nn.Linear(d_model, n_heads)  # writing strength per head
        if self.gated:  # Gated DeltaNet's decay, as Mamba-2's: alpha = exp(-exp(A_log) softplus(w_a . x + dt_bias))
            self.decay_proj = nn.Linear(d_model, n_heads, bias=False)
            self.A_log = nn.Parameter(torch.empty(n_heads).uniform_(1, 16).log())
            dt = torch.empty(n_heads).uniform_(math.log(1e-3), math.log(1e-1)).exp()
            self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))  # softplus^-1(dt): dt in [0.001, 0.1]
            self.gate_proj = nn.Linear(d_model, d_model, bias=False)  # the output gate's SiLU(W_g x)
        self.norm = nn.RMSNorm(self.value_dim, eps=NORM_EPS)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)

    def _inputs(self, x: torch.Tensor, conved: torch.Tensor):
        """q, k (normalised), v, beta and the log decay (None without the gate), heads split; x and the convolved
        q k v of the same tokens, (B, T, .) or one token (B, .)."""
        keys = self.n_heads * self.key_dim
        q, k, v = F.silu(conved).split([keys, keys, self.d_model], -1)
        q = F.normalize(split_heads(q, self.n_heads), dim=-1) * self.key_dim**-0.5
        k = F.normalize(split_heads(k, self.n_heads), dim=-1)
        v = split_heads(v, self.n_heads)
        beta = torch.sigmoid(self.beta_proj(x))  # (B, T, H) or (B, H)
        log_alpha = None
        if self.gated:
            log_alpha = -self.A_log.exp() * F.softplus(self.decay_proj(x) + self.dt_bias)  # <= 0
        if x.dim() == 3:
            beta = beta.transpose(1, 2)  # (B, H, T)
            log_alpha = None if log_alpha is None else log_alpha.transpose(1, 2)
        return q, k, v, beta, log_alpha

    def _output(self, x: torch.Tensor, o: torch.Tensor) -> torch.Tensor:
        """o (B, H, T, V) or (B, H, V) -> normalised per head, gated where the model has a gate, projected."""
        o = merge_heads(self.norm(o))
        if self.gated:
            o = o * F.silu(self.gate_proj(x))
        return self.out_proj(o)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v, beta, log_alpha = self._inputs(x, self.conv(self.qkv(x)))
        o, _ = gated_delta_chunked(q, k, v, beta, log_alpha, self.chunk)
        return self._output(x, o)

    def initial_state(self, batch: int, device=None, dtype=None) -> tuple[torch.Tensor, torch.Tensor]:
        S = torch.zeros(batch, self.n_heads, self.key_dim, self.value_dim, device=device, dtype=dtype)
        return self.conv.initial_state(batch, device, dtype), S

    def step(self, x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]):
        window, S = state
        conved, window = self.conv.step(self.qkv(x), window)
        q, k, v, beta, log_alpha = self._inputs(x, conved)
        o, S = gated_delta_step(q, k, v, beta, log_alpha, S)
        return self._output(x, o), (window, S)

    def state_numel(self, context: int = 0) -> int:
        return self.n_heads * self.key_dim * self.value_dim + self.conv.state_numel()
