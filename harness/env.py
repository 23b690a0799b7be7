"""Provenance of a run: code version, software, device and the numeric settings that move numbers."""

from __future__ import annotations

import functools
import os
import platform
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import torch

from harness.cores import worker_count

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
def git_state() -> dict[str, Any]:
    """The git commit of the code and whether the work tree had uncommitted changes to it.

    Stored results in the repository (``results/``, ``reference/``) do not count: a reference run that
    resumes, or writes its records into the tree it runs from, changes them and not the code.
    """

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10)
        return done.stdout.strip() if done.returncode == 0 else ""

    try:
        commit = git("rev-parse", "HEAD") or None
        dirty = (
            bool(git("status", "--porcelain", "--untracked-files=no", "--", ".", *DATA_EXCLUDES)) if commit else None
        )
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


def prepare_device(device: str) -> dict[str, Any]:
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


#: distributions whose version can change a measured number (kernels, compilers, numeric libraries)
RESULT_LIBRARIES = ("torch", "numpy", "triton", "flash-attn", "xformers", "submitit")


#: the versions that are part of a job's identity (bench/run/plan.py): a job stored under other ones is run again.
#: submitit schedules jobs and computes nothing, so it is left out
IDENTITY_LIBRARIES = ("torch", "numpy", "triton", "flash-attn", "xformers", "cuda", "cudnn")


def identity_libraries(versions: dict[str, str | None] | None = None) -> dict[str, str | None]:
    """The versions of ``IDENTITY_LIBRARIES`` in ``versions`` (default: this machine's)."""
    versions = library_versions() if versions is None else versions
    return {name: versions.get(name) for name in IDENTITY_LIBRARIES}


@functools.lru_cache(maxsize=1)
def library_versions() -> dict[str, str | None]:
    """The installed version of each library that can change a result (None: not installed), with CUDA's and
    cuDNN's; stored in every record so that a report can say when a group mixes them."""
    versions: dict[str, str | None] = {}
    for name in RESULT_LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    versions["torch"] = torch.__version__
    versions["cuda"] = torch.version.cuda
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    versions["cudnn"] = str(cudnn) if cudnn is not None else None
    return versions


def device_capability(device: str) -> str | None:
    """The CUDA compute capability of ``device`` ("8.0"), or None off CUDA (part of a skip's condition)."""
    if not device.startswith("cuda") or not torch.cuda.is_available():
        return None
    major, minor = torch.cuda.get_device_capability(device)
    return f"{major}.{minor}"


#: what nvidia-smi is asked of one GPU, in this order -> the key each answer is recorded under (clocks in MHz)
SMI_FIELDS = {
    "driver_version": "driver_version",
    "clocks.sm": "sm_clock_mhz",
    "clocks.max.sm": "sm_clock_max_mhz",
    "clocks.mem": "memory_clock_mhz",
    "clocks.max.mem": "memory_clock_max_mhz",
}


def accelerator_facts(device: str) -> dict[str, Any]:
    """What ran beneath torch on ``device``: the driver's version, the SM and memory clocks now and at most (MHz, from
    nvidia-smi where it is installed) and the float32 matmul precision torch runs at; None where it cannot be read,
    every value on a CPU. cuDNN's version is in ``library_versions``. Never raises: a fact that cannot be read is None.
    """
    facts: dict[str, Any] = dict.fromkeys(SMI_FIELDS.values())
    facts["float32_matmul_precision"] = None
    if not device.startswith("cuda") or not torch.cuda.is_available():
        return facts
    facts["float32_matmul_precision"] = torch.get_float32_matmul_precision()
    facts.update(nvidia_smi(_smi_id(device)))
    return facts


def _smi_id(device: str) -> str:
    """The id nvidia-smi knows ``device`` by: its UUID (CUDA_VISIBLE_DEVICES renumbers torch's indices, not
    nvidia-smi's), else its index."""
    index = torch.device(device).index
    index = torch.cuda.current_device() if index is None else index
    uuid = getattr(torch.cuda.get_device_properties(index), "uuid", None)
    return f"GPU-{uuid}" if uuid else str(index)


def sm_clock_mhz(device: str) -> int | None:
    """The SM clock of ``device`` now (MHz), or None off CUDA or without nvidia-smi: read right after a timed
    matmul it says the clock the measured peak ran at, which the nominal peak's boost clock may exceed."""
    return accelerator_facts(device)["sm_clock_mhz"]


def nvidia_smi(gpu: str) -> dict[str, Any]:
    """``SMI_FIELDS`` of GPU ``gpu`` as nvidia-smi reports them now; {} where nvidia-smi is absent or fails."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return {}
    query = [exe, f"--query-gpu={','.join(SMI_FIELDS)}", "--format=csv,noheader,nounits", "-i", gpu]
    try:
        done = subprocess.run(query, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return {}
    return parse_smi(done.stdout) if done.returncode == 0 else {}


def parse_smi(text: str) -> dict[str, Any]:
    """One line of ``nvidia-smi --query-gpu=<SMI_FIELDS> --format=csv,noheader,nounits`` as recorded facts: clocks
    as whole MHz, the driver as text, '[N/A]' as None; {} for a line that does not answer every field."""
    lines = text.strip().splitlines()
    values = [v.strip() for v in lines[0].split(",")] if lines else []
    if len(values) != len(SMI_FIELDS):
        return {}
    facts: dict[str, Any] = {}
    for key, raw in zip(SMI_FIELDS.values(), values):
        readable = raw and "N/A" not in raw and "Not Supported" not in raw
        if key == "driver_version":
            facts[key] = raw if readable else None
        else:
            facts[key] = int(float(raw)) if readable and raw.replace(".", "", 1).isdigit() else None
    return facts


def provenance(device: str) -> dict[str, Any]:
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
        "library_versions": library_versions(),
        "accelerator": accelerator_facts(device),
    }


def mixed_versions(records) -> str | None:
    """One sentence naming each library whose version differs between ``records`` (a report group), or None
    when they agree; records stored before versions were recorded are left out."""
    seen: dict[str, set] = {}
    for record in records:
        versions = record.get("library_versions") if isinstance(record, dict) else None
        if isinstance(versions, dict):
            for name, version in versions.items():
                seen.setdefault(name, set()).add(version)
    mixed = {name: found for name, found in seen.items() if len(found) > 1}
    if not mixed:
        return None
    parts = [f"{name} {', '.join(sorted(str(v) for v in found))}" for name, found in sorted(mixed.items())]
    return f"This group mixes library versions ({'; '.join(parts)}): its numbers may differ by more than the seeds."
