"""Parts of a profile that several suites share: a suite's Profile lists the parts it has among its bases.

A part declares its fields once, with their rules and meaning; a suite re-declares a field only to give it
another default (its quick profile's value). The fields stay flat on the profile, so its settings, and the
job hashes and report groups made from them, are what they would be had the suite declared every field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.contract import Measurement, Profile
from harness.rules import at_least, between
from harness.train import TrainSettings
from suites.common.data.text import DEFAULT_CORPUS


@dataclass(frozen=True)
class ModelSize(Profile):
    """The width, depth and number of attention heads of the Transformer a job builds."""

    #: width of the residual stream
    d_model: int = 128
    #: Transformer blocks
    n_layers: int = 2
    #: attention heads per block (head size d_model / n_heads)
    n_heads: int = 16

    def problems(self) -> list[str]:
        return heads_problems(self.d_model, self.n_heads) + super().problems()


def heads_problems(d_model: int, n_heads: int) -> list[str]:
    """The sentence saying that set.n_heads does not divide set.d_model, or none: the rule of the table every
    suite shares (harness/rules.py RELATIONS), said here too for code that checks a profile on its own."""
    from harness.relations import heads_problem

    problem = heads_problem(d_model, n_heads)
    return [problem] if problem else []


@dataclass(frozen=True)
class TrainingBudget(Profile):
    """Steps of batch_size examples under AdamW with linear warm-up, cosine decay and gradient-norm clipping."""

    #: sequences (or pairs) per optimiser step
    batch_size: int = 64
    #: optimiser steps
    steps: int = 300
    #: peak learning rate, reached after warmup_steps
    lr: float = 5e-3
    #: steps of linear warm-up from 0 to lr
    warmup_steps: int = 30
    #: AdamW's decoupled weight decay
    weight_decay: float = 0.1
    #: the global gradient norm is clipped to this
    grad_clip: float = 1.0

    rules = {"warmup_steps": at_least(0), "weight_decay": at_least(0)}

    def train_settings(self) -> TrainSettings:
        """The budget as harness/train.py takes it."""
        return TrainSettings(
            steps=self.steps,
            lr=self.lr,
            warmup_steps=self.warmup_steps,
            weight_decay=self.weight_decay,
            grad_clip=self.grad_clip,
        )


@dataclass(frozen=True)
class CharLMText(Profile):
    """The character corpus a job trains on in windows of train_len, and the share of it held out."""

    #: characters per training window (L)
    train_len: int = 32
    #: share of the corpus held out for scoring
    heldout_fraction: float = 0.1
    #: the corpus (``data=`` on the command line): pydoc, bible or a text file
    data: str = DEFAULT_CORPUS

    rules = {"heldout_fraction": between(0, 1, low_open=True, high_open=True)}


@dataclass(frozen=True)
class ScoredText(CharLMText):
    """The corpus, and how many held-out characters a trained model is scored on."""

    #: held-out characters scored (at most the whole held-out split)
    eval_tokens: int = 8192

    def problems(self) -> list[str]:
        out = super().problems()
        if self.eval_tokens < self.train_len:
            out.append(
                f"set.eval_tokens={self.eval_tokens} is below the evaluation length set.train_len={self.train_len}; "
                f"give at least {self.train_len}."
            )
        return out


@dataclass(frozen=True)
class Timing(Profile):
    """How a cost suite times one case: clean repeats for at least a while, and a cap on one call."""

    #: timed calls at the least, after warm-up (harness/measure.py: time_call)
    min_repeats: int = 5
    #: seconds of timed calls at the least
    min_run_time: float = 0.2
    #: seconds: a case whose first call takes longer is not timed, and the suite skips its longer sizes
    max_call_s: float = 1.0


def untimed(
    first_call_s: float, profile: Timing, length: int, metrics: Sequence[str], where: dict[str, Any]
) -> tuple[list[Measurement], str] | None:
    """Where one call took over ``profile.max_call_s``: the ``metrics`` a timing would give, skipped with the reason,
    and why the suite skips the longer lengths; None where the call is within the budget."""
    if first_call_s <= profile.max_call_s:
        return None
    reason = (
        f"one call took {first_call_s:.2f} s, over this profile's max_call_s={profile.max_call_s:g} "
        f"(set.max_call_s=... to time it)"
    )
    skipped = [Measurement(m, None, status="skipped", reason=reason, **where) for m in metrics]
    return skipped, f"at length {length} {reason}"
