"""Counting floating-point operations with torch.utils.flop_counter.FlopCounterMode.

FlopCounterMode counts the matrix products (mm, bmm, addmm, convolutions and the SDPA operators it
knows) of whatever runs under it; elementwise work (softmax, norms, activations, the optimiser update)
is not counted. It cannot see inside PyTorch's fused CPU attention kernel (which it reports as 0 FLOPs),
so callers count a model built with the ``naive`` kernel, whose FLOPs are those of the attention math:
the full T x S score matrix, masked entries included. The fused nn.LSTM on a CPU is counted through the formulas
of harness/rnn_flops.py; cuDNN's fused RNNs on CUDA are not.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch.utils.flop_counter import FlopCounterMode

import harness.rnn_flops  # noqa: F401  (registers the fused CPU LSTM's formulas: harness/rnn_flops.py)


def count_flops(fn: Callable[[], torch.Tensor], backward: bool = True) -> int:
    """FLOPs of ``fn()`` (and of the backward pass of the scalar it returns, when ``backward``)."""
    with FlopCounterMode(display=False) as counter:
        out = fn()
        if backward:
            out.backward()
    return int(counter.get_total_flops())
