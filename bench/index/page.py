"""reports/index.md: the page that answers "which variant should I use?", rebuilt from records like every report.

Three parts, each from the groups of records the suites' own reports cover: the findings scoreboard
(bench/index/scoreboard.py; every verdict from the suite's report module), the quality x cost table with one row
per trained model, its quality and cost measured by the same jobs (bench/index/tradeoffs.py), and the Pareto figure
of those models (bench/index/pareto.py); then any section a suite's report module adds (``index_section``: recall's
memory view beside kv_cache's decode steps). Nothing is typed by hand: cells no record covers say "not run" and give
the command that would fill them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from bench.index import pareto, tradeoffs
from bench.index.answers import answers_section
from bench.index.fill import run_command
from bench.index.scoreboard import CLAIM, FROM, KIND, P, Q, family, scoreboard
from harness import atomic
from harness.findings import NOT_TESTABLE, VERDICTS
from harness.groups import Group, describe
from harness.report import markdown_table
from harness.timing import CONTENDED_MARK

INDEX = "index.md"
FIGURE = "index_pareto.png"


def profile_chooser(frames: Mapping[str, pd.DataFrame]):
    """The profile a command for a suite should use: its reported group's, else the one profile all groups share."""
    from harness.contract import suites

    used = {name: str(frame.iloc[0].profile) for name, frame in frames.items() if len(frame)}
    common = set(used.values())

    def profile_for(name: str) -> str | None:
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


def _board_tables(board: pd.DataFrame) -> list[str]:
    """The findings table, then the checks table (true by construction, or against this project's own earlier
    measurement: a failure there is a bug, not a result)."""
    tested = board[board[KIND] == "finding"]
    findings = tested.drop(columns=[KIND, CLAIM, FROM, P])
    checks = board[board[KIND] == "check"].drop(columns=[KIND, CLAIM, FROM, P, Q, "cause"])
    if not findings.cause.astype(bool).any():
        findings = findings.drop(columns=["cause"])
    lines = [
        "One row per published finding a suite tests. The verdict is the suite's own (its report explains it), "
        "on one paired test over seeds: a difference counts when its paired 95% interval excludes 0 (Student-t on "
        "the per-seed differences, or on the per-seed log ratios of positive quantities; its size is 5%), else "
        "the finding is inconclusive and its cause plans the seeds that would detect the claim's smallest effect "
        "of interest; a claim that two arms are alike agrees when the whole interval lies within its stated "
        "tolerance; a bar on a mean is a one-sided test against the bar; a claim of several parts (a ranking, a "
        "conjunction) agrees when every part does and is refuted only by a part that holds with the parts held "
        "at 2.5% together (Holm); one seed is judged only against the 95% prediction bound of one seed of the "
        "same quantity from the standard profile's seeds, and marked indicative only; a claim whose "
        "precondition (declared before the results, about the setting: hardware, a size, the source's protocol) "
        "is absent here is not testable here, with the measurement that shows "
        "it. " + _counts(findings) + " " + family(tested),
        "",
        markdown_table(findings),
        "",
    ]
    if len(checks):
        lines += [
            "### Checks",
            "",
            "Claims that hold by construction (a formula, an identity) or compare with this project's own earlier "
            "measurement: they test the code, not the literature, so they are scored apart. "
            + _counts(checks, "checks"),
            "",
            markdown_table(checks),
            "",
        ]
    return lines


def render(
    groups: Mapping[str, Group],
    reports_dir: Path,
    results_dir: str | None = None,
    left_out: list[str] = (),
    held: Mapping[str, Sequence[Group]] = {},
) -> str:
    """The index's Markdown (and its figure, written under ``reports_dir``/figures); ``held`` maps a suite to every
    group of records it holds, newest first (its other groups lend the scoreboard the claims its own does not test)."""
    frames = {name: group.frame for name, group in groups.items()}
    profile_for = profile_chooser(frames)
    shown_dir = None if results_dir in (None, "results") else str(results_dir)
    reports = {name: f"{name}.md" for name in frames if (reports_dir / f"{name}.md").is_file()}
    lenders = {name: lendable(held.get(name, ()), group) for name, group in groups.items()}
    board = scoreboard(frames, profile_for, shown_dir, reports, {n: [g.frame for g in gs] for n, gs in lenders.items()})
    from harness.contract import suites

    suite_of = {c.key: name for name in suites.names() for c in suites.get(name).claims}
    lent = {
        (name, lenders[name][int(place)].key): list(rows.finding)
        for (name, place), rows in board[board[FROM] != ""].groupby([board[CLAIM].map(suite_of), FROM])
    }
    left_out = list(left_out) + other_lines(held, groups, lent)
    table = tradeoffs.build(frames, profile_for, shown_dir)
    figure = pareto.figure(table, reports_dir / "figures" / FIGURE)
    lines = ["# Which variant should I use?", ""] + answers_section(board, frames)
    lines += [
        "## Records",
        "",
        f"Rebuilt by `bench report` from the records under `{results_dir or 'results'}/`; nothing here is typed by "
        "hand. Each suite contributes the group of records its own report covers (a report never mixes profiles, "
        "devices, dtypes, data or suite versions):",
        "",
    ]
    lines += [f"- {name}: {describe(group)}" for name, group in sorted(groups.items())]
    lines += [f"- {line}" for line in left_out]
    lines += ["", "## Findings scoreboard", ""] + _board_tables(board)
    lines += quality_cost_section(table, shown_dir)
    lines += ["## Quality against cost", ""] + figure_section(table, figure, profile_for, shown_dir)
    lines += suite_sections(frames, reports_dir)
    return "\n".join(lines)


