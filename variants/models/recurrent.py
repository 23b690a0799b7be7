"""Recurrent sequence models: Elman RNNs (tanh, ReLU), the GRU and the LSTM over token embeddings.

The four cells of ``torch.nn``: the Elman RNN (Elman 1990) with tanh or ReLU (Le et al. 2015, arXiv
1504.00941), the GRU (Cho et al. 2014, arXiv 1406.1078) and the LSTM (Hochreiter & Schmidhuber 1997).
A RecurrentSpec has one field per axis like TransformerSpec, so the same preset expressions select
them (``rnn``, ``rnn_relu``, ``gru``, ``lstm``; ``irnn`` and ``rnn_orthogonal``: an Elman cell whose recurrent
weight starts as the identity or an orthogonal matrix, variants/models/recurrent_init.py). Training runs the fused
multi-step module; ``step_states`` runs it one step at a time so the hidden state of every step is a tensor of its
own whose gradient can be read (Pascanu et al. 2013 measure exactly that gradient, dL/dh_k).

Gate biases start as ``chrono_t_max`` says. 0: the LSTM's forget bias is 1 (Gers et al. 2000; Jozefowicz et
al. 2015) and the GRU keeps PyTorch's default. T > 1: the chrono initialisation of Tallec & Ollivier 2018
("Can recurrent neural networks warp time?", ICLR, arXiv 1804.11188): each unit's forget-gate bias (the GRU's
update gate, which in PyTorch's h' = (1 - z) n + z h keeps the old state) is log(u), u ~ U(1, T - 1), so the
units' memory time constants 1 / (1 - sigmoid(b)) = 1 + u spread evenly over 2 .. T; the LSTM's input-gate
bias is -b. A constant forget bias 1 keeps sigmoid(1) = 0.73 of the cell per step, 0.73^50 ~ 1.6e-7 after 50.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from ..spec import FamilySpec
from .recurrent_init import init_recurrent_weights, recurrent_init_problem, singular_values
from .rnn_cells import RNN_CELLS


@dataclass(frozen=True)
class RecurrentSpec(FamilySpec):
    """A recurrent model of tokens: embedding -> recurrent layers -> linear read-out per step."""

    family = "recurrent"

    vocab_size: int = 256
    cell: str = "lstm"
    d_hidden: int = 128
    #: embedding size; None = d_hidden
    d_embed: int | None = None
    n_layers: int = 1
    dropout: float = 0.0
    #: gate-bias initialisation: 0 = forget bias 1 (LSTM) / PyTorch's default (GRU); T > 1 = chrono with T_max = T
    chrono_t_max: int = 0
    #: an Elman cell's recurrent weight (variants/models/recurrent_init.py): "default" (PyTorch's uniform draw), "identity"
    #: (IRNN, Le et al. 2015) or "orthogonal" (Saxe et al. 2014)
    recurrent_init: str = "default"

    #: added after results were stored: left out of to_dict at its default, so earlier jobs keep their hash
    late_defaults: ClassVar[dict[str, Any]] = {"recurrent_init": "default"}

    def problems(self, device: str = "cpu", dtype: torch.dtype = torch.float32) -> list[str]:
        """Every reason this spec cannot be built and run (empty if it can)."""
        reasons = []
        if self.cell not in RNN_CELLS:
            reasons.append(f"Unknown recurrent cell '{self.cell}'; choose one of {', '.join(RNN_CELLS)}.")
        for name in ("vocab_size", "d_hidden", "n_layers"):
            if getattr(self, name) < 1:
                reasons.append(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.chrono_t_max == 1 or self.chrono_t_max < 0:
            reasons.append(f"chrono_t_max must be 0 (no chrono initialisation) or at least 2, not {self.chrono_t_max}")
        if bad_init := recurrent_init_problem(self.recurrent_init, self.cell):
            reasons.append(bad_init)
        return reasons


class RecurrentLM(nn.Module):
    """tokens (B, T) -> logits (B, T, V) through a recurrent stack (batch-first)."""

    def __init__(self, spec: RecurrentSpec):
        super().__init__()
        self.spec = spec
        cell = RNN_CELLS[spec.cell]
        self.gates = cell.gates
        d_embed = spec.d_embed or spec.d_hidden
        self.embed = nn.Embedding(spec.vocab_size, d_embed)
        self.rnn = cell.module(
            d_embed,
            spec.d_hidden,
            num_layers=spec.n_layers,
            batch_first=True,
            dropout=spec.dropout if spec.n_layers > 1 else 0.0,
            **cell.options,
        )
        self.head = nn.Linear(spec.d_hidden, spec.vocab_size)
        # Zaremba et al. 2014 (and PyTorch's word-language-model example) draw embeddings from U(-0.1, 0.1):
        # inputs then barely perturb the recurrence at initialisation (pre-activation variance ~1e-3 from
        # the input), so the recurrent weight alone decides whether gradients vanish or explode.
        nn.init.uniform_(self.embed.weight, -0.1, 0.1)
        init_gate_biases(self.rnn, spec)
        # last, so that a default model draws the random numbers it drew before recurrent_init existed
        init_recurrent_weights(self.rnn, spec.recurrent_init, spec.cell, spec.n_layers)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.rnn(self.embed(tokens))  # (B, T, H)
        return self.head(out)

    def step_states(self, tokens: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """(logits of the last step (B, V), hidden state h_k of every step k, each (layers, B, H)).

        ``torch.autograd.grad(loss, hidden)`` then gives the total dL/dh_k through every later step. The
        read-out takes the last state itself so that h_{T-1} is on the loss path too.
        """
        x = self.embed(tokens)  # (B, T, E)
        state = None
        hidden: list[torch.Tensor] = []
        for t in range(tokens.shape[1]):
            _, state = self.rnn(x[:, t : t + 1], state)
            hidden.append(state[0] if isinstance(state, tuple) else state)  # LSTM state is (h, c)
        return self.head(hidden[-1][-1]), hidden

    def recurrent_weights(self) -> list[torch.Tensor]:
        """The recurrent weight of each layer, (gates * H, H)."""
        return [getattr(self.rnn, f"weight_hh_l{i}") for i in range(self.spec.n_layers)]

    def recurrent_singular_values(self) -> torch.Tensor:
        """Every singular value of every layer's recurrent weight (a gated cell's gate blocks stacked, (gates * H, H)):
        n_layers * H values, float64 on the CPU."""
        return singular_values(self.recurrent_weights())

    @torch.no_grad()
    def set_spectral_radius(self, radius: float) -> None:
        """Rescale each gate's block of every recurrent weight to spectral radius ``radius``."""
        for weight in self.recurrent_weights():
            for block in weight.view(self.gates, self.spec.d_hidden, self.spec.d_hidden):
                block.mul_(radius / spectral_radius(block))

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters() if p.requires_grad)


