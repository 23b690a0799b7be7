"""FLOP formulas for the fused recurrent operator torch.utils.flop_counter has none for: oneDNN's LSTM layer on a CPU.

On a CPU, nn.LSTM over an unpacked batch runs ``aten.mkldnn_rnn_layer`` (and its backward), which the counter
reports as 0 FLOPs; every other recurrent path on a CPU (packed sequences, nn.GRU, nn.RNN, the cells) decomposes
into ``mm``/``addmm`` it counts. The formulas are those of the products the layer does, the same as the cell loop's:
forward, for each of the T x B steps (``batch_sizes`` sums them for a packed input), x_t W_ih^T and h_(t-1) W_hh^T
with W_ih (G H, I) and W_hh (G H, H), 2 x (G H I + G H H) FLOPs; backward, twice that (the gradients of the inputs
and of the weights), as the counter's own rule for a linear layer. tests/unit/harness/test_rnn_flops.py pins the
fused count to the counted nn.LSTMCell loop. On CUDA (cuDNN's fused RNN) no formula is registered: the counter
still reports 0 there, and callers say so.
"""

from __future__ import annotations

import math

import torch
from torch.utils.flop_counter import register_flop_formula

aten = torch.ops.aten


def _steps(input_shape, batch_sizes) -> int:
    """Time steps x batch rows the layer ran: the packed batch sizes' sum, else T x B of the input."""
    if batch_sizes:
        return int(sum(batch_sizes))
    return int(math.prod(input_shape[:2]))


def _products(w_ih_shape, w_hh_shape) -> int:
    """Multiply-adds of one step of one row: W_ih (G H, I) and W_hh (G H, H)."""
    return int(math.prod(w_ih_shape) + math.prod(w_hh_shape))


@register_flop_formula(aten.mkldnn_rnn_layer)
def mkldnn_rnn_layer_flop(input_shape, w_ih_shape, w_hh_shape, *args, out_shape=None, **kwargs) -> int:
    """Forward: 2 x steps x (G H I + G H H)."""
    batch_sizes = args[5] if len(args) > 5 else kwargs.get("batch_sizes")
    return 2 * _steps(input_shape, batch_sizes) * _products(w_ih_shape, w_hh_shape)


@register_flop_formula(aten.mkldnn_rnn_layer_backward)
def mkldnn_rnn_layer_backward_flop(input_shape, w_ih_shape, w_hh_shape, *args, out_shape=None, **kwargs) -> int:
    """Backward: the gradients of the inputs and of the weights, twice the forward's products."""
    batch_sizes = args[17] if len(args) > 17 else kwargs.get("batch_sizes")
    return 4 * _steps(input_shape, batch_sizes) * _products(w_ih_shape, w_hh_shape)
