"""minGRU (Feng et al. 2024, arXiv 2410.01201): a GRU whose gate reads only the input, trained by a parallel scan.

h_t = (1 - z_t) * h_{t-1} + z_t * g(h~_t), with z_t = sigmoid(W_z x_t) and h~_t = W_h x_t: neither depends on
h_{t-1}, so h_t = a_t h_{t-1} + b_t is a linear recurrence whose every state a scan computes at once. As in the
paper's log-space version (their Listing / Appendix B), coefficients and values are taken in log space,
log a_t = -softplus(k_t), log b_t = -softplus(-k_t) + log g(h~_t), with g(x) = x + 0.5 for x >= 0 and sigmoid(x)
below (so that g > 0 and its log exists), and h = exp(a*_t + logcumsumexp(log b - a*)), a* = cumsum(log a): the
training pass has depth O(log T) instead of T dependent steps. Decoding runs the same recurrence one token at a
time with a state of d numbers. The initial state is 0. An output projection maps h back to the residual width.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from ._base import SequenceMixer, mixers


def g(x: torch.Tensor) -> torch.Tensor:
    """Feng et al.'s positive activation of the candidate state: x + 0.5 for x >= 0, sigmoid(x) below."""
    return torch.where(x >= 0, x + 0.5, torch.sigmoid(x))


def log_g(x: torch.Tensor) -> torch.Tensor:
    """log g(x), computed stably: log(relu(x) + 0.5) for x >= 0, -softplus(-x) below."""
    return torch.where(x >= 0, torch.log(F.relu(x) + 0.5), -F.softplus(-x))


def parallel_scan_log(log_a: torch.Tensor, log_b: torch.Tensor) -> torch.Tensor:
    """h_t = a_t h_{t-1} + b_t from h_0 = 0 for every t at once, from log a and log b (B, T, d) -> h (B, T, d).

    h_t = sum_{s <= t} b_s prod_{s < r <= t} a_r, so log h_t = a*_t + logcumsumexp_s(log b_s - a*_s) with
    a*_t = sum_{r <= t} log a_r (Heinsen 2023, arXiv 2311.06281; Feng et al. 2024, Appendix B).
    """
    a_star = torch.cumsum(log_a, dim=1)
    return torch.exp(a_star + torch.logcumsumexp(log_b - a_star, dim=1))


@mixers.register()
class MinGRU(SequenceMixer):
    """minGRU: input-only gates, a log-space parallel scan in training and a d-number state in decoding."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__(d_model, n_heads)
        self.gate_and_candidate = nn.Linear(d_model, 2 * d_model, bias=False)  # W_z and W_h in one matmul
        self.out_proj = nn.Linear(d_model, d_model, bias=False)

    def _gates(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        k, h_tilde = self.gate_and_candidate(x).chunk(2, dim=-1)  # each (..., d)
        return k, h_tilde

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        k, h_tilde = self._gates(x)  # (B, T, d)
        log_a = -F.softplus(k)  # log(1 - z)
        log_b = -F.softplus(-k) + log_g(h_tilde)  # log z + log g(h~)
        return self.out_proj(parallel_scan_log(log_a, log_b))

    def initial_state(self, batch: int, device=None, dtype=None) -> torch.Tensor:
        return torch.zeros(batch, self.d_model, device=device, dtype=dtype)

    def step(self, x: torch.Tensor, state: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        k, h_tilde = self._gates(x)  # (B, d)
        z = torch.sigmoid(k)
        h = (1 - z) * state + z * g(h_tilde)
        return self.out_proj(h), h

    def state_numel(self, context: int = 0) -> int:
        return self.d_model
