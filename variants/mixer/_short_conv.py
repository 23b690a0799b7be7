"""The short causal depthwise convolution that Mamba-2, DeltaNet and Gated DeltaNet put before their recurrence.

Each channel is convolved with its own kernel of ``width`` taps over the current and previous tokens (Mamba,
Gu & Dao 2023, arXiv 2312.00752, section 3.4; Mamba-2, Dao & Gu 2024, section 7.1; DeltaNet, Yang et al. 2024,
section 3.4, and Gated DeltaNet keep it on q, k and v). Decoding keeps the last ``width - 1`` inputs: a state of
(width - 1) x channels numbers per sequence, whatever the context length.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


class ShortConv(nn.Module):
    """x (B, T, channels) -> (B, T, channels): y_t = sum_j w_j * x_{t - width + 1 + j} + bias, zeros before the start."""

    def __init__(self, channels: int, width: int = 4) -> None:
        super().__init__()
        self.width = width
        self.conv = nn.Conv1d(channels, channels, width, groups=channels, padding=width - 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x.transpose(1, 2))[..., : x.shape[1]].transpose(1, 2)

    def initial_state(self, batch: int, device=None, dtype=None) -> torch.Tensor:
        """The previous width - 1 inputs, zeros before the first token: (B, channels, width - 1)."""
        return torch.zeros(batch, self.conv.in_channels, self.width - 1, device=device, dtype=dtype)

    def step(self, x: torch.Tensor, window: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, channels) of one token -> (y (B, channels), the new window)."""
        full = torch.cat([window, x.unsqueeze(-1)], -1)  # (B, channels, width)
        y = (full * self.conv.weight.squeeze(1)).sum(-1) + self.conv.bias
        return y, full[..., 1:].contiguous()  # its own storage: the state's bytes are what it holds

    def state_numel(self) -> int:
        return self.conv.in_channels * (self.width - 1)


def silu_conv(conv: ShortConv, x: torch.Tensor) -> torch.Tensor:
    """SiLU after the convolution, as all three models apply it."""
    return F.silu(conv(x))
