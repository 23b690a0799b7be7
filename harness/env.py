"""Provenance of a run: code version, software, device and the numeric settings that move numbers."""

from __future__ import annotations

import functools
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Dict

from harness.workers import worker_count

import torch

REPO = Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """The installed package version of bench (part of every job's identity)."""
    try:
        return metadata.version("bench")
    except metadata.PackageNotFoundError:
        return "0+unknown"


#: pathspecs of the stored results kept in the repository, which git_state leaves out
DATA_EXCLUDES = (":(exclude)results", ":(exclude)reference")


@functools.lru_cache(maxsize=1)
def git_state() -> Dict[str, Any]:
    """The git commit of the code and whether the work tree had uncommitted changes to it.

    Stored results in the repository (``results/``, ``reference/``) do not count: a reference run that
    resumes, or writes its records into the tree it runs from, changes them and not the code.
    """
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10)
        return done.stdout.strip() if done.returncode == 0 else ""

    try:
        commit = git("rev-parse", "HEAD") or None
        dirty = bool(git("status", "--porcelain", "--untracked-files=no", "--", ".", *DATA_EXCLUDES)) if commit else None
    except (OSError, subprocess.SubprocessError):
        commit, dirty = None, None
    return {"git_commit": commit, "git_dirty": dirty}


def resolve_device(requested: str) -> str:
    """'auto' -> 'cuda' when available else 'cpu'; an explicit 'cuda' without CUDA raises ValueError."""
    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested == "cuda" and not torch.cuda.is_available():
        raise ValueError("device=cuda was asked for but torch sees no CUDA device; use device=cpu or device=auto.")
    return requested


@functools.lru_cache(maxsize=4)
def device_name(device: str) -> str:
    """The GPU's name, or the CPU's model name from /proc/cpuinfo."""
    if device.startswith("cuda"):
        return torch.cuda.get_device_name(device)
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def allocator() -> str:
    """The malloc in use (tcmalloc or jemalloc through LD_PRELOAD change CPU timings, so a record names it)."""
    preload = os.environ.get("LD_PRELOAD", "")
    for name in ("tcmalloc", "jemalloc", "mimalloc"):
        if name in preload:
            return name
    return "glibc"


def prepare_device(device: str) -> Dict[str, Any]:
    """Pin the numeric settings of a job and return them for the record.

    On CPU, denormals are flushed: ALiBi's large negative biases otherwise make training 2.5-6x slower.
    On CUDA, float32 stays float32: cuDNN would otherwise run float32 RNNs (and convolutions) in TF32, a
    10-bit mantissa, and a float32 LSTM would miss its float32 tolerance against float64 (recorded as ``cudnn_fp32``).
    """
    flushed = torch.set_flush_denormal(True) if device == "cpu" else False
    settings = {"flush_denormal": bool(flushed), "num_threads": torch.get_num_threads(), "allocator": allocator()}
    if device.startswith("cuda"):
        settings["cudnn_fp32"] = full_precision_cudnn()
    return settings


def full_precision_cudnn() -> str:
    """Turn TF32 off for cuDNN's float32 RNNs and convolutions; returns the precision now in force ("ieee").

    Newer PyTorch sets this per operation (``torch.backends.cudnn.rnn.fp32_precision``) and refuses to read the
    legacy ``allow_tf32`` once the two APIs are mixed, so the legacy flag is used only where the new one is absent.
    """
    cudnn = torch.backends.cudnn
    if hasattr(cudnn, "rnn") and hasattr(cudnn.rnn, "fp32_precision"):
        cudnn.rnn.fp32_precision = "ieee"
        cudnn.conv.fp32_precision = "ieee"
        return cudnn.rnn.fp32_precision
    cudnn.allow_tf32 = False
    return "ieee"


def provenance(device: str) -> Dict[str, Any]:
    """Everything about the software and machine a record needs to be trusted and reproduced."""
    return {
        "device": device,
        "device_name": device_name(device),
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "platform": platform.platform(),
        "code_version": code_version(),
        **git_state(),
        "argv": " ".join(sys.argv[1:]),
        "workers": worker_count(),
    }
