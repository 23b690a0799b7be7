"""One sequence layer at a given width, for comparing what recurrence and attention cost on the same hardware.

A recurrent layer is an LSTM (Hochreiter & Schmidhuber 1997) or a GRU (Cho et al. 2014, arXiv 1406.1078)
of width d (input and hidden size d), run either by the library's multi-step module (``nn.LSTM``/``nn.GRU``:
cuDNN on CUDA, oneDNN or ATen's own loop on CPU) or as a Python loop over ``nn.LSTMCell``/``nn.GRUCell``,
one call per token (the ``loop`` preset). Both hold the same weights, so either can check the other. Its
counterpart is one Transformer block (variants/models/transformer.py: Pre-LN attention and a 4d feed-forward
layer, causal, no position encoding) built from a TransformerSpec. Vaswani et al. 2017 (arXiv 1706.03762,
Table 1): a recurrent layer has O(n) sequential operations per sequence, self-attention O(1).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ..spec import FamilySpec, TransformerSpec
from .rnn_cells import RNN_CELLS

#: the rows of variants/models/rnn_cells.py one layer is built from (multi-step module and single-step cell of each)
LAYER_CELLS = ("lstm", "gru")
#: how a recurrent layer runs its steps
RECURRENCES = ("fused", "loop")


@dataclass(frozen=True)
class RecurrentLayerSpec(FamilySpec):
    """One recurrent layer of width ``d_model`` and how its steps run (``fused`` module or Python ``loop``)."""

    family = "recurrent_layer"

    cell: str = "lstm"
    d_model: int = 256
    recurrence: str = "fused"

    def problems(self, device: str = "cpu", dtype: torch.dtype = torch.float32) -> list[str]:
        """Every reason this spec cannot be built and run (empty if it can)."""
        reasons = []
        if self.cell not in LAYER_CELLS:
            reasons.append(
                f"Unknown recurrent cell '{self.cell}' for one layer; choose one of {', '.join(LAYER_CELLS)}."
            )
        if self.recurrence not in RECURRENCES:
            reasons.append(f"Unknown recurrence '{self.recurrence}'; choose one of {', '.join(RECURRENCES)}.")
        if self.d_model < 1:
            reasons.append(f"d_model must be at least 1, not {self.d_model}")
        return reasons


class RecurrentLayer(nn.Module):
    """x (B, T, d) -> hidden states (B, T, d) of one LSTM or GRU layer, batch first, zero initial state.

    ``step_loop`` runs the same weights one token at a time through the cell module, each step waiting for
    the previous one's state: the recurrence as written, without the library's fusion.
    """

    def __init__(self, spec: RecurrentLayerSpec):
        super().__init__()
        row = RNN_CELLS[spec.cell]
        self.gates = row.gates
        self.spec = spec
        self.rnn = row.module(spec.d_model, spec.d_model, batch_first=True, **row.options)
        self.cell = row.step(spec.d_model, spec.d_model, **row.options)
        # one set of weights: the cell's parameters are the multi-step module's (same layout and gate order)
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            setattr(self.cell, name, getattr(self.rnn, f"{name}_l0"))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.spec.recurrence == "loop":
            return self.step_loop(x)
        return self.rnn(x)[0]

    def step_loop(self, x: torch.Tensor) -> torch.Tensor:
        state = None
        outputs = []
        for t in range(x.shape[1]):  # T dependent steps
            state = self.cell(x[:, t], state)  # LSTM: (h, c); GRU: h
            outputs.append(state[0] if isinstance(state, tuple) else state)
        return torch.stack(outputs, dim=1)  # (B, T, d)

    def sequential_steps(self, length: int) -> int:
        """Steps that must run one after another in a forward pass over ``length`` tokens: one per token."""
        return length


class AttentionLayer(nn.Module):
    """x (B, T, d) -> (B, T, d): one causal Transformer block of the spec (attention + feed-forward)."""

    def __init__(self, spec: TransformerSpec):
        super().__init__()
        from ..kernel._base import kernels
        from ..position._base import positions
        from .transformer import Block

        self.spec = spec
        position = positions.get(spec.position)(spec.d_model, spec.n_heads, spec.head_dim, spec.max_len)
        self.block = Block(spec, position, kernels.get(spec.kernel))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.block(x)[0]

    def sequential_steps(self, length: int) -> int:
        """Every position is computed at once: the steps in sequence do not grow with the length."""
        return 1


def build_layer(spec) -> nn.Module:
    """The layer a RecurrentLayerSpec or a (one-block) TransformerSpec describes."""
    if isinstance(spec, RecurrentLayerSpec):
        return RecurrentLayer(spec)
    return AttentionLayer(spec)


def num_parameters(layer: nn.Module) -> int:
    """Trainable parameters, each shared tensor counted once (the step cell shares the module's)."""
    return sum(p.numel() for p in {id(p): p for p in layer.parameters() if p.requires_grad}.values())
