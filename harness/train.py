"""The training loop shared by suites: AdamW (or SGD), linear warm-up then cosine decay, gradient clipping.

Weight decay applies to matrices only (not to norms, biases or embeddings' duplicates), as in GPT-2 and
nanoGPT. A non-finite loss, or a loss far above its starting value, stops training with Diverged.

The loop does not wait for the device: losses and gradient norms stay on it as 0-d tensors and are read
back every ``check_every`` steps and after the last, so a GPU queues steps ahead instead of synchronising
with the host twice per step. A divergence is found at the check after it, and its reason names the step
where the loss first went wrong, as when every step was checked; the steps between it and the check
still run (on weights that no longer matter). On CPU the numbers are those of checking every step.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn
from tqdm.auto import tqdm

from harness.contract import Diverged
from harness.timing import LoadMeter


@dataclass(frozen=True)
class TrainSettings:
    """Optimiser and schedule settings of one training run."""

    steps: int
    lr: float
    warmup_steps: int = 0
    min_lr_ratio: float = 0.1
    weight_decay: float = 0.1
    betas: tuple[float, float] = (0.9, 0.95)
    grad_clip: float = 1.0
    #: a loss this many times above the first step's counts as diverged
    divergence_factor: float = 3.0
    #: "adamw" or "sgd" (plain SGD with ``momentum``; Pascanu et al. 2013 study clipping under SGD)
    optimizer: str = "adamw"
    momentum: float = 0.0
    #: steps between reading the losses back from the device to check for divergence (and after the last)
    check_every: int = 50
    #: run the loss function on ``torch.compile(model)`` (the same parameters); None: as the job asks
    #: (``set.compile=true``, see ``compiling``)
    compile: bool | None = None


@dataclass
class TrainResult:
    """What a training run produced: loss curve, final loss, time and throughput."""

    losses: list[float] = field(default_factory=list)
    grad_norms: list[float] = field(default_factory=list)
    wall_time_s: float = 0.0
    tokens: int = 0
    #: the CPU load other processes put on the machine while it trained (harness/timing.py ``LoadMeter.summary``):
    #: the ``extra`` of every record timed by this run (its wall time, its throughput)
    load: dict = field(default_factory=dict)

    @property
    def final_loss(self) -> float:
        """Mean loss over the last 10% of steps (smooths batch noise)."""
        tail = self.losses[-max(1, len(self.losses) // 10) :]
        return sum(tail) / len(tail)

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.wall_time_s if self.wall_time_s else float("nan")

    def curve(self, points: int = 200) -> list[list[float]]:
        """The loss curve as [step, loss] pairs (steps from 1): every ceil(n / ``points``)-th step and the last, what
        a record carries for a tracker or a figure (a training's own steps are not records)."""
        n = len(self.losses)
        if not n:
            return []
        every = max(1, -(-n // points))  # ceil(n / points)
        kept = list(range(0, n, every)) + ([n - 1] if (n - 1) % every else [])
        return [[i + 1, float(self.losses[i])] for i in kept]


def lr_at(step: int, s: TrainSettings) -> float:
    """Learning rate at ``step``: linear warm-up to ``lr``, then cosine decay to ``min_lr_ratio * lr``."""
    if step < s.warmup_steps:
        return s.lr * (step + 1) / s.warmup_steps
    progress = (step - s.warmup_steps) / max(1, s.steps - s.warmup_steps)
    return s.lr * (s.min_lr_ratio + (1 - s.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


OPTIMIZERS = ("adamw", "sgd")
#: device types where AdamW is run fused (torch.optim's fused kernels exist on both)
_FUSED_DEVICES = ("cpu", "cuda")
#: device types where the gradients' norms are computed and clipped with the foreach kernels
_FOREACH_DEVICES = ("cpu", "cuda")


def make_optimizer(model: nn.Module, s: TrainSettings) -> torch.optim.Optimizer:
    """AdamW (or SGD) with weight decay on weight matrices (dim >= 2) only; AdamW fused on CPU and CUDA."""
    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.dim() >= 2]
    no_decay = [p for p in params if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": s.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    if s.optimizer == "sgd":
        return torch.optim.SGD(groups, lr=s.lr, momentum=s.momentum)
    if s.optimizer != "adamw":
        raise ValueError(f"Unknown optimizer '{s.optimizer}'; choose one of {', '.join(OPTIMIZERS)}.")
    # The fused kernel updates each parameter in one pass (on CUDA, all of them in one launch). On CPU the default
    # path runs about ten elementwise operators per parameter tensor: 3.2 ms a step against fused's 1.1 ms for the
    # 0.83M parameters (40 tensors) of nanoGPT's baby GPT on 2 threads. Fused rounds a few updates differently
    # (the same formula, evaluated in one expression), so CPU trainings differ from the default path's in the last bits.
    fused = (
        {"fused": True}
        if params and all(p.device.type in _FUSED_DEVICES and p.is_floating_point() for p in params)
        else {}
    )
    return torch.optim.AdamW(groups, lr=s.lr, betas=s.betas, **fused)


#: the torch.compile mode of the job's trainings (None: eager), innermost block last
_COMPILE: list[str | None] = [None]


@contextlib.contextmanager
def compiling(enabled: bool, cuda_graphs: bool = False):
    """Within this block ``train`` compiles the model unless its settings say otherwise (the runner sets it
    from a profile's ``compile`` field, so ``set.compile=true`` reaches every training of a job). With
    ``cuda_graphs`` (``set.cuda_graphs=true``) it compiles with mode "reduce-overhead": Inductor captures
    the compiled forward and backward in CUDA graphs, replayed in one launch each while shapes stay fixed."""
    _COMPILE.append("reduce-overhead" if cuda_graphs else ("default" if enabled else None))
    try:
        yield
    finally:
        _COMPILE.pop()


def compile_mode(settings: TrainSettings) -> str | None:
    """The torch.compile mode training with ``settings`` uses, or None for eager (its own ``compile``, else the
    job's)."""
    if settings.compile is None:
        return _COMPILE[-1]
    return (_COMPILE[-1] or "default") if settings.compile else None


def compile_requested(settings: TrainSettings) -> bool:
    """Whether training with ``settings`` runs the compiled model (its own ``compile``, else the job's)."""
    return compile_mode(settings) is not None


def _first_divergence(values: list[float], first: int, start: float, s: TrainSettings) -> str | None:
    """The reason of the first diverged loss among ``values`` (the losses of steps first, first + 1, ...), or None."""
    for offset, value in enumerate(values):
        step = first + offset
        if not math.isfinite(value):
            return f"loss became {value} at step {step}"
        if step > 0 and value > s.divergence_factor * max(start, 1e-8):
            return f"loss {value:.3g} at step {step} exceeds {s.divergence_factor}x its start {start:.3g}"
    return None


def train(
    model: nn.Module,
    loss_fn: Callable[[nn.Module, int], tuple[torch.Tensor, int]],
    settings: TrainSettings,
    *,
    progress: bool = True,
    desc: str = "train",
    after_step: Callable[[int], None] | None = None,
) -> TrainResult:
    """Run ``settings.steps`` optimiser steps; ``loss_fn(model, step)`` returns (loss, tokens in batch).

    ``after_step(step)`` (steps from 0) runs after each optimiser step, the model in training mode: an evaluation
    during training sets eval mode and back itself, and its time counts in the training's wall time.

    ``loss_fn`` receives ``torch.compile(model)`` when compiling is asked for (the same parameters).
    Raises Diverged for the first step whose loss is not finite or exceeds ``divergence_factor`` times the
    first step's, found at the first check after it.
    """
    opt = make_optimizer(model, settings)
    result = TrainResult()
    model.train()
    mode = compile_mode(settings)
    runner = model if mode is None else torch.compile(model, mode=mode)
    losses: list[torch.Tensor] = []  # 0-d, on the model's device; read back at each check
    norms: list[torch.Tensor] = []
    every = max(1, settings.check_every)
    params = list(model.parameters())  # in parameters() order, in which the gradient norm is summed
    # one _foreach_norm and one _foreach_mul_ instead of a norm and a multiplication per tensor: the same numbers
    # (bit for bit on CPU), 0.6 ms a step instead of 0.9 ms for the 40 tensors of nanoGPT's baby GPT on 2 threads
    foreach = bool(params) and all(p.device.type in _FOREACH_DEVICES for p in params)

    def check() -> None:
        """Read the unchecked losses and norms back, then raise Diverged for the first bad one."""
        meter.window()
        first = len(result.losses)
        if first == len(losses):
            return
        values = torch.stack(losses[first:]).tolist()
        start = result.losses[0] if result.losses else values[0]
        reason = _first_divergence(values, first, start, settings)
        if reason is not None:
            raise Diverged(reason)
        result.losses.extend(values)
        result.grad_norms.extend(torch.stack(norms[first:]).tolist())
        bar.set_postfix(loss=f"{values[-1]:.3f}", lr=f"{lr_at(first + len(values) - 1, settings):.2e}")

    meter = LoadMeter()
    start = time.perf_counter()
    bar = tqdm(range(settings.steps), desc=desc, disable=not progress, leave=False, dynamic_ncols=True)
    try:
        for step in bar:
            for group in opt.param_groups:
                group["lr"] = lr_at(step, settings)
            loss, tokens = loss_fn(runner, step)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(params, settings.grad_clip, foreach=foreach or None)
            opt.step()
            losses.append(loss.detach())
            norms.append(norm.detach())
            result.tokens += tokens
            if (step + 1) % every == 0:
                check()
            if after_step is not None:
                after_step(step)
        check()
    except Diverged:
        raise
    except Exception:
        check()  # a step that failed on diverged weights reports the divergence, not the symptom
        raise
    result.wall_time_s = time.perf_counter() - start
    result.load = meter.summary()
    model.eval()
    return result
