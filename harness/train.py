"""The training loop shared by suites: AdamW (or SGD), linear warm-up then cosine decay, gradient clipping.

Weight decay applies to matrices only (not to norms, biases or embeddings' duplicates), as in GPT-2 and
nanoGPT. A non-finite loss, or a loss far above its starting value, stops training with Diverged.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, List, Tuple

import torch
from torch import nn
from tqdm.auto import tqdm

from harness.contract import Diverged


@dataclass(frozen=True)
class TrainSettings:
    """Optimiser and schedule settings of one training run."""

    steps: int
    lr: float
    warmup_steps: int = 0
    min_lr_ratio: float = 0.1
    weight_decay: float = 0.1
    betas: Tuple[float, float] = (0.9, 0.95)
    grad_clip: float = 1.0
    #: a loss this many times above the first step's counts as diverged
    divergence_factor: float = 3.0
    #: "adamw" or "sgd" (plain SGD with ``momentum``; Pascanu et al. 2013 study clipping under SGD)
    optimizer: str = "adamw"
    momentum: float = 0.0


@dataclass
class TrainResult:
    """What a training run produced: loss curve, final loss, time and throughput."""

    losses: List[float] = field(default_factory=list)
    grad_norms: List[float] = field(default_factory=list)
    wall_time_s: float = 0.0
    tokens: int = 0

    @property
    def final_loss(self) -> float:
        """Mean loss over the last 10% of steps (smooths batch noise)."""
        tail = self.losses[-max(1, len(self.losses) // 10):]
        return sum(tail) / len(tail)

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.wall_time_s if self.wall_time_s else float("nan")


def lr_at(step: int, s: TrainSettings) -> float:
    """Learning rate at ``step``: linear warm-up to ``lr``, then cosine decay to ``min_lr_ratio * lr``."""
    if step < s.warmup_steps:
        return s.lr * (step + 1) / s.warmup_steps
    progress = (step - s.warmup_steps) / max(1, s.steps - s.warmup_steps)
    return s.lr * (s.min_lr_ratio + (1 - s.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


OPTIMIZERS = ("adamw", "sgd")


def make_optimizer(model: nn.Module, s: TrainSettings) -> torch.optim.Optimizer:
    """AdamW (or SGD) with weight decay on weight matrices (dim >= 2) only."""
    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.dim() >= 2]
    no_decay = [p for p in params if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": s.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    if s.optimizer == "sgd":
        return torch.optim.SGD(groups, lr=s.lr, momentum=s.momentum)
    if s.optimizer != "adamw":
        raise ValueError(f"Unknown optimizer '{s.optimizer}'; choose one of {', '.join(OPTIMIZERS)}.")
    return torch.optim.AdamW(groups, lr=s.lr, betas=s.betas)


def train(
    model: nn.Module,
    loss_fn: Callable[[nn.Module, int], Tuple[torch.Tensor, int]],
    settings: TrainSettings,
    *,
    progress: bool = True,
    desc: str = "train",
) -> TrainResult:
    """Run ``settings.steps`` optimiser steps; ``loss_fn(model, step)`` returns (loss, tokens in batch)."""
    opt = make_optimizer(model, settings)
    result = TrainResult()
    model.train()
    start = time.perf_counter()
    bar = tqdm(range(settings.steps), desc=desc, disable=not progress, leave=False, dynamic_ncols=True)
    for step in bar:
        for group in opt.param_groups:
            group["lr"] = lr_at(step, settings)
        loss, tokens = loss_fn(model, step)
        value = loss.item()
        if not math.isfinite(value):
            raise Diverged(f"loss became {value} at step {step}")
        if result.losses and value > settings.divergence_factor * max(result.losses[0], 1e-8):
            raise Diverged(f"loss {value:.3g} at step {step} exceeds {settings.divergence_factor}x its start {result.losses[0]:.3g}")
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), settings.grad_clip)
        opt.step()
        result.losses.append(value)
        result.grad_norms.append(float(norm))
        result.tokens += tokens
        if step % 10 == 0:
            bar.set_postfix(loss=f"{value:.3f}", lr=f"{lr_at(step, settings):.2e}")
    result.wall_time_s = time.perf_counter() - start
    model.eval()
    return result
