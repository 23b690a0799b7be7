"""How a gradient_flow job trains and probes its copy-task models: the gradient probe by distance, the spectral-radius
sweep at initialisation, training on the copy task, held-out recall, and what a job adds up as it trains."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.nn import functional as F

from harness.contract import JobContext, Measurement
from harness.train import TrainSettings, train
from suites.common.data.copy_task import IGNORE, CopyTask
from suites.gradient_flow.gradient_probe import by_distance, hidden_gradient_norms

#: offsets a job's seed for the validation sequences that choose a lag's learning rate, apart from the held-out
#: test sequences (recall_accuracy adds 10_000) and the gradient probe's (seed + 20_000)
VALIDATION_SEED = 30_000


@dataclass
class Spent:
    """The training seconds a job spends and the load each training ran under, added up as they run."""

    seconds: float = 0.0
    loads: list = field(default_factory=list)

    def add(self, result) -> None:
        self.seconds += result.wall_time_s
        self.loads.append(result.load)


def radius_sweep(fresh: Callable[[], torch.nn.Module], probe, radii) -> list[Measurement]:
    """The gradient probe at initialisation with the recurrent weight rescaled to each spectral radius."""
    out: list[Measurement] = []
    for radius in radii:
        model = fresh()
        model.set_spectral_radius(radius)
        top = float(torch.linalg.matrix_norm(model.recurrent_weights()[0].detach(), ord=2))
        out += flow(model, probe, "radius_hidden_grad_norm", {"radius": radius, "largest_singular_value": top})
    return out


@dataclass
class Trained:
    """One lag's model trained at one learning rate: what the job keeps of the best rate so far."""

    lr: float
    model: torch.nn.Module
    final_loss: float
    validation: float
    spectrum: list[Measurement]


def flow(model, probe: tuple[torch.Tensor, torch.Tensor], metric: str, extra: dict[str, Any]) -> list[Measurement]:
    """One measurement per distance d = 0 .. T-1 of ||dL/dh_{T-1-d}|| (mean over the probe's sequences)."""
    norms = by_distance(hidden_gradient_norms(model, *probe))
    return [
        Measurement(metric, value, x=float(d), x_name="distance", extra=extra) for d, value in enumerate(norms.tolist())
    ]


def train_copy(
    model,
    task: CopyTask,
    settings: TrainSettings,
    batch_size: int,
    seed: int,
    ctx: JobContext,
    desc: str,
    after_step: Callable[[int], None] | None = None,
):
    gen = torch.Generator().manual_seed(seed)

    def step_loss(m, step):
        x, y = task.batch(batch_size, gen)
        logits = m(x.to(ctx.device))  # (B, T, V)
        return F.cross_entropy(logits.flatten(0, 1), y.to(ctx.device).flatten(), ignore_index=IGNORE), x.numel()

    return train(model, step_loss, settings, progress=ctx.progress, desc=desc, after_step=after_step)


@torch.no_grad()
def recall_accuracy(model, task: CopyTask, n: int, seed: int, device: str) -> float:
    """Fraction of recalled symbols right on ``n`` held-out sequences (a generator the training never sees)."""
    x, y = task.batch(n, torch.Generator().manual_seed(seed + 10_000))
    predicted = model(x.to(device)).argmax(dim=-1).cpu()  # (n, T)
    due = y != IGNORE
    return float((predicted[due] == y[due]).float().mean())