def suite_sections(frames: Mapping[str, pd.DataFrame], reports_dir: Path) -> list[str]:
    """The sections a suite's report module adds to the index (``index_section(frames, reports_dir)``), drawn from the
    groups the index covers, every suite's frame at hand (recall's memory view reads kv_cache's decode steps too)."""
    from harness.contract import suites

    lines: list[str] = []
    for name in sorted(frames):
        suite = suites.get(name)
        module = suite._reporter() if suite.report_module else None
        if module is not None and hasattr(module, "index_section"):
            lines += module.index_section(frames, reports_dir)
    return lines


def quality_cost_section(table: tradeoffs.Table, results_dir: str | None = None) -> list[str]:
    """The table, where its cells come from, and the commands that fill its gaps."""
    lines = ["## Quality and cost per trained model", ""]
    if not len(table.frame):
        return lines + [
            "No records of position_extrapolation or language_modeling yet; "
            f"`{run_command('position_extrapolation', (), None, results_dir)}` trains its five position "
            "encodings and measures each one's quality and cost.",
            "",
        ]
    lines += [
        "One row per trained model: its quality and its cost were measured by the same jobs, on the job's device "
        "and dtype, after training (a RoPE extension evaluates the rope weights with its own scaling, so it is "
        "its own row). Quality: held-out perplexity per character, mean [95% interval] over seeds (log scale). Cost: "
        "parameters; matrix-product FLOPs of training per training token (torch.utils.flop_counter); training "
        "tokens/s; peak memory of one training step, weights and AdamW state included; KV-cache bytes per token "
        "measured from the cache a prefill filled (equal to 2 x layers x kv_heads x head_dim x bytes); prefill of "
        "L tokens and one cached decode step at L and 8L tokens, batch 1, timed as the kv_cache suite times "
        "(warm-up, repeats, repeats under contention dropped; one seed shows its quartiles over repeats). "
        "Models of different suites differ in size and training: compare rows within a suite. The kv_cache and "
        "attention_cost suites time models of other sizes; their numbers stay in their own reports.",
        "",
    ]
    quality, cost = tradeoffs.views(table.frame)
    lines += [
        "Quality and training budget:",
        "",
        markdown_table(quality),
        "",
        "Inference and training memory, batch 1:",
        "",
        markdown_table(cost),
        "",
    ]
    busy = int(table.frame.apply(lambda col: col.astype(str).str.endswith(CONTENDED_MARK)).to_numpy().sum())
    if busy:
        lines += [
            f'{busy} timing cell(s) above are marked "(contended)": taken while another process held a CPU '
            "(harness/timing.py), they are shown as measured but left out of the figure and every ranking; "
            "`bench run suite=<suite> profile=<profile> retime=true` takes them again alone, training nothing.",
            "",
        ]
    lines += ["Records:", ""] + [f"- {suite}: {note}" for suite, note in table.sources.items()] + [""]
    if table.footnotes:
        lines += ["Names of one spec, shown once:", ""] + [f"- {line}" for line in table.footnotes] + [""]
    if table.commands:
        lines += [
            "Commands that fill the cells marked not run (these jobs' records predate the cost measurements):",
            "",
        ]
        lines += [f"- [{n}] {command}" for command, n in table.commands.items()] + [""]
        lines += ["Or one run per suite:", ""] + [f"- {c}" for c in table.suite_commands(results_dir)] + [""]
    return lines


