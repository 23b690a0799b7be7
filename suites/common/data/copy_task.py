"""The copy-memory task: remember a few symbols across a gap of random distractors, then reproduce them on cue.

Hochreiter & Schmidhuber 1997 (experiment 2, tasks 2b and 2c) fill the gap between the symbol to remember and its recall with
random distractor symbols: a state the inputs keep perturbing must hold the symbols, so a model that fails at a
long lag fails for want of gradient signal across it, not for want of capacity. Arjovsky et al. 2016 (arXiv
1511.06464) recall several symbols. The amount to remember is fixed while the lag grows. One sequence, for
``symbols`` = 3 and ``lag`` = 8 (digits are symbols, letters distractors, ``.`` blank, ``>`` the cue):

    input   5 2 7 c a f a > . .
    target  - - - - - - - - 5 2 7      (``-`` is ignored by the loss)

Symbol i appears at position i and is due at position i + lag; the cue stands just before the first one.

``gap="blank"`` fills the gap with the blank instead, the task of Arjovsky et al.'s copy problem. With one
symbol it is a latch: an autonomous (input-free) tanh RNN can hold the symbol in one of ``alphabet``
attractors, which Hochreiter & Schmidhuber (section 5) note even random weight guessing finds, so it does not
test long-lag credit assignment; it is kept as a named alternative (``set.gap=blank``).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

IGNORE = -100  # targets the loss ignores (F.cross_entropy's default ignore_index)

#: what fills the gap between the symbols and the cue
GAPS = ("distractors", "blank")


@dataclass(frozen=True)
class CopyTask:
    """Sequences of ``symbols`` random symbols (from ``alphabet``), reproduced ``lag`` steps later."""

    lag: int
    symbols: int = 3
    alphabet: int = 8
    gap: str = "distractors"
    #: distinct distractor tokens drawn uniformly into the gap (gap="distractors")
    distractors: int = 8

    def __post_init__(self):
        if self.lag < self.symbols + 1:
            raise ValueError(
                f"lag {self.lag} must exceed the number of symbols {self.symbols}, so the cue comes after them"
            )
        if self.gap not in GAPS:
            raise ValueError(f"gap {self.gap!r} is not one of {', '.join(GAPS)}")

    @property
    def blank(self) -> int:
        return self.alphabet

    @property
    def cue(self) -> int:
        return self.alphabet + 1

    @property
    def first_distractor(self) -> int:
        return self.alphabet + 2

    @property
    def vocab_size(self) -> int:
        """Symbols, blank and cue, then the distractors (none with a blank gap)."""
        return self.alphabet + 2 + (self.distractors if self.gap == "distractors" else 0)

    @property
    def length(self) -> int:
        return self.lag + self.symbols

    @property
    def chance_accuracy(self) -> float:
        return 1.0 / self.alphabet

    def batch(self, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """(inputs, targets), each (batch_size, lag + symbols) int64; targets are IGNORE off the recall steps."""
        data = torch.randint(0, self.alphabet, (batch_size, self.symbols), generator=generator)
        inputs = torch.full((batch_size, self.length), self.blank, dtype=torch.long)
        inputs[:, : self.symbols] = data
        gap = self.lag - 1 - self.symbols  # positions symbols .. lag-2
        if self.gap == "distractors" and gap > 0:
            inputs[:, self.symbols : self.lag - 1] = self.first_distractor + torch.randint(
                0, self.distractors, (batch_size, gap), generator=generator
            )
        inputs[:, self.lag - 1] = self.cue
        targets = torch.full_like(inputs, IGNORE)
        targets[:, self.lag :] = data
        return inputs, targets
