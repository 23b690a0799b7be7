"""Scoring passkey retrieval: exact match of the key's digits, per length and needle depth, and the loss on the rest.

A sequence counts as retrieved when the argmax of the logits at each of the key's ``digits`` positions is the key's
digit there, every earlier digit given (teacher forcing). That is exactly greedy decoding's exact match: greedy
decoding emits the same digits as long as every earlier one was right, and the first wrong one fails both. It costs
one forward pass per sequence instead of ``digits``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.nn import functional as F

from suites.retrieval_length.passkey import NEEDLE, QUESTION, PasskeyGenerator, distance, needle_start


def exact_match(logits: torch.Tensor, targets: torch.Tensor, digits: int) -> torch.Tensor:
    """(B,) True where the argmax of the last ``digits`` positions of ``logits`` (B, T, V) equals the last ``digits``
    targets (B, T) at every position."""
    predicted = logits[:, -digits:].argmax(-1)  # (B, digits)
    return (predicted == targets[:, -digits:]).all(-1)


def eval_seed(length: int, depth_index: int) -> int:
    """The generator seed of the draws at one (length, depth): the same sequences for every variant and training seed,
    so comparisons between arms are paired on the very same keys and filler."""
    return 1_000_003 * length + depth_index


def filler_targets(length: int, depth: float, digits: int) -> torch.Tensor:
    """(length,) True at the input positions whose target is a filler character: the loss there is a language model's
    on held-out text, the same text at every length (the needle, question and key are left out; their share of a
    sequence shrinks with its length and would move the loss by itself)."""
    start = needle_start(length, depth, digits)
    end = start + len(NEEDLE.format(key="0" * digits))  # first filler character after the needle
    question = length + 1 - digits - len(QUESTION)  # where the question begins in the sequence of length + 1
    is_filler = torch.zeros(length + 1, dtype=torch.bool)
    is_filler[:start] = True
    is_filler[end:question] = True
    return is_filler[1:]  # target t is sequence position t + 1


@dataclass(frozen=True)
class LengthScore:
    """Retrieval at one length: accuracy per needle depth (in the order of ``depths``) and the loss on the filler
    characters (nats per character, summed over ``chars`` of them)."""

    length: int
    depths: tuple[float, ...]
    accuracy: tuple[float, ...]
    distances: tuple[int, ...]
    nll: float
    chars: int
    draws: int

    @property
    def mean_accuracy(self) -> float:
        """Accuracy over every depth (each depth weighs the same)."""
        return sum(self.accuracy) / len(self.accuracy)

    @property
    def text_loss(self) -> float:
        return self.nll / self.chars


@torch.inference_mode()
def score_length(
    model,
    gen: PasskeyGenerator,
    length: int,
    depths: tuple[float, ...],
    draws: int,
    device: str = "cpu",
    batch_tokens: int = 16384,
    autocast=None,
) -> LengthScore:
    """Accuracy of ``model`` at ``length`` over ``draws`` fixed sequences per depth (``eval_seed``); ``autocast``: a
    function returning the context the forward runs in (mixed precision), or None."""
    import contextlib

    per_batch = max(1, batch_tokens // length)
    accuracy, nll, chars = [], 0.0, 0
    for i, depth in enumerate(depths):
        rng = torch.Generator().manual_seed(eval_seed(length, i))
        hits = 0
        for done in range(0, draws, per_batch):
            n = min(per_batch, draws - done)
            batch = gen.batch(n, length, rng, depths=[depth] * n)
            x, y = batch.inputs.to(device), batch.targets.to(device)
            with autocast() if autocast else contextlib.nullcontext():
                logits = model(x).float()  # (n, length, V)
            hits += int(exact_match(logits, y, gen.digits).sum())
            mask = filler_targets(length, depth, gen.digits)  # (length,) True where the target is filler
            nll += float(F.cross_entropy(logits[:, mask].transpose(1, 2), y[:, mask], reduction="sum"))
            chars += n * int(mask.sum())
        accuracy.append(hits / draws)
    return LengthScore(
        length,
        tuple(depths),
        tuple(accuracy),
        tuple(distance(length, d, gen.digits) for d in depths),
        nll,
        chars,
        draws,
    )
