"""Experiment trackers as optional sinks beside the records, which stay the source of truth:
``bench run ... tracker=tensorboard|mlflow|wandb``.

After a run, each job it ran is logged from its stored records: its settings (suite, variant, seed, profile and its
settings, device, dtype, the spec's fields), every measured value (a series over the record's x, a scalar without
one), and its training loss curve where its ``train_loss`` record carries one (``extra.curve``, [step, loss] pairs).
TensorBoard writes event files under ``<results_dir>/.tensorboard/<suite>/<job>``; MLflow logs to a local file store
(``<results_dir>/.mlruns``); W&B runs offline under ``<results_dir>/.wandb`` (``wandb sync`` uploads it). A missing
library is one sentence with its install command and exit status 2, before any compute (``check``).
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from typing import Any

from harness.errors import UsageError

#: tracker -> (the module it needs, the package that provides it)
TRACKERS = {
    "tensorboard": ("torch.utils.tensorboard", "tensorboard"),
    "mlflow": ("mlflow", "mlflow"),
    "wandb": ("wandb", "wandb"),
}


def check(name: str | None) -> None:
    """A UsageError naming the tracker and its install command when its library is missing (none: nothing to do)."""
    if name is None:
        return
    if name not in TRACKERS:
        raise UsageError(f"Unknown tracker '{name}'; choose one of {', '.join(TRACKERS)}.")
    module, package = TRACKERS[name]
    try:
        importlib.import_module(module)
    except ImportError:
        raise UsageError(
            f"tracker={name} needs the {package} package; install it with `pip install {package}`."
        ) from None


def settings(records: list[dict[str, Any]]) -> dict[str, Any]:
    """A job's settings as flat keys: suite, variant, seed, profile, device, dtype, ``set.FIELD`` and ``spec.FIELD``."""
    first = records[0]
    out = {k: first.get(k) for k in ("suite", "variant", "seed", "profile", "device", "dtype")}
    out |= {f"set.{k}": v for k, v in (first.get("profile_settings") or {}).items()}
    out |= {f"spec.{k}": v for k, v in (first.get("spec") or {}).items()}
    return {k: (v if isinstance(v, (int, float, str, bool)) else str(v)) for k, v in out.items() if v is not None}


def series(records: list[dict[str, Any]]) -> list[tuple[str, float, int]]:
    """(name, value, step) of every finite measured value: a record's x is its step (0 without one), and the
    training curve is ``train_loss_curve`` over its steps."""
    out = []
    for r in records:
        value = r.get("value")
        if r.get("status") != "ok" or not isinstance(value, (int, float)) or not math.isfinite(value):
            continue
        x = r.get("x")
        out.append((str(r["metric"]), float(value), int(x) if isinstance(x, (int, float)) and math.isfinite(x) else 0))
        if r["metric"] == "train_loss":
            curve = (r.get("extra") or {}).get("curve") or []
            out += [("train_loss_curve", float(loss), int(step)) for step, loss in curve]
    return out


def log_jobs(name: str, jobs: dict[str, list[dict[str, Any]]], results_dir: Path) -> int:
    """Log each job (label -> its records) to tracker ``name``; returns how many were logged."""
    log = {"tensorboard": _tensorboard, "mlflow": _mlflow, "wandb": _wandb}[name]
    for label, records in jobs.items():
        if records:
            log(label, records, Path(results_dir))
    return sum(1 for records in jobs.values() if records)


def _tensorboard(label: str, records: list[dict[str, Any]], results_dir: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    suite = records[0].get("suite", "suite")
    with SummaryWriter(log_dir=str(results_dir / ".tensorboard" / suite / label)) as writer:
        writer.add_text("settings", "\n".join(f"    {k} = {v}" for k, v in settings(records).items()))
        for tag, value, step in series(records):
            writer.add_scalar(tag, value, step)


def _mlflow(label: str, records: list[dict[str, Any]], results_dir: Path) -> None:
    import mlflow

    mlflow.set_tracking_uri((results_dir / ".mlruns").resolve().as_uri())
    mlflow.set_experiment(str(records[0].get("suite", "bench")))
    with mlflow.start_run(run_name=label):
        mlflow.log_params({k: str(v)[:500] for k, v in settings(records).items()})
        for tag, value, step in series(records):
            mlflow.log_metric(tag, value, step=step)


def _wandb(label: str, records: list[dict[str, Any]], results_dir: Path) -> None:
    import wandb

    folder = results_dir / ".wandb"
    folder.mkdir(parents=True, exist_ok=True)
    run = wandb.init(project="bench", group=str(records[0].get("suite")), name=label, mode="offline",
                     dir=str(folder), config=settings(records), reinit="finish_previous")  # fmt: skip
    for tag, value, step in series(records):
        run.log({tag: value, "x": step})
    run.finish()
