"""The fused nn.LSTM's counted FLOPs on a CPU equal those of the same products run as an nn.LSTMCell loop."""

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

import harness.rnn_flops  # noqa: F401  (registers the formulas)


def _loop_flops(x, h0, c0, layers, bidirectional, hidden):
    """fwd+bwd FLOPs of a stacked (bi)LSTM written as cell loops; x (B, T, I), h0/c0 (layers * dirs, B, H)."""
    with FlopCounterMode(display=False) as counter:
        inp, dirs, k = x, (False, True) if bidirectional else (False,), 0
        for _ in range(layers):
            outs = []
            for rev in dirs:
                cell = torch.nn.LSTMCell(inp.shape[-1], hidden)
                state, hs = (h0[k], c0[k]), []
                k += 1
                for t in reversed(range(x.shape[1])) if rev else range(x.shape[1]):
                    state = cell(inp[:, t], state)
                    hs.append(state[0])
                outs.append(torch.stack(hs[::-1] if rev else hs, 1))
            inp = torch.cat(outs, -1)
        inp.sum().backward()
    return counter.get_total_flops()


@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, True)])
def test_the_fused_lstm_counts_the_cell_loops_products(layers, bidirectional):
    torch.manual_seed(0)
    B, T, I, H = 3, 5, 8, 16
    dirs = 2 if bidirectional else 1
    x = torch.randn(B, T, I, requires_grad=True)
    h0 = torch.randn(layers * dirs, B, H, requires_grad=True)  # grads flow into the first step's state as well
    c0 = torch.randn(layers * dirs, B, H, requires_grad=True)
    lstm = torch.nn.LSTM(I, H, num_layers=layers, bidirectional=bidirectional, batch_first=True)
    with FlopCounterMode(display=False) as counter:
        y, _ = lstm(x, (h0, c0))
        y.sum().backward()
    fused = counter.get_total_flops()
    assert fused > 0
    assert fused == _loop_flops(x, h0, c0, layers, bidirectional, H)
