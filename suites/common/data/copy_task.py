"""The copy-memory task: remember a few symbols across a gap of blanks, then reproduce them on cue.

Hochreiter & Schmidhuber 1997 (experiment 2) and Arjovsky et al. 2016 (arXiv 1511.06464) use it to test
long-term memory; the amount to remember is fixed while the lag grows, so a model that fails at a long
lag fails for want of gradient signal across it, not of capacity. One sequence, for ``symbols`` = 3 and
``lag`` = 8 (digits are symbols, ``.`` is blank, ``>`` the cue):

    input   5 2 7 . . . . > . .
    target  - - - - - - - - 5 2 7      (``-`` is ignored by the loss)

Symbol i appears at position i and is due at position i + lag; the cue stands just before the first one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

import torch

IGNORE = -100  # targets the loss ignores (F.cross_entropy's default ignore_index)


@dataclass(frozen=True)
class CopyTask:
    """Sequences of ``symbols`` random symbols (from ``alphabet``), reproduced ``lag`` steps later."""

    lag: int
    symbols: int = 3
    alphabet: int = 8

    def __post_init__(self):
        if self.lag < self.symbols + 1:
            raise ValueError(f"lag {self.lag} must exceed the number of symbols {self.symbols}, so the cue comes after them")

    @property
    def blank(self) -> int:
        return self.alphabet

    @property
    def cue(self) -> int:
        return self.alphabet + 1

    @property
    def vocab_size(self) -> int:
        return self.alphabet + 2

    @property
    def length(self) -> int:
        return self.lag + self.symbols

    @property
    def chance_accuracy(self) -> float:
        return 1.0 / self.alphabet

    def batch(self, batch_size: int, generator: torch.Generator) -> Tuple[torch.Tensor, torch.Tensor]:
        """(inputs, targets), each (batch_size, lag + symbols) int64; targets are IGNORE off the recall steps."""
        data = torch.randint(0, self.alphabet, (batch_size, self.symbols), generator=generator)
        inputs = torch.full((batch_size, self.length), self.blank, dtype=torch.long)
        inputs[:, : self.symbols] = data
        inputs[:, self.lag - 1] = self.cue
        targets = torch.full_like(inputs, IGNORE)
        targets[:, self.lag :] = data
        return inputs, targets
