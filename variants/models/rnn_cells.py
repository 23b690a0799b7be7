"""The recurrent cells of ``torch.nn``, one row each: the one table every recurrent model builds from.

The Elman RNN (Elman 1990) with tanh, or with ReLU (Le et al. 2015, arXiv 1504.00941), the GRU (Cho et al.
2014, arXiv 1406.1078) and the LSTM (Hochreiter & Schmidhuber 1997). Each row names the multi-step module
(fused: cuDNN on CUDA, oneDNN or ATen's loop on CPU), its single-step cell (same weight layout and gate
order), the nonlinearity an Elman row passes, and how many gate blocks the recurrent weight stacks.
Models take the rows they support: the recurrent LM all four (variants/models/recurrent.py), the encoder-decoder
rnn, gru and lstm (variants/models/rnn.py), one sequence layer lstm and gru (variants/models/sequence_layer.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torch import nn


@dataclass(frozen=True)
class RecurrentCell:
    """One recurrent cell: the modules that run it and the shape of its recurrent weight."""

    name: str
    #: the multi-step module (nn.RNN, nn.GRU, nn.LSTM)
    module: type
    #: the single-step cell with the same weights (nn.RNNCell, nn.GRUCell, nn.LSTMCell)
    step: type
    #: "tanh" or "relu" for an Elman RNN; "" for a gated cell, which takes no such argument
    nonlinearity: str
    #: blocks stacked in the recurrent weight, (gates * H, H): 1 Elman, 3 GRU, 4 LSTM
    gates: int

    @property
    def options(self) -> dict[str, Any]:
        """Keyword arguments the cell's modules need beyond sizes: an Elman RNN's nonlinearity."""
        return {"nonlinearity": self.nonlinearity} if self.nonlinearity else {}


#: cell name -> its row; "rnn" is the tanh Elman RNN
RNN_CELLS: dict[str, RecurrentCell] = {
    c.name: c
    for c in (
        RecurrentCell("rnn", nn.RNN, nn.RNNCell, "tanh", 1),
        RecurrentCell("rnn_relu", nn.RNN, nn.RNNCell, "relu", 1),
        RecurrentCell("gru", nn.GRU, nn.GRUCell, "", 3),
        RecurrentCell("lstm", nn.LSTM, nn.LSTMCell, "", 4),
    )
}
