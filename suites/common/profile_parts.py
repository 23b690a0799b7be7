"""Parts of a profile that several suites share: a suite's Profile lists the parts it has among its bases.

A part declares its fields once, with their rules and meaning; a suite re-declares a field only to give it
another default (its quick profile's value). The fields stay flat on the profile, so its settings, and the
job hashes and report groups made from them, are what they would be had the suite declared every field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from harness.contract import Profile
from harness.rules import at_least, between
from harness.train import TrainSettings
from suites.common.data.text import DEFAULT_CORPUS


@dataclass(frozen=True)
class ModelSize(Profile):
    """The width, depth and number of attention heads of the Transformer a job builds."""

    d_model: int = 128
    n_layers: int = 2
    n_heads: int = 16


@dataclass(frozen=True)
class TrainingBudget(Profile):
    """Steps of batch_size examples under AdamW with linear warm-up, cosine decay and gradient-norm clipping."""

    batch_size: int = 64
    steps: int = 300
    lr: float = 5e-3
    warmup_steps: int = 30
    weight_decay: float = 0.1
    grad_clip: float = 1.0

    rules = {"warmup_steps": at_least(0), "weight_decay": at_least(0)}

    def train_settings(self) -> TrainSettings:
        """The budget as harness/train.py takes it."""
        return TrainSettings(steps=self.steps, lr=self.lr, warmup_steps=self.warmup_steps,
                             weight_decay=self.weight_decay, grad_clip=self.grad_clip)


@dataclass(frozen=True)
class CharLMText(Profile):
    """The character corpus a job trains on in windows of train_len, and the share of it held out."""

    train_len: int = 32
    heldout_fraction: float = 0.1
    #: the corpus (``data=`` on the command line): pydoc, bible or a text file
    data: str = DEFAULT_CORPUS

    rules = {"heldout_fraction": between(0, 1, low_open=True, high_open=True)}


@dataclass(frozen=True)
class ScoredText(CharLMText):
    """The corpus, and how many held-out characters a trained model is scored on."""

    #: held-out characters scored (at most the whole held-out split)
    eval_tokens: int = 8192

    def problems(self) -> List[str]:
        out = super().problems()
        if self.eval_tokens < self.train_len:
            out.append(f"set.eval_tokens={self.eval_tokens} is below the evaluation length set.train_len={self.train_len}; "
                       f"give at least {self.train_len}.")
        return out
