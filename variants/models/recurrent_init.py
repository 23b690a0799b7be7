"""How an Elman RNN's recurrent weight W_hh (H, H) starts: PyTorch's default, the identity, or an orthogonal matrix.

- ``default``: PyTorch's U(-1/sqrt(H), 1/sqrt(H)) for every weight and bias: entries of variance 1/(3H), so the
  largest singular value of W_hh is about 2 sqrt(H / (3H)) = 1.15 at any width and the smallest near 0 (the spread
  of a random square matrix's singular values).
- ``identity``: the IRNN of Le, Jaitly & Hinton 2015 ("A Simple Way to Initialize Recurrent Networks of Rectified
  Linear Units", arXiv 1504.00941): W_hh = I and the recurrent bias 0 (here both of PyTorch's biases, b_ih and
  b_hh, whose sum is the paper's one bias), so that with ReLU units each step copies the previous state and adds
  the input's effect, every singular value 1. Le et al. also draw the non-recurrent weights from a narrow
  Gaussian; here the input weights keep PyTorch's default, so that ``irnn`` differs from ``rnn_relu`` in the
  recurrent weight and the biases alone.
- ``orthogonal``: W_hh a random orthogonal matrix (``torch.nn.init.orthogonal_``: QR of a Gaussian matrix), every
  singular value 1: Saxe, McClelland & Ganguli 2014 ("Exact solutions to the nonlinear dynamics of learning in deep
  linear neural networks", arXiv 1312.6120) show random orthogonal weights keep a deep linear network's learning
  time independent of its depth, and an RNN unrolled over T steps is a depth-T network with one tied weight. The
  biases and input weights keep PyTorch's default.

Only the Elman cells (one recurrent block, variants/models/rnn_cells.py ``gates`` = 1) take a value other than ``default``:
a gated cell's recurrent weight stacks its gates' blocks, which these schemes say nothing about.
"""

from __future__ import annotations

import torch
from torch import nn

from .rnn_cells import RNN_CELLS

#: scheme -> what it sets, for error messages and reports
RECURRENT_INITS: dict[str, str] = {
    "default": "PyTorch's U(-1/sqrt(H), 1/sqrt(H)) recurrent weight",
    "identity": "W_hh = I and biases 0 (IRNN, Le, Jaitly & Hinton 2015, arXiv 1504.00941)",
    "orthogonal": "W_hh a random orthogonal matrix (Saxe, McClelland & Ganguli 2014, arXiv 1312.6120)",
}


def recurrent_init_problem(scheme: str, cell: str) -> str:
    """Why ``scheme`` cannot initialise ``cell``'s recurrent weight ('' when it can)."""
    if scheme not in RECURRENT_INITS:
        choices = ", ".join(RECURRENT_INITS)
        return f"recurrent_init={scheme!r} is not a recurrent-weight initialisation; choose one of {choices}"
    row = RNN_CELLS.get(cell)
    if scheme != "default" and row is not None and row.gates != 1:
        elman = ", ".join(name for name, c in RNN_CELLS.items() if c.gates == 1)
        return (
            f"recurrent_init={scheme!r} applies only to the Elman cells ({elman}), not to the gated cell {cell!r}; "
            "keep recurrent_init='default' for it"
        )
    return ""


@torch.no_grad()
def init_recurrent_weights(rnn: nn.Module, scheme: str, cell: str, n_layers: int) -> None:
    """Set every layer's W_hh (H, H) of the Elman module ``rnn`` as ``scheme`` says; ``default`` leaves PyTorch's
    draw (and draws no random numbers, so default models keep the weights they had before this option existed)."""
    problem = recurrent_init_problem(scheme, cell)
    if problem:
        raise ValueError(problem)
    if scheme == "default":
        return
    for i in range(n_layers):
        weight = getattr(rnn, f"weight_hh_l{i}")  # (H, H)
        if scheme == "identity":
            nn.init.eye_(weight)
            getattr(rnn, f"bias_ih_l{i}").zero_()  # the step's bias is b_ih + b_hh: both 0
            getattr(rnn, f"bias_hh_l{i}").zero_()
        else:
            nn.init.orthogonal_(weight)


def singular_values(weights: list[torch.Tensor]) -> torch.Tensor:
    """Every singular value of every matrix in ``weights`` (each (rows, H)), concatenated, in float64 on the CPU."""
    return torch.cat([torch.linalg.svdvals(w.detach().double().cpu()) for w in weights])
