"""reports/index.md: the page that answers "which variant should I use?", rebuilt from records like every report.

Three parts, each from the groups of records the suites' own reports cover: the findings scoreboard
(harness/scoreboard.py; every verdict from the suite's report module), the quality x cost table per
variant design (harness/tradeoffs.py) and the Pareto figure (harness/pareto.py). Nothing is typed by
hand: rows no record covers say "not run" and give the command that would fill them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Mapping, Optional

import pandas as pd

from harness import pareto, tradeoffs
from harness.columns import decode_context
from harness.fill import run_command
from harness.groups import Group, describe
from harness.report import markdown_table
from harness.findings import NOT_TESTABLE, VERDICTS
from harness.scoreboard import KIND, scoreboard
from harness.tradeoffs import fields_note

INDEX = "index.md"
FIGURE = "index_pareto.png"


def profile_chooser(frames: Mapping[str, pd.DataFrame]):
    """The profile a command for a suite should use: its reported group's, else the one profile all groups share."""
    from harness.contract import suites

    used = {name: str(frame.iloc[0].profile) for name, frame in frames.items() if len(frame)}
    common = set(used.values())

    def profile_for(name: str) -> Optional[str]:
        if name in used:
            return used[name]
        if len(common) == 1:
            (profile,) = common
            return profile if profile in suites.get(name).profiles else None
        return None

    return profile_for


def _counts(board: pd.DataFrame, noun: str = "findings") -> str:
    counts = board.verdict.value_counts()
    parts = [f"{counts.get(v, 0)} {v}" for v in VERDICTS if counts.get(v, 0) or v != NOT_TESTABLE]
    return f"{len(board)} {noun}: " + ", ".join(parts) + "."


def _board_tables(board: pd.DataFrame) -> List[str]:
    """The findings table, then the checks table (true by construction, or against this project's own earlier
    measurement: a failure there is a bug, not a result)."""
    findings = board[board[KIND] == "finding"].drop(columns=[KIND])
    checks = board[board[KIND] == "check"].drop(columns=[KIND, "cause"])
    if not findings.cause.astype(bool).any():
        findings = findings.drop(columns=["cause"])
    lines = ["One row per published finding a suite tests. The verdict is the suite's own (its report explains it), "
             "paired over seeds and magnitude-aware: a difference counts when its 95% Student-t interval excludes 0 or "
             "the arms' per-seed ranges do not overlap, else the finding is inconclusive; a claim about hardware or a "
             "size these runs do not have is not testable here. " + _counts(findings), "", markdown_table(findings), ""]
    if len(checks):
        lines += ["### Checks", "",
                  "Claims that hold by construction (a formula, an identity) or compare with this project's own earlier "
                  "measurement: they test the code, not the literature, so they are scored apart. "
                  + _counts(checks, "checks"), "", markdown_table(checks), ""]
    return lines


