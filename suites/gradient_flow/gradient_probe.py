"""How far the loss's gradient reaches back: ||dL/dh_k|| for every step k of a sequence.

Pascanu, Mikolov & Bengio 2013 (arXiv 1211.5063): the gradient of a loss at step T with respect to the
hidden state at step k is a product of T - k Jacobians, so it shrinks or grows exponentially with the
distance T - k unless the model has a path that avoids the product (the LSTM's cell, attention).
The loss here is the cross-entropy of the last step alone, so distance is unambiguous. For a recurrent
model h_k is the state of every layer after step k; for a Transformer it is the input of the first
block at position k (embedding plus position), the representation every later layer reads.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


def hidden_gradient_norms(model: nn.Module, inputs: torch.Tensor, last_target: torch.Tensor) -> torch.Tensor:
    """(T,) mean over the batch of ||dL/dh_k||, L = cross-entropy of the last step, for k = 0 .. T-1."""
    if hasattr(model, "step_states"):  # a recurrent model, stepped so each h_k is its own tensor
        logits, hidden = model.step_states(inputs)  # (B, V), T x (layers, B, H)
        loss = F.cross_entropy(logits, last_target)
        grads = torch.autograd.grad(loss, hidden)
        per_seq = torch.stack([g.transpose(0, 1).flatten(1).norm(dim=1) for g in grads])  # (T, B)
        return per_seq.mean(dim=1).detach()
    captured = []
    handle = model.drop.register_forward_hook(lambda module, args, out: captured.append(out))
    try:
        logits = model(inputs)[:, -1]  # (B, V)
    finally:
        handle.remove()
    loss = F.cross_entropy(logits, last_target)
    (grad,) = torch.autograd.grad(loss, captured[0])  # (B, T, D)
    return grad.norm(dim=2).mean(dim=0).detach()


def by_distance(norms: torch.Tensor) -> torch.Tensor:
    """(T,) norms of k = 0 .. T-1 re-indexed by the distance d = T - 1 - k from the loss's step."""
    return norms.flip(0)


def reach(norms: torch.Tensor, distance: int) -> float:
    """||dL/dh|| at ``distance`` steps before the loss over its value one step before (d = 1).

    Not over d = 0: there a Transformer's loss reads its own position through the residual stream, a
    path no earlier position shares, so d = 0 measures that path rather than the decay with distance.
    """
    d = by_distance(norms)
    return float(d[distance] / d[1])
