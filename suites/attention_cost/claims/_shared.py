"""What attention_cost's claims read: the records with their case columns (mask, pass, kernel, head grouping), the
lengths, each variant's naive reference of the same heads and the growth slopes, computed once; how a memory slope
reads against naive's (the report's headline table reads it too), and the texts the report prints.

The kinds of estimate (harness/intervals.py): a memory slope is a fit to the allocator's peak bytes, the same for
every seed (no interval); SDPA's share of the matmul peak is compared with the earlier share as a relative change,
judged against a 95% prediction bound set from this run's own timing repeats (sdpa_share_of_peak.py
``change_sd``: t at the repeats' degrees of freedom). Neither check rests on the
spread over seeds (the slope is exact, the share's tolerance comes from the timing repeats), so a run of one seed
(the quick profile) is not marked indicative.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from suites.attention_cost.tables import cases, slope_rows, with_cases
from variants.kernel import kernels

PUBLISHED = (
    "FlashAttention (Dao et al. 2022, arXiv 2205.14135) is exact attention whose memory grows linearly in sequence "
    "length, where materialising the score matrix grows quadratically. On a 2-core CPU this project measured PyTorch's "
    "fused SDPA kernel at ~69% of the fp32 matmul peak non-causal and ~59% causal at 4096 tokens (forward, 8 heads, "
    "d 64): a regression check on the kernel and build, not a published figure."
)
NO_PAIRS = "These records lack the naive and SDPA pairs needed for a comparison."
#: memory slopes (log peak on log length): a fused kernel's below LINEAR, naive's above QUADRATIC (this project's
#: choice, read by fused_attention_linear_memory and the headline table). For a peak a T + b T^2 fitted over
#: 1024-4096 tokens, a slope of 1.2 leaves at most a third of the peak at 4096 to the (T, S) term and 1.7 at least
#: four fifths; peak bytes are the allocator's count, the same for every seed, so one seed suffices and the margin is
#: about the model of growth, not noise
LINEAR, QUADRATIC = 1.2, 1.7


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: the records, with their case columns (suites/attention_cost/tables.py ``with_cases``)
    df: pd.DataFrame
    #: the sequence lengths timed, ascending
    lengths: list[float]
    #: variant -> the naive variant of the same heads and position encoding (None without one)
    reference: dict[str, str | None]
    #: (variant, causal, pass) -> {'latency': slope, 'peak_memory': slope} (None where under two lengths)
    slopes: dict[tuple, dict[str, float | None]]


def prepare(records: pd.DataFrame) -> Evidence:
    df = with_cases(records)
    lengths, keys, reference = cases(df)
    return Evidence(df, lengths, reference, slope_rows(df, keys)[1])


def growth(mine: float, theirs: float) -> str:
    """How a kernel's memory slope reads against naive's ``theirs``: 'linear' (below LINEAR where naive grows above
    QUADRATIC), 'quadratic' (above QUADRATIC like naive), else 'neither' (between the margins, or naive not
    quadratic: nothing to contrast)."""
    if theirs <= QUADRATIC:
        return "neither"
    if mine < LINEAR:
        return "linear"
    return "quadratic" if mine > QUADRATIC else "neither"


def forward_mean(frame: pd.DataFrame, variant: str, causal: bool, x: float) -> float:
    """The mean value of ``variant``'s forward records at length ``x`` and mask ``causal`` (NaN where none)."""
    sel = frame[(frame.variant == variant) & (frame.causal == causal) & (frame.x == x) & (frame["pass"] == "fwd")]
    return float(sel.value.mean()) if len(sel) else math.nan


def kernel_of(df: pd.DataFrame, variant: str) -> str:
    """The kernel a variant ran (from its records' spec; else the name before the first '+')."""
    if "kernel" in df and len(df) and (df.variant == variant).any():
        return str(df[df.variant == variant].kernel.iloc[0])
    return variant.split("+")[0]


def fused(kernel: str) -> bool:
    """Whether a kernel streams over key blocks instead of materialising the (T, S) scores (unregistered: assumed fused)."""
    return not (kernel in kernels.names() and kernels.get(kernel).materialises_scores)
