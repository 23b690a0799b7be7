"""The report toolkit: what every suite's report module shares, so a report module states only what is its own.

- the title block and the seeds, first usable record and code line of a group (``title``, ``seeds``,
  ``begin``, ``first_ok``; ``code_line`` from harness/groups.py is the provenance at the end of each Setup);
- the order variants are listed in (``in_order``);
- notes on records that are not numbers (failed, diverged, oom, skipped: ``status_notes``);
- means with intervals that fit the quantity, the captions that say what a cell shows, and Markdown tables
  (``mean_ci``, ``fmt_mean_ci``, ``fmt_pct``, ``over_seeds``, ``most_seeds``, ``share_cell``, ``fmt_count``,
  ``markdown_table``, ``table_section``: a section of one table, harness/report_sections.py);
- labelled axes (``axis_label``: a metric's name and unit); ``pyplot`` and ``save_figure`` are
  harness/figures.py's, the figure kit every suite draws with;
- verdict helpers that read a metric's direction (``metric``, ``better``, ``worse``) and fold several
  comparisons into one verdict (``combine``).

The group of records a report covers is chosen by harness/groups.py (``bench report`` hands each report
one group); mean and interval arithmetic lives in harness/report.py and is re-exported here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from harness.contract import Metric
from harness.figures import pyplot, save_figure
from harness.groups import code_line
from harness.report import fmt_mean_ci, markdown_table, mean_ci
from harness.report_sections import BODY, Section, section

__all__ = [
    "title",
    "seeds",
    "begin",
    "first_ok",
    "code_line",
    "in_order",
    "status_notes",
    "mean_ci",
    "fmt_mean_ci",
    "fmt_pct",
    "over_seeds",
    "most_seeds",
    "share_cell",
    "fmt_count",
    "markdown_table",
    "table_section",
    "pyplot",
    "save_figure",
    "axis_label",
    "metric",
    "better",
    "worse",
    "combine",
]


# --- the group's facts -------------------------------------------------------------------------------


def title(suite, heading: str, first) -> list[str]:
    """'# Heading (suite, suite version V)', then the first line of the suite's description."""
    return [
        f"# {heading} ({suite.name}, suite version {first.suite_version})",
        "",
        suite.description.strip().splitlines()[0],
        "",
    ]


def seeds(df: pd.DataFrame) -> list[int]:
    """The seeds of a group, sorted."""
    return sorted(int(s) for s in df.seed.unique())


def begin(df: pd.DataFrame, out_dir: Path, order: Sequence[str] = ()):
    """Make the report's folder; (the group's first record, its variants in ``order``, its seeds)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    return df.iloc[0], in_order(df.variant.unique(), order), seeds(df)


def first_ok(df: pd.DataFrame):
    """The first record that ran (skipped and failed records carry no job facts), else the first record."""
    ok = df[df.status == "ok"]
    return ok.iloc[0] if len(ok) else df.iloc[0]


# --- order and status ----------------------------------------------------------------------------------


def in_order(variants: Iterable[str], preferred: Sequence[str] = ()) -> list[str]:
    """Variants in the suite's preferred order, the others after them alphabetically."""
    preferred = tuple(preferred)
    return sorted(variants, key=lambda v: (preferred.index(v) if v in preferred else len(preferred), v))


def status_notes(
    df: pd.DataFrame,
    line: str | Callable[[Any], str] = "- `{variant}`: {status}: {reason}",
    statuses: Sequence[str] | None = None,
    keys: Sequence[str] = ("variant", "status", "reason"),
) -> list[str]:
    """One line per distinct record that is not a number (failed, diverged, oom, skipped, unsupported).

    ``statuses`` picks which (default: every status but ok); ``keys`` which columns make two records the
    same note; ``line`` is formatted with the record's columns (or called with the record).
    """
    bad = df[df.status.isin(statuses)] if statuses is not None else df[df.status != "ok"]
    say = (
        line
        if callable(line)
        else (
            lambda r: line.format(**{k: markdown_text(v) if isinstance(v, str) else v for k, v in r._asdict().items()})
        )
    )
    return [say(r) for r in bad.drop_duplicates(list(keys)).itertuples()]


def machines(df: pd.DataFrame) -> str:
    """'AMD EPYC, 1 thread' for a group one processor and thread count timed, else each with its jobs:
    'Intel(R) Xeon(R) Processor with 1 thread (47 jobs); AMD EPYC with 2 threads (5 jobs): timings of different
    machines'."""
    if "device_name" not in df or "job_hash" not in df:
        return "?"
    threads = df.num_threads if "num_threads" in df else pd.Series(None, index=df.index)
    kinds = df.assign(_threads=threads.fillna(0).astype(int)).groupby(["device_name", "_threads"], sort=False).job_hash
    counts = kinds.nunique()

    def one(name, count) -> str:
        return f"{name}" + (f" with {count} thread{'s' if count != 1 else ''}" if count else "")

    if len(counts) == 1:
        ((name, count),) = counts.index
        return one(name, count)
    return (
        "; ".join(f"{one(name, count)} ({jobs} jobs)" for (name, count), jobs in counts.items())
        + ": timings of different machines and thread counts, compare them within one"
    )


def marked(text: str, rows: pd.DataFrame) -> str:
    """``text`` with the contended mark when any measured record among ``rows`` was timed under load."""
    from harness.timing import CONTENDED_MARK, any_contended

    return text + (CONTENDED_MARK if len(rows) and any_contended(rows) else "")


