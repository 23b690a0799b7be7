"""``bench compare A B``: the paired comparison of two variants in every suite where both ran.

    bench compare rope alibi [suite=S] [metric=M] [at=X|first|last] [results_dir=DIR] [profile=P device=D dtype=T data=SHA set.FIELD=V]

In each suite, the newest group of records (harness/groups.py) that holds both variants and matches the
selection is compared metric by metric (bench/compare/table.py). The headline metric (``metric=``, else the
suite's first declared metric both measured) ends with one verdict line at its first x and one at its last
(position_extrapolation: at the training length L and at the longest evaluated length), or one at ``at=``.
A metric is called better or worse only where the suite declares its direction; one without (attention
entropy, mean distance) "differs", with the difference and its interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.config import GroupSelection, readable_folder
from harness.errors import UsageError
from harness.rules import Rule


@dataclass
class CompareConfig(GroupSelection):
    """What ``bench compare`` accepts after the two variants."""

    suite: str | None = None
    #: compare this metric only (and make it the headline)
    metric: str | None = None
    #: the x of the headline verdict: a value the metric was measured at, ``first`` or ``last`` (default: both)
    at: str | None = None
    results_dir: str = "results"

    rules = {"results_dir": Rule(check=readable_folder)}


def split(args: list[str]) -> tuple[str, str, list[str]]:
    """(A, B, the key=value arguments): the two variants are the arguments without '='."""
    variants = [a for a in args if "=" not in a]
    if len(variants) != 2:
        raise UsageError(
            f"bench compare takes two variants, e.g. `bench compare rope alibi`; got {len(variants)}: "
            + (", ".join(variants) or "none")
            + "."
        )
    return variants[0], variants[1], [a for a in args if "=" in a]


def both_ran(store, suite: str, a: str, b: str, wanted: dict[str, Any]):
    """The newest group of ``suite`` that holds both variants and matches ``wanted`` (None when none does)."""
    from harness.groups import first_match

    return first_match(groups_with_both(store, suite, a, b), wanted)


def groups_with_both(store, suite: str, a: str, b: str):
    """Every group of ``suite`` that holds both variants, whatever its selectors."""
    from harness.groups import split_groups
    from harness.report import records_frame

    return [g for g in split_groups(records_frame(store.load(suite))) if {a, b} <= set(g.frame.variant)]


def refuse_selection(store, names: list[str], a: str, b: str, wanted: dict[str, Any]) -> None:
    """When groups hold both variants but none matches ``wanted``: the UsageError ``bench report`` gives, naming
    the key, the value and the values present (harness.groups.select), for the first suite that has both."""
    from harness.groups import select

    for name in names:
        groups = groups_with_both(store, name, a, b)
        if groups and wanted:
            select(groups, name, wanted)  # raises the sentence naming what no group has


def run(args: list[str], out=print) -> int:
    """Print each suite's comparison table and verdict; a UsageError when no suite has both variants."""
    from bench.compare.table import paired, table
    from bench.config import parse
    from harness.contract import suites
    from harness.groups import describe
    from harness.report import markdown_table
    from harness.store import ResultsStore

    a, b, rest = split(args)
    if a == b:
        raise UsageError(
            f"bench compare takes two different variants, and got `{a}` twice; name another one, "
            f"e.g. `bench compare {a} <other>`."
        )
    cfg: CompareConfig = parse(rest, CompareConfig)
    store = ResultsStore(Path(cfg.results_dir))
    names = [cfg.suite] if cfg.suite else store.suites()
    if cfg.suite:
        suites.get(cfg.suite)  # an unknown suite is a clear error
    groups = {name: both_ran(store, name, a, b, cfg.selection()) for name in names}
    groups = {name: group for name, group in groups.items() if group is not None}
    if not groups:
        refuse_selection(store, names, a, b, cfg.selection())
    if cfg.metric and groups:
        measured = sorted({m for g in groups.values() for m in g.frame[g.frame.variant.isin([a, b])].metric.dropna()})
        if cfg.metric not in measured:  # refused before anything is printed
            raise UsageError(
                f"Unknown metric={cfg.metric}: `{a}` and `{b}` measured none by that name "
                f"in {', '.join(groups)}; choose one of {', '.join(measured)}."
            )
    judged = {}  # suite -> (its comparisons, the ones its verdict lines are about), each computed once
    for name, group in groups.items():
        suite = suites.get(name)
        directions = {m.name: m.higher_is_better for m in suite.metrics}
        comparisons = paired(group.frame, a, b, [cfg.metric] if cfg.metric else None, directions)
        chosen, missing = headlines(comparisons, suite, cfg.at) if comparisons else ([], None)
        if missing:  # an at= some suite compared did not measure: refused before anything is printed
            raise UsageError(
                missing
                if cfg.suite
                else f"In suite {name}, {missing[:-1]}, and name the suite (suite={name}) to compare that suite alone."
            )
        judged[name] = comparisons, chosen
    found = 0
    for name, group in groups.items():
        found += 1
        comparisons, chosen = judged[name]
        out(f"{name}: {describe(group)}")
        if not comparisons:
            out(f"  `{a}` and `{b}` share no measured metric" + (f" '{cfg.metric}'" if cfg.metric else "") + ".\n")
            continue
        out(markdown_table(table(comparisons)))
        out("\n".join(f"Verdict: {c.verdict()}" for c in chosen))
        out("")
    if not found:
        where = f"suite {cfg.suite}" if cfg.suite else f"any suite under {cfg.results_dir}/"
        raise UsageError(
            f"No group of records in {where} holds both `{a}` and `{b}`"
            + (" and matches the selection" if cfg.selection() else "")
            + f"; run them together, e.g. `bench run suite={cfg.suite or '<suite>'} variants=[{a},{b}]`."
        )
    return 0


def headline(comparisons, suite):
    """The comparison a suite's first verdict line is about: its first metric (in the suite's order) at its first x."""
    return headlines(comparisons, suite)[0][0]


def headlines(comparisons, suite, at: str | None = None) -> tuple[list[Any], str | None]:
    """(the comparisons the verdict lines are about, why none is, or None).

    The headline metric is the suite's first declared metric among ``comparisons`` (its first condition); the
    lines are at its first and last x (one line when it has one x), or at ``at``: an x it was measured at,
    ``first`` or ``last``. An ``at`` it was not measured at gives no line and the sentence saying so.
    """
    order = [m.name for m in suite.metrics]
    metric = min((c.metric for c in comparisons), key=lambda m: order.index(m) if m in order else len(order))
    rows = [c for c in comparisons if c.metric == metric]
    rows = sorted(
        (c for c in rows if c.at.partition(" (")[2] == rows[0].at.partition(" (")[2]),
        key=lambda c: -math.inf if c.x is None else c.x,
    )
    if at is None:
        return (rows[:1] if len(rows) == 1 else [rows[0], rows[-1]]), None
    if at in ("first", "last"):
        return [rows[0] if at == "first" else rows[-1]], None
    try:
        wanted = float(at)
    except ValueError:
        wanted = math.nan
    found = [c for c in rows if c.x is not None and math.isclose(c.x, wanted)]
    if found:
        return found[:1], None
    xs = [f"{c.x:g}" for c in rows if c.x is not None]
    x_name = rows[0].at.strip().removeprefix("at ").partition("=")[0] or "x"
    measured = f"at {x_name} = {', '.join(xs)}" if xs else "at no x"
    return [], (
        f"at={at} is not where {suite.name} measured {metric} ({measured}); give one of those, at=first or at=last."
    )
