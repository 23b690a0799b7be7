"""What sequence_cost's claims read: the records with their pass and layer kind, where the project's reference GPU
records are, how a latency ratio between two forms of one layer reads against the timing margin (the scan's and the
chunked form's claims), and the quoted utilisation figures the report's figure draws.

The estimates: a layer's share of the matmul peak lies in [0, 100] % ("bounded", harness/intervals.py), each seed's
value from medians over timing repeats; the latency ratios are of means over seeds of median latencies. The verdicts
rest on timing margins over one seed's repeats, not on the spread over seeds, so a run of one seed is not marked
indicative.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from harness.findings import Estimate
from suites.sequence_cost.tables import _frame

#: the quoted figures (% of peak) of recurrence_idles_device, drawn in the report's figure too
QUOTED_RECURRENT, QUOTED_ATTENTION = 30.0, 70.0
#: a timing margin, not a seed margin: a latency ratio within this factor of 1 is timing noise on a shared machine
#: (this project's choice; the verdicts of parallel_scan_speedup and chunked_form_speedup rest on one seed's timing
#: repeats)
NOISE = 1.1


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: the records with their pass, layer kind and whether recurrent or a mixer (tables.py ``_frame``)
    df: pd.DataFrame
    #: where the project's reference GPU records are read from (None: reference/gpu/results, gpu_records.py)
    gpu_results: Path | None = None


def prepare(records: pd.DataFrame) -> Evidence:
    return Evidence(records if "pass" in records else _frame(records))


def speedup_reading(ratios: dict[float, float]) -> str:
    """How the slow form's latency over the fast form's reads, by length: 'faster and growing' where the ratio at the
    longest length exceeds NOISE and is larger there than at the shortest (or only one length was timed); 'slower'
    where it is below 1 / NOISE there; else 'neither'."""
    common = sorted(ratios)
    short, long = common[0], common[-1]
    if ratios[long] > NOISE and (ratios[long] > ratios[short] or len(common) == 1):
        return "faster and growing"
    return "slower" if ratios[long] < 1 / NOISE else "neither"


def ratios_text(ratios: dict[float, float], verdict: str) -> tuple[str, str]:
    """('64 tokens 2.00x, 512 tokens 10.00x', '. This run agrees (faster beyond 1.1x at 512 tokens and by more
    than at 64).'): the ratios by length, and the sentence's end saying the verdict against NOISE."""
    short, long = min(ratios), max(ratios)
    return (
        ", ".join(f"{x:g} tokens {r:.2f}x" for x, r in ratios.items()),
        f"This run {verdict} (faster beyond {NOISE:g}x at {long:g} tokens and by more than at {short:g}).",
    )


def ratio_cause(verdict: str, ratios: dict[float, float], slower: str) -> str:
    """Why a speed-up's verdict is not 'agrees': ``slower`` (the fast form is slower at the longest length), or the
    ratio there within NOISE of 1 or not growing."""
    return {
        "agrees": "",
        "disagrees": slower,
        "inconclusive": f"the ratio at {max(ratios):g} tokens is within {NOISE:g}x of 1 or does not grow with length.",
    }[verdict]


def ratio_estimates(ratios: dict[float, float], slow: str, fast: str) -> list[Estimate]:
    """``slow``'s latency over ``fast``'s at each length, the longest first (the one the verdict turns on)."""
    return [Estimate(f"{slow} / {fast} latency at {x:g} tokens", r, unit="x") for x, r in ratios.items()][::-1]
