"""The sequence-mixer protocol and its registry: a causal layer (B, T, d) -> (B, T, d) with a parallel and a stepped form.

A mixer replaces self-attention in a residual block (variants/models/mixer_lm.py). ``forward`` computes every position
at once (training); ``step`` consumes one token and a state and returns the output and the new state
(decoding), and the two must agree (tests/unit/variants/test_mixers.py). ``state_numel`` says how many numbers the state
holds per sequence, which stays fixed as the context grows (a Transformer's KV cache grows by 2 d per token
per layer instead).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from .._registry import Registry

mixers: Registry[type] = Registry("mixer", package="variants.mixer", list_command="bench list variants")


class SequenceMixer(nn.Module):
    """Base class: a causal mixer of width ``d_model`` (heads where it has them) with parallel and stepped forms."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.d_model, self.n_heads = d_model, n_heads

    @classmethod
    def problems(cls, d_model: int, n_heads: int, **options) -> list:
        """Every reason this mixer cannot be built at this width with these options (empty if it can); a mixer that
        takes options (state_size, chunk_size) overrides this, the others refuse any."""
        return [
            f"{key}={value!r} does not apply to {cls.__name__}, which takes no options; leave it unset, or choose "
            "a mixer that has it (mamba2, gla, deltanet, gated_deltanet)."
            for key, value in options.items()
        ]

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # pragma: no cover - every mixer overrides it
        """x (B, T, d) -> y (B, T, d), every position at once; y_t depends on x_1..x_t only."""
        raise NotImplementedError

    def initial_state(self, batch: int, device=None, dtype=None) -> Any:
        """The state before the first token."""
        raise NotImplementedError

    def step(self, x: torch.Tensor, state: Any) -> tuple[torch.Tensor, Any]:
        """x (B, d), the state after x_1..x_{t-1} -> (y_t (B, d), the state after x_t)."""
        raise NotImplementedError

    def step_loop(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, T, d) -> (B, T, d) by ``step``, one token after another (the recurrent form of ``forward``)."""
        state = self.initial_state(x.shape[0], x.device, x.dtype)
        out = []
        for t in range(x.shape[1]):
            y, state = self.step(x[:, t], state)
            out.append(y)
        return torch.stack(out, dim=1)

    def state_numel(self, context: int = 0) -> int:
        """Numbers the decoding state holds per sequence after ``context`` tokens (a recurrence's: constant in it)."""
        raise NotImplementedError

    def sequential_steps(self, length: int) -> int:
        """Steps that must run one after another in ``forward`` over ``length`` tokens (a scan's depth counts as 1)."""
        return 1
