"""Latency ratios between two forms of one layer (a recurrence token by token against its chunked form, the
sequential GRU against minGRU's scan) and the report's table of every recurrence's loop against its default form."""

from __future__ import annotations

import pandas as pd

from harness.report_kit import markdown_table
from harness.report_sections import Section, section
from suites.common.timing_repeats import LogTiming, log_timing


def latencies(df: pd.DataFrame, variant: str, pass_: str) -> dict[float, float]:
    """length -> the mean over seeds of one variant's median latency in one pass (ok records)."""
    rows = df[(df.metric == "latency") & (df.status == "ok") & (df.variant == variant) & (df["pass"] == pass_)]
    return {float(x): float(part.value.mean()) for x, part in rows.groupby("x")}


def timings(df: pd.DataFrame, variant: str, pass_: str) -> dict[float, dict[int, LogTiming | None]]:
    """length -> seed -> one variant's log median latency with its variance from the timing repeats
    (suites/common/timing_repeats.py; None where the record keeps too few repeats)."""
    rows = df[(df.metric == "latency") & (df.status == "ok") & (df.variant == variant) & (df["pass"] == pass_)]
    out: dict[float, dict[int, LogTiming | None]] = {}
    for r in rows.itertuples():
        settings = getattr(r, "profile_settings", None)
        at_least = settings.get("min_repeats") if isinstance(settings, dict) else None
        out.setdefault(float(r.x), {})[int(getattr(r, "seed", 0))] = log_timing(float(r.value), r.extra, at_least)
    return out


def pass_of(df: pd.DataFrame) -> str:
    """The pass a training-speed claim compares: fwd+bwd where timed, else fwd."""
    return "fwd+bwd" if (df["pass"] == "fwd+bwd").any() else "fwd"


def speedup(df: pd.DataFrame, slow: str, fast: str) -> tuple[str, dict[float, float]]:
    """(the pass compared, length -> ``slow``'s latency over ``fast``'s at the lengths both were timed)."""
    pass_ = pass_of(df)
    a, b = latencies(df, slow, pass_), latencies(df, fast, pass_)
    return pass_, {x: a[x] / b[x] for x in sorted(set(a) & set(b))}


def speedup_section(df: pd.DataFrame) -> Section | None:
    """For every recurrence timed in both forms (``v`` and ``v+loop``), the loop's latency over the default form's at
    each length both were timed (chunked_form_speedup is judged on Gated DeltaNet); None where none was."""
    loops = sorted(v[: -len("+loop")] for v in df.variant.unique() if v.endswith("+loop"))
    rows, pass_ = [], "fwd"
    for chunked in loops:
        pass_, ratios = speedup(df, f"{chunked}+loop", chunked)
        if ratios:
            rows.append({"recurrence": f"`{chunked}`", **{f"{x:g} tokens": f"{r:.2f}x" for x, r in ratios.items()}})
    if not rows:
        return None
    table = pd.DataFrame(rows).fillna("-")
    return section(
        "Each recurrence's training form against its token-by-token loop",
        [
            f"Training-step time ({pass_}) of each recurrence token by token (`+loop`) over its default form (chunked "
            "for the linear recurrences, a parallel scan for minGRU, the fused library kernel for LSTM and GRU), mean "
            "over seeds of the median latency; above 1 the default form is faster. Timings marked contended in the "
            "tables above apply here too.",
            "",
            markdown_table(table.iloc[:, :8]),
            "",
        ],
    )
