"""Passkey sequences (Mohtashami & Jaggi 2023, arXiv 2305.16300): a key hidden at a declared depth of filler text.

One sequence of ``length + 1`` characters: ``filler[:k] + needle + filler[k:] + question + key``, where the needle
is ``" the pass key is 48152. "``, the question ``" the pass key is "`` and the key five random digits; the model
reads the first ``length`` characters and must predict the last five (the key) from the needle. ``k``, the filler
characters before the needle, is ``round(depth x n_filler)``: depth 0 puts the needle first, depth 1 right before
the question. The filler is a contiguous window of the corpus's training split (Mohtashami & Jaggi repeat "The grass
is green. The sky is blue. ..."; here the suite's own text, so nothing is downloaded and the filler is not a
repeated sentence a model could learn to skip). The needle and question are shorter than the paper's ("The pass key
is 48152. Remember it. 48152 is the pass key." / "What is the pass key? The pass key is") so that a sequence of a
small model's training length still holds filler around the needle.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import torch

from suites.common.data.char_lm import CharLMData, char_lm_data
from suites.common.data.text import CharVocab

#: what the key is hidden in and asked by: ``{key}`` is replaced by the digits
NEEDLE = " the pass key is {key}. "
QUESTION = " the pass key is "
#: digits per key (Mohtashami & Jaggi: 5-digit numbers)
KEY_DIGITS = 5


def overhead(digits: int = KEY_DIGITS) -> int:
    """Characters of a sequence that are not filler: needle, question and answer (46 for 5 digits)."""
    return len(NEEDLE.format(key="0" * digits)) + len(QUESTION) + digits


def needed_chars() -> str:
    """The characters the corpus's vocabulary must hold for the needle, question and keys."""
    return "".join(sorted(set(NEEDLE.replace("{key}", "") + QUESTION + "0123456789")))


def needle_start(length: int, depth: float, digits: int = KEY_DIGITS) -> int:
    """Where the needle begins in a sequence of ``length`` inputs: after round(depth x filler) filler characters."""
    filler = length + 1 - overhead(digits)
    return int(round(depth * filler))


def key_offset(digits: int = KEY_DIGITS) -> int:
    """The position of the key's first digit within the needle."""
    return NEEDLE.index("{key}")


def distance(length: int, depth: float, digits: int = KEY_DIGITS) -> int:
    """Positions from the needle's first key digit to the last input (where the answer's first digit is predicted):
    how far back the model must reach."""
    return (length - 1) - (needle_start(length, depth, digits) + key_offset(digits))


@dataclass(frozen=True)
class Batch:
    """Inputs (B, length) and their next-character targets (B, length); the key is the last ``digits`` targets."""

    inputs: torch.Tensor
    targets: torch.Tensor
    keys: tuple[str, ...]
    depths: tuple[float, ...]


@dataclass(frozen=True)
class PasskeyText:
    """A corpus's splits encoded over its characters plus those the needle, question and keys need (the World English
    Bible has no digits: they are added at the end of the vocabulary, ids the corpus never uses)."""

    vocab: CharVocab
    train_ids: torch.Tensor
    heldout_ids: torch.Tensor
    #: the characters added to the corpus's own
    added: str
    #: the corpus's own name, split and n-gram facts (suites/common/data/char_lm.py)
    corpus: CharLMData


@functools.lru_cache(maxsize=4)
def passkey_text(source: str | None, heldout_fraction: float) -> PasskeyText:
    """The corpus ``data=`` (pydoc, bible or a file) re-encoded over its characters and the task's."""
    data = char_lm_data(source, heldout_fraction)
    added = "".join(sorted(set(needed_chars()) - set(data.vocab.chars)))
    vocab = CharVocab("".join(sorted(data.vocab.chars + added)))
    # old id -> new id (0, the unseen character, stays 0): one gather instead of re-encoding the text
    table = torch.tensor([0] + [vocab.chars.index(c) + 1 for c in data.vocab.chars])
    return PasskeyText(vocab, table[data.train_ids], table[data.heldout_ids], added, data)


class PasskeyGenerator:
    """Draws passkey sequences over ``vocab`` with filler from ``filler_ids`` (one split's ids, 1-D)."""

    def __init__(self, vocab: CharVocab, filler_ids: torch.Tensor, digits: int = KEY_DIGITS) -> None:
        self.filler_ids = filler_ids
        self.digits = digits
        before, after = NEEDLE.split("{key}")
        self.before, self.after = vocab.encode(before), vocab.encode(after)
        self.question = vocab.encode(QUESTION)
        self.digit_ids = vocab.encode("0123456789")  # (10,) id of each digit

    def filler_chars(self, length: int) -> int:
        """Filler characters in a sequence of ``length`` inputs."""
        return length + 1 - overhead(self.digits)

    def sequence(self, length: int, depth: float, key: torch.Tensor, start: int) -> torch.Tensor:
        """One sequence of ``length + 1`` ids: filler from ``start`` of ``filler_ids``, the needle at ``depth``,
        ``key`` (digits,) as digit values 0-9."""
        n = self.filler_chars(length)
        filler = self.filler_ids[start : start + n]
        k = needle_start(length, depth, self.digits)
        key_ids = self.digit_ids[key]
        return torch.cat([filler[:k], self.before, key_ids, self.after, filler[k:], self.question, key_ids])

    def batch(self, size: int, length: int, gen: torch.Generator, depths: list[float] | None = None) -> Batch:
        """``size`` sequences of ``length`` inputs; depths uniform in [0, 1] unless given (one per sequence), keys
        uniform over every ``digits``-digit string (leading zeros included), filler a random window of the split."""
        n = self.filler_chars(length)
        if n < 0:
            raise ValueError(
                f"length {length} cannot hold the needle and question ({overhead(self.digits)} characters)"
            )
        if depths is None:
            depths = torch.rand(size, generator=gen).tolist()
        keys = torch.randint(0, 10, (size, self.digits), generator=gen)  # (B, digits)
        starts = torch.randint(0, self.filler_ids.numel() - n, (size,), generator=gen).tolist()
        seqs = torch.stack([self.sequence(length, float(d), k, s) for d, k, s in zip(depths, keys, starts)])
        text = tuple("".join(map(str, k.tolist())) for k in keys)
        return Batch(seqs[:, :-1], seqs[:, 1:], text, tuple(float(d) for d in depths))
