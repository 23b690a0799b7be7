"""Reports from stored results alone: records -> pandas -> Markdown tables (tabulate) and figures.

Values are aggregated over seeds as a mean with a 95% interval that fits the quantity (harness/intervals.py:
Student-t by default), and every cell says how many seeds stand behind it. Each suite writes its own report
from these helpers.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

import pandas as pd

from harness.errors import UsageError
from harness.groups import Group, describe, report_command, select, split_groups, superseded
from harness.store import ResultsStore


def records_frame(records: Iterable[dict]) -> pd.DataFrame:
    """One row per record; ``spec`` and ``extra`` stay as dict columns."""
    return pd.DataFrame(list(records))


def mean_ci(values: Iterable[float], confidence: float = 0.95) -> Tuple[float, float, int]:
    """(mean, half-width of the Student-t interval, n); the half-width is NaN for one value. For an interval that
    fits a positive, bounded or counted quantity use ``harness.intervals.spread`` (or ``fmt_mean_ci(kind=)``)."""
    from harness.intervals import finite, t_half

    vals = finite(values)
    n = len(vals)
    if n == 0:
        return math.nan, math.nan, 0
    return sum(vals) / n, t_half(vals, confidence), n


def fmt_mean_ci(values: Iterable[float], digits: int = 2, kind: str = "t",
                bounds: Optional[Tuple[float, float]] = None) -> str:
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


def build_reports(suite: Optional[str], results_dir: Path, reports_dir: Path,
                  wanted: Optional[Mapping[str, Any]] = None, index: bool = True) -> Tuple[List[Path], List[str]]:
    """Rebuild the report of ``suite`` (or of every suite with results) from ``results_dir``, and the support matrix.

    Each report covers one group of records (harness/groups.py): the newest, or the newest matching
    ``wanted`` (profile, device, dtype, suite_version, data, set.FIELD). The index (harness/index.py) is
    rebuilt over the groups reported, and for a one-suite report over every other suite's newest group too.
    With ``index`` false only the suite reports are written (no support matrix, no index).
    Returns the paths written and lines telling which groups were found and how to report the others.
    """
    from harness.contract import suites

    store = ResultsStore(results_dir)
    names = [suite] if suite else store.suites()
    if suite:
        suites.get(suite)  # an unknown suite is a clear error
    else:  # a folder of the results that names no suite (a plugin not loaded, a user's own) is left out, not fatal
        for name in [n for n in names if n not in suites]:
            print(f"bench: warning: {results_dir}/{name}/ holds records of no known suite '{name}' (a plugin not "
                  f"installed?); left out of the reports.", file=sys.stderr)
        names = [n for n in names if n in suites]
    if not names:
        raise UsageError(f"No results under {results_dir}/; run `bench run` first.")
    from harness.support import write_support_matrix

    wanted = {k: v for k, v in (wanted or {}).items() if v is not None}
    chosen: Dict[str, Tuple[Group, List[Group]]] = {}
    misses: List[UsageError] = []
    for name in names:
        records = store.load(name)
        if not records:
            raise UsageError(f"No results for suite {name} under {results_dir}/{name}/; run `bench run suite={name}` first.")
        found = split_groups(records_frame(records))
        try:
            chosen[name] = (select(found, name, wanted), found)
        except UsageError as exc:
            if suite:
                raise
            misses.append(exc)  # over every suite, a selection need only match some of them
    if not chosen:
        raise misses[0]
    paths: List[Path] = []
    lines: List[str] = []
    from harness.report_layout import note_group

    for name, (group, found) in chosen.items():
        paths += suites.get(name).report(group.frame, reports_dir)
        note_group(reports_dir / f"{name}.md", group_note(group, found, wanted))
        lines += group_lines(name, group, found)
    lines += [f"{n}: no group matches the selection; not reported." for n in names if n not in chosen]
    if index:  # index=false: a report of one more group beside the folder's index (translation's Bible run)
        paths.append(write_support_matrix(reports_dir))
        paths.append(_index(store, chosen, names, suite, results_dir, reports_dir))
    return paths, lines


def _index(store: ResultsStore, chosen: Mapping[str, Tuple[Group, List[Group]]], names: List[str], suite: Optional[str],
           results_dir: Path, reports_dir: Path) -> Path:
    """reports/index.md over the groups just reported; a one-suite report takes every other suite's newest group."""
    from harness.index import index_groups, write_index

    reported = {name: group for name, (group, _) in chosen.items()}
    groups = index_groups(store, reported) if suite else reported
    from harness.index import other_groups

    left_out = [f"{n}: no group matches the selection; its findings say not run." for n in names if n not in chosen]
    return write_index(groups, reports_dir, str(results_dir), left_out + other_groups(store, groups))


def group_note(reported: Group, found: List[Group], wanted: Mapping[str, Any]) -> str:
    """The report's first-screen line: the group it covers, and why that one of the suite's groups."""
    if len(found) == 1:
        return f"Records: {describe(reported)}, the only group of this suite's records."
    why = ("the newest matching " + " ".join(f"{k}={v}" for k, v in wanted.items()) if wanted
           else "the newest")
    return (f"Records: {describe(reported, found)}, {why} of {len(found)} groups (a report never mixes them; "
            "`bench report` lists the others with the command that reports each).")


def group_lines(suite: str, reported: Group, found: List[Group]) -> List[str]:
    """Which groups a suite's results hold, which one was reported, and the command that reports each other."""
    if len(found) == 1:
        return [f"{suite}: 1 group of records: {describe(reported)}"]
    which = "the newest" if reported is found[0] else "the one selected"
    lines = [f"{suite}: {len(found)} groups of records (a report never mixes them); reported {which}:"]
    for group in found:
        if group is reported:
            lines.append(f"  * {describe(group, found)}")
            continue
        command = report_command(suite, group, found)
        lines.append(f"    {describe(group, found)} -> " + (command or superseded(group, found)))
    return lines
