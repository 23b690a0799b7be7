"""Building reports: which group of records each suite's report covers, the suite's own report laid out to lead
with its answer, the support matrix and the index.

Each report covers one group of records (harness/groups.py): the newest, or the newest matching the selection.
The suite writes its report from that group (``Suite.report``); the layout (bench/report/layout.py) then puts the
Verdicts block of the suite's findings first, says on the first screen which group it covers and whether its
timings were taken under load, and keeps bookkeeping last.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.errors import UsageError
from harness.groups import Group, describe, report_command, select, split_groups, superseded
from harness.report import records_frame
from harness.store import ResultsStore


def write_suite_report(suite, records, out_dir: Path, group_line: str | None = None) -> list[Path]:
    """Write ``suite``'s report (and figures) from one group of records, laid out; return the paths.

    The report leads with its answer (bench/report/layout.py): the Verdicts block of this suite's findings first,
    then its headline table and figure, bookkeeping last; the first screen says which group of records it covers
    (``group_line``) and whether its timings were taken under load, and a group that mixes library versions says so
    at the end of its Setup."""
    from bench.report.layout import render
    from bench.run.retime import report_line
    from harness import atomic
    from harness.env import mixed_versions

    Path(out_dir).mkdir(parents=True, exist_ok=True)
    report = suite.report(records, out_dir)
    profile = str(records.iloc[0].profile) if len(records) and "profile" in records else None
    versions = mixed_versions(records.to_dict("records")) if "library_versions" in records else None
    findings = suite.findings(records) if suite.claims else []
    busy = report_line(records, suite)  # on the first screen: the costs below are not the machine's alone
    path = Path(out_dir) / f"{suite.name}.md"
    notes = [line for line in (busy, group_line) if line]
    atomic.write_text(path, render(report, findings, profile, versions, notes))
    return [path, *report.files]


def build_reports(
    suite: str | None, results_dir: Path, reports_dir: Path, wanted: Mapping[str, Any] | None = None, index: bool = True
) -> tuple[list[Path], list[str]]:
    """Rebuild the report of ``suite`` (or of every suite with results) from ``results_dir``, and the support matrix.

    Each report covers one group of records (harness/groups.py): the newest, or the newest matching
    ``wanted`` (profile, device, dtype, suite_version, data, set.FIELD). The index (bench/index/page.py) is
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
            print(
                f"bench: warning: {results_dir}/{name}/ holds records of no known suite '{name}' (a plugin not "
                f"installed?); left out of the reports.",
                file=sys.stderr,
            )
        names = [n for n in names if n in suites]
    if not names:
        raise UsageError(f"No results under {results_dir}/; run `bench run` first.")
    from bench.report.support import write_support_matrix

    wanted = {k: v for k, v in (wanted or {}).items() if v is not None}
    chosen: dict[str, tuple[Group, list[Group]]] = {}
    misses: list[UsageError] = []
    for name in names:
        records = store.load(name)
        if not records:
            raise UsageError(
                f"No results for suite {name} under {results_dir}/{name}/; run `bench run suite={name}` first."
            )
        found = split_groups(records_frame(records))
        try:
            chosen[name] = (select(found, name, wanted), found)
        except UsageError as exc:
            if suite:
                raise
            misses.append(exc)  # over every suite, a selection need only match some of them
    if not chosen:
        raise misses[0]
    paths: list[Path] = []
    lines: list[str] = []
    for name, (group, found) in chosen.items():
        paths += write_suite_report(suites.get(name), group.frame, reports_dir, group_note(group, found, wanted))
        lines += group_lines(name, group, found)
    lines += [f"{n}: no group matches the selection; not reported." for n in names if n not in chosen]
    if index:  # index=false: a report of one more group beside the folder's index (translation's Bible run)
        paths.append(write_support_matrix(reports_dir))
        paths.append(_index(store, chosen, names, suite, results_dir, reports_dir))
    return paths, lines


def _index(
    store: ResultsStore,
    chosen: Mapping[str, tuple[Group, list[Group]]],
    names: list[str],
    suite: str | None,
    results_dir: Path,
    reports_dir: Path,
) -> Path:
    """reports/index.md over the groups just reported; a one-suite report takes every other suite's newest group."""
    from bench.index.page import index_groups, write_index

    reported = {name: group for name, (group, _) in chosen.items()}
    groups = index_groups(store, reported) if suite else reported
    from bench.index.page import held_groups

    left_out = [f"{n}: no group matches the selection; its findings say not run." for n in names if n not in chosen]
    return write_index(groups, reports_dir, str(results_dir), left_out, held_groups(store, groups))


def group_note(reported: Group, found: list[Group], wanted: Mapping[str, Any]) -> str:
    """The report's first-screen line: the group it covers, and why that one of the suite's groups."""
    if len(found) == 1:
        return f"Records: {describe(reported)}, the only group of this suite's records."
    why = "the newest matching " + " ".join(f"{k}={v}" for k, v in wanted.items()) if wanted else "the newest"
    return (
        f"Records: {describe(reported, found)}, {why} of {len(found)} groups (a report never mixes them; "
        "`bench report` lists the others with the command that reports each)."
    )


def group_lines(suite: str, reported: Group, found: list[Group]) -> list[str]:
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
