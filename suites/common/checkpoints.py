"""Trained weights kept next to the results, so that one training serves every job that evaluates it.

A job that would train the same weights as another (``rope+ntk`` and ``rope+yarn`` evaluate the weights of
``rope``: a RoPE scaling changes no weight) names its training by a content hash of everything that
determines it: suite, the spec it trains, the profile's training settings, seed, device type, dtype, data
checksum and code version. The first job to run trains and saves the state_dict with its training summary
under ``results/<suite>/.checkpoints/<hash>.pt`` (written atomically; the store ignores hidden folders); the
others load it. Each job still stores its own records, so variants stay separate and an interrupted sweep
resumes: a job that finds the checkpoint reuses it, one that does not trains it. A training holds the lock
``.lock-<hash>`` beside its checkpoint (harness/locks.py), so a second process (``workers=2``) that reaches
the same training waits for it and loads the weights instead of training them again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from harness.contract import Measurement
from harness.env import code_version
from harness.locks import JobLock
from harness.train import TrainResult
from variants.spec import stable_hash


@dataclass(frozen=True)
class Training:
    """What a job reports about its training, whether it trained here or loaded the weights."""

    final_loss: float
    wall_time_s: float
    tokens_per_s: float
    #: "trained by this job" or "checkpoint of job <label>"
    source: str
    key: str
    #: the CPU load while it trained (harness/train.py ``TrainResult.load``; empty for a checkpoint saved without it)
    load: dict[str, Any] = field(default_factory=dict)
    #: its loss curve, [step, loss] pairs (``TrainResult.curve``; empty for a checkpoint saved without it)
    curve: list[list[float]] = field(default_factory=list)

    def measurements(self) -> list[Measurement]:
        """The job's training records: final loss (with its curve where kept), wall time and throughput."""
        return [
            Measurement("train_loss", self.final_loss, extra={"curve": self.curve} if self.curve else {}),
            Measurement("train_time", self.wall_time_s, extra=dict(self.load)),
            Measurement("train_throughput", self.tokens_per_s, extra=dict(self.load)),
        ]


def training_key(
    suite: str, spec: Any, settings: dict[str, Any], seed: int, device: str, dtype: torch.dtype, data_checksum: str
) -> str:
    """Content hash of one training: equal keys train equal weights."""
    return stable_hash(
        {
            "suite": suite,
            "spec": spec.to_dict(),
            "settings": settings,
            "seed": seed,
            "device": device.split(":")[0],
            "dtype": str(dtype),
            "data": data_checksum,
            "code": code_version(),
        }
    )


def path_for(folder: Path, key: str) -> Path:
    return Path(folder) / f"{key}.pt"


def train_once(
    model: nn.Module, key: str, folder: Path | None, train: Callable[[], TrainResult], label: str = ""
) -> Training:
    """Load the weights of training ``key`` into ``model`` from ``folder``, or run ``train()`` and save them there."""
    if folder is None:
        return _train_or_load(model, key, None, train, label)
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        lock = _locked(Path(folder) / f".lock-{key}")
    except OSError as exc:  # the results folder went read-only or full: the job trains without sharing its training
        _unkept(key, exc)
        return _train_or_load(model, key, None, train, label)
    with lock:
        return _train_or_load(model, key, path_for(folder, key), train, label)


def train_job_once(
    model: nn.Module, key: str, ctx: Any, step_loss: Callable, settings: Any, desc: str = ""
) -> Training:
    """``train_once`` as a job calls it (``ctx``: its harness.contract.JobContext): the weights of training ``key``
    loaded from the job's checkpoint folder, or ``model`` trained there (harness/train.py) on ``step_loss`` with
    ``settings``, its progress shown under the job's label (else ``desc``); the job's facts say where the weights
    came from (``weights``) and which training they are (``training_key``)."""
    from harness.train import train

    result = train_once(
        model,
        key,
        ctx.checkpoint_dir,
        label=ctx.label,
        train=lambda: train(model, step_loss, settings, progress=ctx.progress, desc=ctx.label or desc),
    )
    ctx.facts.update(weights=result.source, training_key=key)
    return result


def _unkept(key: str, exc: OSError) -> None:
    """Say that training ``key`` is not kept for other jobs: a checkpoint only saves time, so the job goes on."""
    import sys

    print(
        f"bench: warning: the checkpoint of training {key} cannot be kept ({exc.strerror or exc}); this job goes "
        f"on, and a later job that needs the same training trains it again.",
        file=sys.stderr,
    )


def _locked(path: Path) -> JobLock:
    lock = JobLock(path)
    lock.acquire(wait=True)
    return lock


def _train_or_load(
    model: nn.Module, key: str, path: Path | None, train: Callable[[], TrainResult], label: str
) -> Training:
    saved = load(path) if path is not None else None
    if saved is not None:
        model.load_state_dict(saved["state_dict"])
        model.eval()
        return Training(
            saved["final_loss"],
            saved["wall_time_s"],
            saved["tokens_per_s"],
            f"checkpoint of job {saved['label']}",
            key,
            saved.get("load") or {},
            saved.get("curve") or [],
        )
    result = train()
    if path is not None:
        state = {name: t.detach().cpu() for name, t in model.state_dict().items()}
        try:
            save(
                path,
                {
                    "state_dict": state,
                    "final_loss": result.final_loss,
                    "wall_time_s": result.wall_time_s,
                    "tokens_per_s": result.tokens_per_s,
                    "load": result.load,
                    "curve": result.curve(),
                    "label": label,
                    "key": key,
                },
            )
        except OSError as exc:  # a full or read-only folder fails the save, never the job that trained
            _unkept(key, exc)
    return Training(
        result.final_loss,
        result.wall_time_s,
        result.tokens_per_s,
        "trained by this job",
        key,
        result.load,
        result.curve(),
    )


def load(path: Path) -> dict[str, Any] | None:
    """The saved training at ``path``, or None when there is none or it cannot be read (then it is retrained)."""
    if not path.exists():
        return None
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception:  # a damaged file is replaced by the next save
        return None


def save(path: Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` atomically (a temporary file in the same folder, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    from harness.store import temp_path

    # named by pid and host, so that a run can tell a killed save's leftover from a live one (ResultsStore.prepare)
    tmp = temp_path(path.parent, ".pt")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as to the results
    try:
        with os.fdopen(fd, "wb") as fh:
            torch.save(payload, fh)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
