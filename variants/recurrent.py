"""Recurrent sequence models: Elman RNNs (tanh, ReLU), the GRU and the LSTM over token embeddings.

The four cells of ``torch.nn``: the Elman RNN (Elman 1990) with tanh or ReLU (Le et al. 2015, arXiv
1504.00941), the GRU (Cho et al. 2014, arXiv 1406.1078) and the LSTM (Hochreiter & Schmidhuber 1997).
A RecurrentSpec has one field per axis like TransformerSpec, so the same preset expressions select
them (``rnn``, ``rnn_relu``, ``gru``, ``lstm``). Training runs the fused multi-step module; ``step_states`` runs it one
step at a time so the hidden state of every step is a tensor of its own whose gradient can be read
(Pascanu et al. 2013 measure exactly that gradient, dL/dh_k).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

import torch
from torch import nn

from .rnn_cells import RNN_CELLS
from .spec import FamilySpec


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

    def problems(self, device: str = "cpu", dtype: torch.dtype = torch.float32) -> List[str]:
        """Every reason this spec cannot be built and run (empty if it can)."""
        reasons = []
        if self.cell not in RNN_CELLS:
            reasons.append(f"Unknown recurrent cell '{self.cell}'; choose one of {', '.join(RNN_CELLS)}.")
        for name in ("vocab_size", "d_hidden", "n_layers"):
            if getattr(self, name) < 1:
                reasons.append(f"{name} must be at least 1, not {getattr(self, name)}")
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
        self.rnn = cell.module(d_embed, spec.d_hidden, num_layers=spec.n_layers, batch_first=True,
                               dropout=spec.dropout if spec.n_layers > 1 else 0.0, **cell.options)
        self.head = nn.Linear(spec.d_hidden, spec.vocab_size)
        # Zaremba et al. 2014 (and PyTorch's word-language-model example) draw embeddings from U(-0.1, 0.1):
        # inputs then barely perturb the recurrence at initialisation (pre-activation variance ~1e-3 from
        # the input), so the recurrent weight alone decides whether gradients vanish or explode.
        nn.init.uniform_(self.embed.weight, -0.1, 0.1)
        if spec.cell == "lstm":  # forget gates start open (Gers et al. 2000; Jozefowicz et al. 2015)
            with torch.no_grad():
                for i in range(spec.n_layers):
                    getattr(self.rnn, f"bias_ih_l{i}")[spec.d_hidden : 2 * spec.d_hidden].fill_(1.0)
                    getattr(self.rnn, f"bias_hh_l{i}")[spec.d_hidden : 2 * spec.d_hidden].zero_()

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.rnn(self.embed(tokens))  # (B, T, H)
        return self.head(out)

    def step_states(self, tokens: torch.Tensor) -> Tuple[torch.Tensor, List[torch.Tensor]]:
        """(logits of the last step (B, V), hidden state h_k of every step k, each (layers, B, H)).

        ``torch.autograd.grad(loss, hidden)`` then gives the total dL/dh_k through every later step. The
        read-out takes the last state itself so that h_{T-1} is on the loss path too.
        """
        x = self.embed(tokens)  # (B, T, E)
        state = None
        hidden: List[torch.Tensor] = []
        for t in range(tokens.shape[1]):
            _, state = self.rnn(x[:, t : t + 1], state)
            hidden.append(state[0] if isinstance(state, tuple) else state)  # LSTM state is (h, c)
        return self.head(hidden[-1][-1]), hidden

    def recurrent_weights(self) -> List[torch.Tensor]:
        """The recurrent weight of each layer, (gates * H, H)."""
        return [getattr(self.rnn, f"weight_hh_l{i}") for i in range(self.spec.n_layers)]

    @torch.no_grad()
    def set_spectral_radius(self, radius: float) -> None:
        """Rescale each gate's block of every recurrent weight to spectral radius ``radius``."""
        for weight in self.recurrent_weights():
            for block in weight.view(self.gates, self.spec.d_hidden, self.spec.d_hidden):
                block.mul_(radius / spectral_radius(block))

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters() if p.requires_grad)


def spectral_radius(matrix: torch.Tensor) -> float:
    """Largest absolute eigenvalue of a square matrix."""
    return float(torch.linalg.eigvals(matrix.detach().double()).abs().max())


def build(spec: RecurrentSpec) -> RecurrentLM:
    """The model a spec describes."""
    return RecurrentLM(spec)
