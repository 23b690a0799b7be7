"""The numbers of a report: records -> pandas, means with intervals over seeds, Markdown tables (tabulate).

Values are aggregated over seeds as a mean with a 95% interval that fits the quantity (harness/intervals.py:
Student-t by default), and every cell says how many seeds stand behind it. Each suite writes its own report
with these helpers and harness/report_kit.py; bench/report/build.py chooses the records and lays the report out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd


def records_frame(records: Iterable[dict]) -> pd.DataFrame:
    """One row per record; ``spec`` and ``extra`` stay as dict columns."""
    return pd.DataFrame(list(records))


def mean_ci(values: Iterable[float], confidence: float = 0.95) -> tuple[float, float, int]:
    """(mean, half-width of the Student-t interval, n); the half-width is NaN for one value. For an interval that
    fits a positive, bounded or counted quantity use ``harness.intervals.spread`` (or ``fmt_mean_ci(kind=)``)."""
    from harness.intervals import finite, t_half

    vals = finite(values)
    n = len(vals)
    if n == 0:
        return math.nan, math.nan, 0
    return sum(vals) / n, t_half(vals, confidence), n


def fmt_mean_ci(
    values: Iterable[float], digits: int = 2, kind: str = "t", bounds: tuple[float, float] | None = None
) -> str:
    """'12.34 ± 0.56 (n=3)' (kind "t"), '12.34 [11.80, 12.90] (n=3)' (kind "log" or "bounded": an interval that
    keeps to the quantity's bounds), '3.7 (range 1-6, n=3)' (kind "count"; '5 (all 5, n=3)' when every seed has the
    same); '12.34 (n=1)' for a single seed, '-' without values. Kinds as in harness/intervals.py."""
    from harness.intervals import spread

    s = spread(values, kind, bounds)
    if s.n == 0:
        return "-"
    if s.n == 1:
        return f"{s.mean:.{digits}f} (n=1)"
    if kind == "count":
        if s.lowest == s.highest:  # every seed the same, as harness/findings.py's Estimate says it
            return f"{s.mean:.{digits}f} (all {s.lowest:g}, n={s.n})"
        joint = " to " if s.lowest < 0 else "-"
        return f"{s.mean:.{digits}f} (range {s.lowest:g}{joint}{s.highest:g}, n={s.n})"
    if s.low is None or s.high is None or math.isnan(s.low):
        return f"{s.mean:.{digits}f} (n={s.n})"
    if kind == "t":
        return f"{s.mean:.{digits}f} ± {(s.high - s.low) / 2:.{digits}f} (n={s.n})"
    return f"{s.mean:.{digits}f} [{s.low:.{digits}f}, {s.high:.{digits}f}] (n={s.n})"


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table of a DataFrame (its index not shown)."""
    return frame.to_markdown(index=False)
