"""The project's reference GPU records of this suite, read where the records reported cannot test a GPU claim.

"Recurrence leaves the device idle" is a claim about GPUs: a CPU run cannot test it, while the project's own
reference run on a CUDA device (`make gpu-check`, records under reference/gpu/results) can. The CPU report and the
scoreboard show that GPU verdict beside the CPU's measurement, with the device named, rather than a bare "not
testable here"; the GPU records are never mixed into a CPU group's tables.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.groups import split_groups
from harness.report import records_frame
from harness.store import ResultsStore

#: where `make gpu-check` keeps its records (one directory per suite below it)
GPU_RESULTS = Path(__file__).resolve().parents[2] / "reference" / "gpu" / "results"
SUITE = "sequence_cost"


def reference_gpu_frame(results: Path | None = None) -> pd.DataFrame | None:
    """The newest group of this suite's records on a CUDA device under ``results`` (GPU_RESULTS by default), or None
    where there is none."""
    results = Path(results if results is not None else GPU_RESULTS)
    if not (results / SUITE).is_dir():
        return None
    records = ResultsStore(results).load(SUITE)
    if not records:
        return None
    for group in split_groups(records_frame(records)):
        if str(group.key.device).startswith("cuda"):
            return group.frame
    return None


def where(frame: pd.DataFrame) -> str:
    """'NVIDIA H200, profile large, torch 2.11.0+cu130, 1 seed (reference/gpu/results)' of a GPU group."""
    first = frame.iloc[0]
    seeds = int(frame.seed.nunique())
    return (
        f"{first.device_name}, profile {first.profile}, torch {first.torch_version}, {seeds} seed"
        + ("" if seeds == 1 else "s")
        + " (reference/gpu/results)"
    )