@torch.no_grad()
def init_gate_biases(rnn: nn.Module, spec: RecurrentSpec) -> None:
    """The LSTM's forget (and input) gate biases, or the GRU's update gate's, as ``spec.chrono_t_max`` says.

    PyTorch stacks the gates' biases in blocks of H: LSTM (input, forget, cell, output), GRU (reset, update,
    new); the bias is b_ih + b_hh, so b_ih carries the value and b_hh's block is zeroed.
    """
    H, T = spec.d_hidden, spec.chrono_t_max
    for i in range(spec.n_layers):
        b_ih, b_hh = getattr(rnn, f"bias_ih_l{i}"), getattr(rnn, f"bias_hh_l{i}")
        if spec.cell == "lstm":
            forget = torch.log(torch.empty(H).uniform_(1.0, T - 1.0)) if T else torch.ones(H)
            b_ih[H : 2 * H] = forget
            b_hh[H : 2 * H] = 0.0
            if T:
                b_ih[:H] = -forget
                b_hh[:H] = 0.0
        elif spec.cell == "gru" and T:
            b_ih[H : 2 * H] = torch.log(torch.empty(H).uniform_(1.0, T - 1.0))
            b_hh[H : 2 * H] = 0.0


def spectral_radius(matrix: torch.Tensor) -> float:
    """Largest absolute eigenvalue of a square matrix."""
    return float(torch.linalg.eigvals(matrix.detach().double()).abs().max())


def build(spec: RecurrentSpec) -> RecurrentLM:
    """The model a spec describes."""
    return RecurrentLM(spec)
