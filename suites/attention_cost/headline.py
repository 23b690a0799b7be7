"""The attention_cost answer in one table: each fused kernel's memory growth against naive attention of the same heads,
and at the longest length both timed how much faster and leaner it is (what the linear-memory verdict reads)."""

from __future__ import annotations

import math

import pandas as pd

from harness.report_kit import table_section
from harness.report_sections import HEADLINE, Section
from suites.attention_cost.claims._shared import LINEAR, QUADRATIC, forward_mean, fused, growth, kernel_of

#: how a slope reads against the margins (claims/_shared.py ``growth``)
READS = {
    "linear": "linear (naive quadratic)",
    "quadratic": "quadratic like naive",
    "neither": "neither, by the margins",
}


def _pair(values: list[str]) -> str:
    """'0.91' when both masks read the same, else 'full / causal' ('0.91 / 0.95')."""
    return values[0] if len(set(values)) == 1 else " / ".join(values)


def rows(
    df: pd.DataFrame, slopes: dict[tuple, dict[str, float | None]], reference: dict[str, str], lengths
) -> list[dict]:
    """One row per variant with a naive reference of the same heads (forward pass, full and causal masks): the memory
    slope, the reference's, how it reads (or why it is not judged), and at the longest length both timed the speed-up
    and the memory ratio against the reference."""
    lat = df[(df.metric == "latency") & (df.status == "ok")]
    mem = df[(df.metric == "peak_memory") & (df.status == "ok")]
    cells: dict[str, dict[str, list[str]]] = {}
    for (variant, causal, pass_), entry in sorted(slopes.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        ref = reference.get(variant)
        if pass_ != "fwd" or ref is None or ref == variant or (ref, causal, pass_) not in slopes:
            continue
        mine, theirs = entry["peak_memory"], slopes[(ref, causal, pass_)]["peak_memory"]
        if mine is None or theirs is None:
            continue
        reads = READS[growth(mine, theirs)] if fused(kernel_of(df, variant)) else "not judged: materialises the scores"
        both = [
            x
            for x in lengths
            if not math.isnan(forward_mean(lat, variant, causal, x))
            and not math.isnan(forward_mean(lat, ref, causal, x))
        ]
        row = cells.setdefault(variant, {k: [] for k in ("slope", "ref", "reads", "tokens", "speed", "memory")})
        row["slope"].append(f"{mine:.2f}")
        row["ref"].append(f"{theirs:.2f}")
        row["reads"].append(reads)
        if both:
            x = max(both)
            a, b = forward_mean(lat, ref, causal, x), forward_mean(lat, variant, causal, x)
            ma, mb = forward_mean(mem, ref, causal, x), forward_mean(mem, variant, causal, x)
            row["tokens"].append(str(int(x)))
            row["speed"].append(f"{a / b:.1f}x")
            row["memory"].append(f"{ma / mb:.0f}x" if mb > 0 else "-")
        else:
            row["tokens"].append("-"), row["speed"].append("-"), row["memory"].append("-")
        row["naive"] = ref
    out = []
    for variant, c in cells.items():
        out.append(
            {
                "variant": variant,
                "memory slope": _pair(c["slope"]),
                "naive of the same heads": f"`{c['naive']}` {_pair(c['ref'])}",
                "reads as": _pair(c["reads"]),
                "at tokens": _pair(c["tokens"]),
                "speed-up": _pair(c["speed"]),
                "memory saved": _pair(c["memory"]),
            }
        )
    return out


def section(df: pd.DataFrame, slopes, reference, lengths) -> Section:
    """The report's headline table: what the linear-memory verdict reads, one row per kernel and mask."""
    note = (
        f"Forward pass; where the full and the causal mask differ a cell reads full / causal. Memory slope: least-squares slope of log(peak memory) on log(length) over the three longest "
        f"lengths (1 linear, 2 quadratic); a fused kernel reads as linear below {LINEAR:g} where naive attention of "
        f"the same heads grows above {QUADRATIC:g}. Speed-up and memory saved: naive's median time and peak memory "
        f"over the kernel's at the longest length both timed."
    )
    return table_section(
        "Memory growth: fused kernels against naive attention",
        note,
        rows(df, slopes, reference, lengths),
        "These records lack the naive and kernel pairs needed for a comparison.",
        HEADLINE,
    )
