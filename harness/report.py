"""Reports from stored results alone: records -> pandas -> Markdown tables (tabulate) and figures.

Values are aggregated over seeds as a mean with a 95% Student-t interval, and every cell says how many
seeds stand behind it. Each suite writes its own report from these helpers.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable, List, Optional, Tuple

import pandas as pd

from harness.errors import UsageError
from harness.store import ResultsStore


def records_frame(records: Iterable[dict]) -> pd.DataFrame:
    """One row per record; ``spec`` and ``extra`` stay as dict columns."""
    return pd.DataFrame(list(records))


def mean_ci(values: Iterable[float], confidence: float = 0.95) -> Tuple[float, float, int]:
    """(mean, half-width of the Student-t interval, n); the half-width is NaN for one value."""
    from scipy import stats

    vals = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    n = len(vals)
    if n == 0:
        return math.nan, math.nan, 0
    mean = sum(vals) / n
    if n == 1:
        return mean, math.nan, 1
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (n - 1))
    return mean, stats.t.ppf(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n), n


def fmt_mean_ci(values: Iterable[float], digits: int = 2) -> str:
    """'12.34 ± 0.56 (n=3)', or '12.34 (n=1)' for a single seed, or '-' without values."""
    mean, half, n = mean_ci(values)
    if n == 0:
        return "-"
    if math.isnan(half):
        return f"{mean:.{digits}f} (n={n})"
    return f"{mean:.{digits}f} ± {half:.{digits}f} (n={n})"


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table of a DataFrame (its index not shown)."""
    return frame.to_markdown(index=False)


def build_reports(suite: Optional[str], results_dir: Path, reports_dir: Path) -> List[Path]:
    """Rebuild the report of ``suite`` (or of every suite with results) from ``results_dir``, and the support matrix."""
    from suites._suite import suites

    store = ResultsStore(results_dir)
    names = [suite] if suite else store.suites()
    if suite:
        suites.get(suite)  # an unknown suite is a clear error
    if not names:
        raise UsageError(f"No results under {results_dir}/; run `bench run` first.")
    from harness.support import write_support_matrix

    paths: List[Path] = []
    for name in names:
        records = store.load(name)
        if not records:
            raise UsageError(f"No results for suite {name} under {results_dir}/{name}/; run `bench run suite={name}` first.")
        paths += suites.get(name).report(records_frame(records), reports_dir)
    paths.append(write_support_matrix(reports_dir))
    return paths
