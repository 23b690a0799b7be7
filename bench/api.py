"""Results in a notebook: one call returns a suite's records of one group as a DataFrame, another rebuilds its report.

    from bench.api import records, report

    df = records("position_extrapolation", results_dir="reference/results", profile="standard")
    df[(df.metric == "perplexity") & (df.position == "alibi")].groupby("x").value.mean()
    report(df[df.position.isin(["sinusoidal", "alibi"])], "my_reports")   # my_reports/position_extrapolation.md

``records`` gives one row per measurement (metric, x, value, unit, seed, status and every provenance
field, and ``contended``: True for a timing taken while another process held a CPU, False for a clean one,
None for a value that is no timing) with the fields of the variant's resolved spec as columns (``position``, ``n_kv_heads``, ...),
for the group of records a report would cover: the newest, or the newest matching the selection
(``profile``, ``device``, ``dtype``, ``suite_version``, ``data``, ``settings={"steps": 100}``). The
``spec`` dict stays, so ``report`` can rebuild the suite's report from any slice of the frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from harness.errors import UsageError
from harness.groups import SELECT_KEYS
from harness.rules import show
from harness.timing import contended

#: the keyword selectors of ``records`` (a profile setting is selected through ``settings``)
SELECTORS = SELECT_KEYS
#: the columns every record has, which ``report`` needs
REQUIRED_COLUMNS = ("metric", "status", "variant", "value", "spec")


def records(
    suite: str, results_dir: str | Path = "results", settings: dict[str, Any] | None = None, **selection: Any
) -> pd.DataFrame:
    """The records of one group of ``suite`` under ``results_dir``, one row per measurement, spec fields as columns.

    A spec field that a record already holds with other values (a fact of the same name) is added as
    ``spec_<field>``. ``frame.attrs`` keeps the suite and a description of the group.
    """
    from harness.groups import describe, select, split_groups
    from harness.report import records_frame
    from harness.store import ResultsStore

    _check_suite(suite)
    _check_folder("results_dir", results_dir)
    unknown = [key for key in selection if key not in SELECTORS]
    if unknown:
        from variants import close_matches

        matches = close_matches(unknown[0], list(SELECTORS))
        hint = f" Did you mean {matches[0]}=?" if matches else ""
        raise UsageError(
            f"records() has no selector {unknown[0]}={show(selection[unknown[0]])}.{hint} Selectors: "
            f"{', '.join(SELECTORS)}, and settings={{'steps': 100, ...}}."
        )
    if settings is not None and not isinstance(settings, Mapping):
        raise UsageError(
            f"settings={show(settings)} is not a mapping of setting names to values; give e.g. "
            f"settings={{'steps': 100}}."
        )
    found = ResultsStore(results_dir).load(suite)
    if not found:
        raise UsageError(
            f"No results for suite {suite} under {results_dir}/{suite}/; run `bench run suite={suite}` first."
        )
    wanted = dict(selection)
    wanted.update({f"set.{name}": value for name, value in (settings or {}).items()})
    groups = split_groups(records_frame(found))
    group = select(groups, suite, wanted)
    frame = with_spec_columns(group.frame)
    frame["contended"] = [contended(e) for e in frame.extra] if "extra" in frame else None
    frame.attrs.update(suite=suite, group=describe(group, groups))
    return frame


def _check_suite(suite: Any) -> None:
    """A UsageError unless ``suite`` names a registered suite (the sentence ``bench run suite=`` prints)."""
    from harness.contract import suites

    if not isinstance(suite, str):
        raise UsageError(f"suite={show(suite)} is not a suite name; give one of {', '.join(suites.names())}.")
    suites.get(suite)  # an unknown name: UnknownNameError, one sentence with close matches


def _check_folder(key: str, value: Any) -> None:
    if not isinstance(value, (str, Path)) or not str(value):
        raise UsageError(
            f"{key}={show(value)} is not a folder path; give a path such as {key}="
            f"{'reports' if key == 'reports_dir' else 'results'}."
        )


def with_spec_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with one column per spec field (``spec_<field>`` where a different column of that name exists)."""
    specs = pd.DataFrame([s if isinstance(s, dict) else {} for s in frame.spec], index=frame.index)
    out = frame.copy()
    added = []
    for name in specs.columns:
        column = specs[name]
        if name in out.columns:
            if out[name].equals(column):
                continue
            name = f"spec_{name}"
        out[name] = column
        added.append(name)
    out.attrs["spec_columns"] = added
    return out


def report(frame: pd.DataFrame, reports_dir: str | Path = "reports") -> list[Path]:
    """Rebuild the suite's report (and figures) under ``reports_dir`` from a frame of ``records`` (or a slice of it).

    The frame must hold one suite's records of one group, as ``records`` returns them; the spec columns it
    added are dropped again. Returns the paths written.
    """
    from bench.config import writable_folder
    from harness.contract import suites
    from harness.groups import split_groups

    if not isinstance(frame, pd.DataFrame):
        raise UsageError(
            f"report() takes a DataFrame of records(...) or a slice of it, not a {type(frame).__name__} "
            f"({show(frame)[:40]})."
        )
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise UsageError(
            f"The frame lacks the column(s) {', '.join(missing)} that every record has; pass a frame "
            f"from records(...) or a slice of it."
        )
    _check_folder("reports_dir", reports_dir)
    problem = writable_folder("reports_dir", str(reports_dir))
    if problem:
        raise UsageError(problem)
    if not len(frame):
        raise UsageError("The frame holds no records; nothing to report.")
    names = sorted(set(frame.suite)) if "suite" in frame else [frame.attrs.get("suite")]
    if len(names) != 1 or names[0] is None:
        raise UsageError(f"A report covers one suite; this frame holds {', '.join(map(str, names))}.")
    groups = split_groups(frame)
    if len(groups) != 1:
        raise UsageError(
            f"A report never mixes groups of records; this frame holds {len(groups)} (select one with "
            "records(..., profile=..., device=...))."
        )
    added = list(frame.attrs.get("spec_columns") or [c for c in frame.columns if c.startswith("spec_")]) + ["contended"]
    plain = frame.drop(columns=[c for c in added if c in frame.columns]).reset_index(drop=True)
    from bench.report.build import write_suite_report

    return write_suite_report(suites.get(names[0]), plain, Path(reports_dir))
