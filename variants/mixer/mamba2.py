"""Mamba-2 (Dao & Gu 2024, arXiv 2405.21060): the SSD layer, a selective state space with one scalar decay per head.

Per head h and channel p, h_t = a_t h_{t-1} + B_t x_t dt_t, y_t = C_t^T h_t + D x_t (eq. 16 and section 7.1), with
a_t = exp(dt_t A), A = -exp(A_log) < 0, dt_t = softplus(w_dt . u_t + dt_bias): a state of N per channel, P = 2d/H
channels per head (expand 2). The block (Figure 6, section 7.1): one input projection gives z, x, B, C and dt; x, B
and C pass a short causal convolution and SiLU; B and C are shared by every head (one group, "multi-value"); the
output is RMS-normalised after the gate SiLU(z) (the gated RMSNorm) and projected. SSD is gated linear attention
with q = C, k = B, v = x dt and one gate per head (variants/mixer/_chunked.py); training runs its chunked form
(SSD section 6), decoding carries the H x N x P state and the convolution window. A_log from log U[1, 16] and dt
from log-uniform [0.001, 0.1] as the authors initialise them; D starts at 1.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from ._base import mixers
from ._chunked import gated_linear_chunked, gated_linear_step
from ._heads import CHUNK, NORM_EPS, ChunkedMixer, heads_problem, merge_heads, option_problems, split_heads
from ._short_conv import ShortConv

#: inner width over model width, and the state size N per channel when the spec leaves it unset
EXPAND, STATE = 2, 64


@mixers.register()
class Mamba2(ChunkedMixer):
    """Mamba-2 (Dao & Gu 2024): the SSD layer, a scalar decay per head over an N x P state, chunked in training."""

    #: N when the spec leaves state_size unset (a fixed size, whatever the width)
    default_state = STATE

    def __init__(
        self, d_model: int, n_heads: int, state_size: int | None = None, chunk_size: int | None = None
    ) -> None:
        super().__init__(d_model, n_heads)
        self.inner = EXPAND * d_model
        self.head_dim = self.inner // n_heads  # P
        self.state = state_size or STATE  # N
        self.chunk = chunk_size or CHUNK
        self.in_proj = nn.Linear(d_model, 2 * self.inner + 2 * self.state + n_heads, bias=False)  # z, x, B, C, dt
        self.conv = ShortConv(self.inner + 2 * self.state)
        self.A_log = nn.Parameter(torch.empty(n_heads).uniform_(1, 16).log())
        dt = torch.empty(n_heads).uniform_(math.log(1e-3), math.log(1e-1)).exp()
        self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))  # softplus^-1(dt)
        self.D = nn.Parameter(torch.ones(n_heads))
        self.norm = nn.RMSNorm(self.inner, eps=NORM_EPS)
        self.out_proj = nn.Linear(self.inner, d_model, bias=False)

    @classmethod
    def problems(cls, d_model: int, n_heads: int, state_size: int | None = None, chunk_size: int | None = None) -> list:
        return heads_problem(EXPAND * d_model, n_heads, "the inner width 2 x d_model") + option_problems(
            cls.__name__, state_size, chunk_size
        )

    def _split(self, u: torch.Tensor):
        """z, xBC (before its convolution), dt of (B, T, d) or one token (B, d)."""
        return self.in_proj(u).split([self.inner, self.inner + 2 * self.state, self.n_heads], -1)

    def _ssd_inputs(self, xbc: torch.Tensor, dt: torch.Tensor):
        """q = C, k = B (each head's copy), v = x dt, the log decay dt A (per head), x in heads."""
        x, b, c = F.silu(xbc).split([self.inner, self.state, self.state], -1)
        dt = F.softplus(dt + self.dt_bias)  # (B, T, H) or (B, H)
        x = split_heads(x, self.n_heads)  # (B, H, T, P) or (B, H, P)
        heads = (-1, self.n_heads) + (-1,) * (b.dim() - 1)
        q, k = (t.unsqueeze(1).expand(*heads) for t in (c, b))  # (B, H, T, N) or (B, H, N)
        dt = dt.transpose(1, 2) if dt.dim() == 3 else dt  # (B, H, T) or (B, H)
        log_a = -(self.A_log.exp()[:, None] if dt.dim() == 3 else self.A_log.exp()) * dt  # dt A <= 0
        return q, k, x * dt.unsqueeze(-1), log_a.unsqueeze(-1), x

    def _output(self, y: torch.Tensor, x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        d = self.D.view(-1, *([1] * (x.dim() - 2)))  # (H, 1, 1) or (H, 1)
        y = merge_heads(y + d * x)
        return self.out_proj(self.norm(y * F.silu(z)))

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        z, xbc, dt = self._split(u)
        q, k, v, log_a, x = self._ssd_inputs(self.conv(xbc), dt)
        y, _ = gated_linear_chunked(q, k, v, log_a, self.chunk)
        return self._output(y, x, z)

    def initial_state(self, batch: int, device=None, dtype=None) -> tuple[torch.Tensor, torch.Tensor]:
        S = torch.zeros(batch, self.n_heads, self.state, self.head_dim, device=device, dtype=dtype)
        return self.conv.initial_state(batch, device, dtype), S

    def step(self, u: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]):
        window, S = state
        z, xbc, dt = self._split(u)
        conved, window = self.conv.step(xbc, window)
        q, k, v, log_a, x = self._ssd_inputs(conved, dt)
        y, S = gated_linear_step(q, k, v, log_a, S)
        return self._output(y, x, z), (window, S)

    def state_numel(self, context: int = 0) -> int:
        return self.n_heads * self.state * self.head_dim + self.conv.state_numel()