def markdown_text(text: str) -> str:
    """Free text of a record (a failure's reason, an exception's message) as Markdown shows it literally: HTML
    characters escaped, a table's cell separator and code quotes neutralised, one line."""
    import html

    return html.escape(" ".join(str(text).split()), quote=False).replace("|", "\\|").replace("`", "'")


# --- numbers -------------------------------------------------------------------------------------------


def fmt_pct(values: Iterable[float], digits: int = 1) -> str:
    """'+1.2% [+0.4, +2.0] (n=3)' of per-seed relative changes 100 (a / b - 1) of a positive quantity, '+1.2% (n=1)'
    for one seed, '-' for none.

    The interval is that of the per-seed ratios a / b on a log scale (harness/intervals.py ``change``), so it stays
    above -100% and excludes 0 exactly when the log ratios' interval does; a change at or below -100% (no ratio's
    logarithm) falls back to the Student-t interval of the changes."""
    from harness.intervals import change, finite, spread

    vals = finite(values)
    if not vals:
        return "-"
    ratios = [1.0 + v / 100.0 for v in vals]
    s = change(ratios) if all(r > 0 for r in ratios) else spread(vals, "t")
    if s.n == 1 or s.low is None or s.high is None:
        return f"{s.mean:+.{digits}f}% (n={s.n})"
    return f"{s.mean:+.{digits}f}% [{s.low:+.{digits}f}, {s.high:+.{digits}f}] (n={s.n})"


def over_seeds(n_seeds: int, counts: bool = False, differences: bool = False, brackets: bool = True) -> str:
    """How a table's cells read, for its caption: 'mean [95% interval] over seeds' (an interval that keeps to the
    quantity's bounds, harness/intervals.py; ``brackets=False``: every cell is an unbounded 'mean ± 95% interval'),
    with 'differences: mean ± 95% interval' and 'counts: mean (range over seeds)' where the table has them; 'one
    seed: no interval' when no cell has more than one seed."""
    if n_seeds < 2:
        return "one seed: no interval"
    parts = ["mean [95% interval] over seeds" if brackets else "mean ± 95% interval over seeds"]
    if differences and brackets:
        parts.append("differences: mean ± 95% interval")
    if counts:
        parts.append("counts: mean (range over seeds)")
    return "; ".join(parts)


def most_seeds(df: pd.DataFrame) -> int:
    """The most seeds any (variant, metric, x) cell of the records that ran has: 1 means no cell has an interval."""
    ok = df[df.status == "ok"] if "status" in df else df
    if ok.empty:
        return 0
    keys = [k for k in ("variant", "metric", "x") if k in ok]
    return int(ok.groupby(keys, dropna=False).seed.nunique().max()) if keys else int(ok.seed.nunique())


def share_cell(cell: pd.DataFrame, digits: int = 2) -> str:
    """One table cell of a share in [0, 1] (an accuracy) from a cell's records: the mean [interval kept within 0-1]
    of its ok values, else the status of its first record ('diverged', 'skipped'), '-' when it has none."""
    ok = cell[cell.status == "ok"].value
    if len(ok):
        return fmt_mean_ci(ok, digits, "bounded", (0.0, 1.0))
    return str(cell.status.iloc[0]) if len(cell) else "-"


def fmt_count(n: float | None) -> str:
    """A count with an SI suffix: 1.23M, 456k; '-' when missing."""
    if n is None or (isinstance(n, float) and math.isnan(n)):
        return "-"
    for unit, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.3g}{unit}"
    return f"{n:.0f}"


def table_section(
    heading: str, note: str, rows: list[dict], empty: str, kind: str = BODY, after: Sequence[str] = ()
) -> Section:
    """The report section ``heading`` of ``kind``: ``note`` (left out when empty), the rows as a Markdown table
    (``empty`` when none), then the lines ``after`` it."""
    return section(
        heading,
        ([note, ""] if note else []) + [markdown_table(pd.DataFrame(rows)) if rows else empty, ""] + list(after),
        kind,
    )


# --- figures ---------------------------------------------------------------------


def axis_label(m: Metric, name: str | None = None) -> str:
    """An axis label from a metric: 'latency (ms)', or the name alone when the metric has no unit."""
    name = name or m.name.replace("_", " ")
    return f"{name} ({m.unit})" if m.unit else name


# --- verdicts ------------------------------------------------------------------------------------------


def metric(suite: str, name: str) -> Metric:
    """The declared Metric ``name`` of a registered suite (its unit and direction)."""
    from harness.contract import suites

    for m in suites.get(suite).metrics:
        if m.name == name:
            return m
    raise KeyError(f"suite {suite} declares no metric {name!r}")


def better(m: Metric, new: float, old: float) -> bool:
    """Whether ``new`` is strictly better than ``old`` by the metric's direction (NaN, or a metric with no
    direction, is never better)."""
    if math.isnan(new) or math.isnan(old) or m.higher_is_better is None:
        return False
    return new > old if m.higher_is_better else new < old


def worse(m: Metric, new: float, old: float) -> bool:
    """Whether ``new`` is strictly worse than ``old`` by the metric's direction (NaN is never worse)."""
    return better(m, old, new)


def combine(labels: Sequence[str]) -> str:
    """One verdict from several comparisons: 'not run' with none, the common one when all agree, else 'inconclusive'."""
    if not labels:
        return "not run"
    return labels[0] if len(set(labels)) == 1 else "inconclusive"