def figure_section(table: tradeoffs.Table, figure: Path | None, profile_for, results_dir: str | None) -> list[str]:
    """The Pareto figure and its caption, or one sentence on why there is none and the command that draws it."""
    if figure is None:
        suite = next((r.suite for r in table.rows), "position_extrapolation")
        command = f"`{run_command(suite, (), profile_for(suite), results_dir)}`"
        both = [r for r in table.rows if "ppl_L" in r.readings and "kv_bytes" in r.readings]
        if both:  # every model with a quality and a cost was flagged by its suite's learning check
            return [
                "Every model here with both a perplexity and a cost of its own is flagged by its suite's learning "
                f"check ({'; '.join(pareto.flagged(table))}), so there is no figure: a front of models that did "
                f"not learn says nothing; {command} with more steps (set.steps=N) or a larger profile trains them "
                "further.",
                "",
            ]
        return [
            "No trained model here has both a perplexity and a cost measured by its own jobs (records of "
            "position_extrapolation and language_modeling before suite version 3 carry no cost), so there is no "
            f"figure; {command} trains and measures both.",
            "",
        ]
    left = pareto.flagged(table)
    caption = (
        "Each point is one trained model of the table above, its quality and its cost from the same jobs (bars: "
        "95% intervals over seeds, or a single seed's quartiles over timing repeats); a row of panels per suite "
        "and perplexity, since suites train models of different sizes. The dashed line joins the Pareto front "
        "of each panel, the models no other model beats on both axes; costs whose intervals overlap are a tie "
        "(shaded), not a ranking. An axis whose values span a decade is logarithmic."
    )
    if left:
        caption += " Left out, flagged by their suite's learning check: " + "; ".join(left) + "."
    return [
        f"![held-out perplexity against each model's own KV-cache bytes, decode latency and training FLOPs]"
        f"(figures/{figure.name})",
        "",
        caption,
        "",
    ]


def write_index(
    groups: Mapping[str, Group],
    reports_dir: Path,
    results_dir: str | None = None,
    left_out: list[str] = (),
    held: Mapping[str, Sequence[Group]] = {},
) -> Path:
    """Write ``reports_dir``/index.md (and its figure) from one group of records per suite (and the claims it does not
    test from the suite's other ``held`` groups); return its path."""
    reports_dir.mkdir(parents=True, exist_ok=True)
    path = reports_dir / INDEX
    atomic.write_text(path, render(groups, reports_dir, results_dir, left_out, held))
    return path


def held_groups(store, groups: Mapping[str, Group]) -> dict[str, list[Group]]:
    """Every group of records each suite of ``groups`` holds, newest first (harness.groups.split_groups)."""
    from harness.groups import split_groups
    from harness.report import records_frame

    return {name: split_groups(records_frame(store.load(name))) for name in groups}


def lendable(found: Sequence[Group], chosen: Group) -> list[Group]:
    """The suite's other groups a claim may be taken from: those a ``bench report`` command selects (an earlier form
    of a profile, which none selects, is left out), newest first."""
    from harness.groups import report_command

    return [g for g in found if g.key != chosen.key and report_command("suite", g, found) is not None]


def other_lines(
    held: Mapping[str, Sequence[Group]],
    groups: Mapping[str, Group],
    lent: Mapping[tuple[str, object], list[str]] = {},
) -> list[str]:
    """One line per group of records a suite holds beside the one the index covers, with the command that reports it
    (translation's Bible run beside its numbers run, a quick run beside a standard one) and the findings the
    scoreboard takes from it."""
    from harness.groups import report_command, superseded

    lines = []
    for name, chosen in sorted(groups.items()):
        found = list(held.get(name, ()))
        for group in found:
            if group.key == chosen.key:
                continue
            command = report_command(name, group, found)
            taken = lent.get((name, group.key), [])
            where = (
                f"the scoreboard takes {len(taken)} finding{'s' if len(taken) > 1 else ''} the group above does not "
                "test from it"
                if taken
                else "not in this index"
            )
            lines.append(
                f"{name} also holds {describe(group, found)}, {where}: "
                + (f"`{command}` reports it." if command else superseded(group, found) + ".")
            )
    return lines


def other_groups(store, groups: Mapping[str, Group]) -> list[str]:
    """One line per group of records a suite holds beside the one the index covers, with the command that reports it."""
    return other_lines(held_groups(store, groups), groups)


def index_groups(store, reported: Mapping[str, Group]) -> dict[str, Group]:
    """The groups the index covers: those just reported, and the newest of every other suite with records."""
    from harness.contract import suites
    from harness.groups import split_groups
    from harness.report import records_frame

    groups = dict(reported)
    for name in store.suites():
        if name not in groups and name in suites:  # a folder of no known suite is left out (build_reports warns)
            records = store.load(name)
            if records:
                groups[name] = split_groups(records_frame(records))[0]
    return groups
