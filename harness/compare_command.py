"""``bench compare A B``: the paired comparison of two variants in every suite where both ran.

    bench compare rope alibi [suite=S] [metric=M] [results_dir=DIR] [profile=P device=D dtype=T data=SHA set.FIELD=V]

In each suite, the newest group of records (harness/groups.py) that holds both variants and matches the
selection is compared metric by metric (harness/compare.py); the suite's headline (its first metric, at
its first x) ends with a one-line verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from harness.config import GroupSelection
from harness.errors import UsageError


@dataclass
class CompareConfig(GroupSelection):
    """What ``bench compare`` accepts after the two variants."""

    suite: Optional[str] = None
    #: compare this metric only (and make it the headline)
    metric: Optional[str] = None
    results_dir: str = "results"


def split(args: List[str]) -> Tuple[str, str, List[str]]:
    """(A, B, the key=value arguments): the two variants are the arguments without '='."""
    variants = [a for a in args if "=" not in a]
    if len(variants) != 2:
        raise UsageError(f"bench compare takes two variants, e.g. `bench compare rope alibi`; got {len(variants)}: "
                         + (", ".join(variants) or "none") + ".")
    return variants[0], variants[1], [a for a in args if "=" in a]


def both_ran(store, suite: str, a: str, b: str, wanted: Dict[str, Any]):
    """The newest group of ``suite`` that holds both variants and matches ``wanted`` (None when none does)."""
    from harness.groups import first_match, split_groups
    from harness.report import records_frame

    groups = [g for g in split_groups(records_frame(store.load(suite))) if {a, b} <= set(g.frame.variant)]
    return first_match(groups, wanted)


def run(args: List[str], out=print) -> int:
    """Print each suite's comparison table and verdict; a UsageError when no suite has both variants."""
    from harness.compare import paired, table
    from harness.config import parse
    from harness.groups import describe
    from harness.report import markdown_table
    from harness.store import ResultsStore
    from harness.contract import suites

    a, b, rest = split(args)
    cfg: CompareConfig = parse(rest, CompareConfig)
    store = ResultsStore(Path(cfg.results_dir))
    names = [cfg.suite] if cfg.suite else store.suites()
    if cfg.suite:
        suites.get(cfg.suite)  # an unknown suite is a clear error
    found = 0
    for name in names:
        group = both_ran(store, name, a, b, cfg.selection())
        if group is None:
            continue
        found += 1
        comparisons = paired(group.frame, a, b, [cfg.metric] if cfg.metric else None)
        out(f"{name}: {describe(group)}")
        if not comparisons:
            out(f"  `{a}` and `{b}` share no measured metric" + (f" '{cfg.metric}'" if cfg.metric else "") + ".\n")
            continue
        out(markdown_table(table(comparisons)))
        out("Verdict: " + headline(comparisons, suites.get(name)).verdict() + "\n")
    if not found:
        where = f"suite {cfg.suite}" if cfg.suite else f"any suite under {cfg.results_dir}/"
        raise UsageError(f"No group of records in {where} holds both `{a}` and `{b}`"
                         + (" and matches the selection" if cfg.selection() else "")
                         + f"; run them together, e.g. `bench run suite={cfg.suite or '<suite>'} variants=[{a},{b}]`.")
    return 0


def headline(comparisons, suite):
    """The comparison a suite's verdict line is about: its first metric (in the suite's order) at its first x."""
    order = [m.name for m in suite.metrics]
    return min(comparisons, key=lambda c: (order.index(c.metric) if c.metric in order else len(order),
                                           -math.inf if c.x is None else c.x))