def render(groups: Mapping[str, Group], reports_dir: Path, results_dir: Optional[str] = None,
           left_out: List[str] = ()) -> str:
    """The index's Markdown (and its figure, written under ``reports_dir``/figures)."""
    frames = {name: group.frame for name, group in groups.items()}
    profile_for = profile_chooser(frames)
    shown_dir = None if results_dir in (None, "results") else str(results_dir)
    reports = {name: f"{name}.md" for name in frames if (reports_dir / f"{name}.md").is_file()}
    board = scoreboard(frames, profile_for, shown_dir, reports)
    table = tradeoffs.build(frames, profile_for, shown_dir)
    context = decode_context(frames.get("kv_cache"))
    figure = pareto.figure(table, reports_dir / "figures" / FIGURE,
                           f"{int(context)} cached tokens" if context else None)
    lines = ["# Which variant should I use?", "",
             f"Rebuilt by `bench report` from the records under `{results_dir or 'results'}/`; nothing here is typed by "
             "hand. Each suite contributes the group of records its own report covers (a report never mixes profiles, "
             "devices, dtypes, data or suite versions):", ""]
    lines += [f"- {name}: {describe(group)}" for name, group in sorted(groups.items())]
    lines += [f"- {line}" for line in left_out]
    lines += ["", "## Findings scoreboard", ""] + _board_tables(board)
    lines += quality_cost_section(table, shown_dir)
    lines += ["## Quality against cost", ""]
    if figure is not None:
        lines += [f"![held-out perplexity against KV-cache bytes per token and decode latency](figures/{figure.name})", "",
                  "Each point is a variant design with both a perplexity and a cost in the table above (bars: 95% "
                  "intervals over seeds where there are several); the dashed line joins the Pareto front, the designs "
                  "no other design beats on both axes. Perplexity and cost come from different suites' models; see the "
                  "table's sources.", ""]
    else:
        lines += ["No variant design has both a perplexity (position_extrapolation or language_modeling) and a "
                  f"KV-cache cost (kv_cache) yet; `{run_command('kv_cache', (), profile_for('kv_cache'), shown_dir)}` "
                  "measures the cost of the default position encodings.", ""]
    return "\n".join(lines)


def quality_cost_section(table: "tradeoffs.Table", results_dir: Optional[str] = None) -> List[str]:
    """The table, where its cells come from, and the commands that fill its gaps."""
    lines = ["## Quality and cost per variant", ""]
    if not len(table.frame):
        return lines + ["No records of position_extrapolation, language_modeling or kv_cache yet.", ""]
    lines += ["One row per variant design (the fields of its resolved spec that say what it is, not how big it is: "
              "position encoding, score, key/value grouping, norm placement and type, FFN and its width, kernel). "
              "Suites measure models of different sizes, so a letter after each number names the records it comes "
              "from, with their profile, device and model size.", ""]
    lines += fields_note(table.columns) + ["", markdown_table(table.frame), ""]
    lines += ["Sources:", ""] + [f"- [{letter}] {note}" for letter, note in table.sources.items()] + [""]
    if table.commands:
        lines += ["Commands that fill the cells marked not run:", ""]
        lines += [f"- [{n}] {command}" for command, n in table.commands.items()] + [""]
        lines += ["Or one run per suite:", ""] + [f"- {c}" for c in table.suite_commands(results_dir)] + [""]
    return lines


def write_index(groups: Mapping[str, Group], reports_dir: Path, results_dir: Optional[str] = None,
                left_out: List[str] = ()) -> Path:
    """Write ``reports_dir``/index.md (and its figure) from one group of records per suite; return its path."""
    reports_dir.mkdir(parents=True, exist_ok=True)
    path = reports_dir / INDEX
    path.write_text(render(groups, reports_dir, results_dir, left_out))
    return path


def other_groups(store, groups: Mapping[str, Group]) -> List[str]:
    """One line per group of records a suite holds beside the one the index covers, with the command that reports it
    (translation's Bible run beside its numbers run, a quick run beside a standard one)."""
    from harness.groups import selection, split_groups
    from harness.report import records_frame

    lines = []
    for name, chosen in sorted(groups.items()):
        found = split_groups(records_frame(store.load(name)))
        for group in found:
            if group.key == chosen.key:
                continue
            keys = " ".join(f"{k}={v}" for k, v in selection(group, found).items())
            lines.append(f"{name} also holds {describe(group, found)}, not in this index: "
                         f"`bench report suite={name} {keys}` reports it.")
    return lines


def index_groups(store, reported: Mapping[str, Group]) -> Dict[str, Group]:
    """The groups the index covers: those just reported, and the newest of every other suite with records."""
    from harness.groups import split_groups
    from harness.report import records_frame

    groups = dict(reported)
    for name in store.suites():
        if name not in groups:
            records = store.load(name)
            if records:
                groups[name] = split_groups(records_frame(records))[0]
    return groups
