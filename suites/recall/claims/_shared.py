"""What recall's claims read: the records with their task columns, per-seed accuracies, their bounds, the part a
conjunction of pairs turns on, and the MQAR comparison of ordered pairs that four claims make.

Every comparison is one paired test over seeds (harness/paired.py): a difference counts when its 95% interval
excludes 0. No margin applies: a one-seed margin would have to be calibrated from the standard profile's per-seed
spread of the very quantity judged, and none is, so one seed gives no verdict. A claim made of several pairs
(attention above each fixed-state model; a ranking) holds only if every pair holds (``all_hold``), and its
headline is the pair the verdict turns on (``deciding``). Each claim declares what must hold for it to be testable
(suite.yaml ``precondition``: the arms learned the task); where the run measures it absent, the verdict is "not
testable here" with that measurement. A diverged training scores 0 at every size (an outcome, not a gap). Token
accuracies lie in [0, 1], and their intervals keep to it.

The recurrences' claims (``pairs_finding``) are sets of ordered pairs of variants (the first recalls more),
compared by MQAR token accuracy at the most pairs trained on. Their precondition: every arm compared learned the
task's format, token accuracy at least the profile's learned threshold at the fewest pairs whose guess without keys
is below 1 (2 pairs). Below that a model has not learned to read keys and values at all, and a gap at the most pairs
says nothing about the size of its memory.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.findings import Claim, Estimate, Finding, cause_sentence, finding, not_run, unmet
from harness.paired import Difference, all_hold, directional, paired
from suites.recall.tables import with_task
from suites.recall.tasks import mqar_of

#: the bounds of a token accuracy: its estimates and the paired gaps between two accuracies keep to them
#: (harness/intervals.py "bounded"; a gap lies within [-1, 1])
ACCURACY = (0.0, 1.0)


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: the records with the task, training n and MQAR's learning rate as columns, each swept variant at its kept
    #: rate (tables.with_task)
    df: pd.DataFrame
    #: the profile's settings
    s: Any


def prepare(df: pd.DataFrame) -> Evidence:
    data = with_task(df)
    return Evidence(data, data.iloc[0].profile_settings)


def scores(df: pd.DataFrame, variant: str, task: str, size: float) -> dict[int, float]:
    """seed -> token accuracy, a diverged training at 0 (an outcome, not a gap)."""
    rows = df[(df.metric == "token_accuracy") & (df.variant == variant) & (df.task == task) & (df.x == size)]
    return {int(seed): (float(v) if st == "ok" else 0.0) for seed, v, st in zip(rows.seed, rows.value, rows.status)}


def mean(values: dict[int, float]) -> float:
    vals = list(values.values())
    return sum(vals) / len(vals) if vals else float("nan")


def says(verdict: str) -> str:
    """'agrees', 'disagrees' or 'is inconclusive', for 'This run ...'."""
    return {"agrees": "agrees", "disagrees": "disagrees"}.get(verdict, "is inconclusive")


def deciding(diffs: Sequence[Difference], verdicts: Sequence[str]) -> int:
    """The position of the part a conjunction's verdict turns on: the first that disagrees; else the least decided
    of those that are inconclusive (the smallest |estimate| against its interval's half-width: the one more seeds
    would resolve last); else, all agreeing, the one whose interval comes nearest 0."""
    if not diffs:
        return 0
    refuted = [i for i, v in enumerate(verdicts) if v == "disagrees"]
    if refuted:
        return refuted[0]
    undecided = [i for i, v in enumerate(verdicts) if v != "agrees"]
    if undecided:
        return min(undecided, key=lambda i: _decidedness(diffs[i]))
    return min(range(len(diffs)), key=lambda i: _nearest_zero(diffs[i]))


def _decidedness(d: Difference) -> float:
    e = d.estimate
    if e.low is None or e.high is None or math.isnan(e.value):
        return -1.0  # no interval (one seed, no verdict): as undecided as a part can be
    half = (e.high - e.low) / 2
    return abs(e.value) / half if half > 0 else math.inf


def _nearest_zero(d: Difference) -> float:
    e = d.estimate
    if e.low is None or e.high is None:
        return abs(e.value)
    return min(abs(e.low), abs(e.high))


def sizes_of(s, sizes: list[float]) -> tuple[float, float]:
    """(the most pairs, the fewest pairs whose guess without keys is below 1)."""
    task = mqar_of(s)
    small = next((x for x in sizes if task.key_blind_guess(int(x)) < 1.0), sizes[-1])
    return sizes[-1], small


def _curve(df: pd.DataFrame, arms: list[str], sizes: list[float]) -> str:
    return (
        f"MQAR token accuracy at {', '.join(str(int(x)) for x in sizes)} key-value pairs (mean over seeds): "
        + "; ".join(f"{v}: " + ", ".join(f"{mean(scores(df, v, 'mqar', x)):.2f}" for x in sizes) for v in arms)
        + "."
    )


def _state_words(df: pd.DataFrame, a: str, b: str, tokens: int) -> str:
    """'gated_deltanet keeps 1,020 numbers per sequence, mamba2 7,452: matched in parameters, not in state': the
    state each arm keeps to decode after ``tokens`` tokens (suites/recall/models.state_numbers), a candidate cause of
    a reversed order at equal parameters."""
    from suites.recall.models import spec_from_record, state_numbers

    kept = {}
    if "spec" not in df:
        return "state sizes not recorded"
    for v in (a, b):
        specs = df[(df.variant == v) & df.spec.map(lambda x: isinstance(x, dict))].spec
        if not len(specs):
            return "state sizes not recorded"
        kept[v] = state_numbers(spec_from_record(specs.iloc[0]), tokens)
    return (
        f"{a} keeps {kept[a]:,} numbers per sequence, {b} {kept[b]:,}: the arms are matched in parameters, not in state"
    )


def pairs_finding(claim: Claim, ev: Evidence, pairs: Sequence[tuple[str, str]]) -> Finding:
    """The verdict on a claim that each first variant of ``pairs`` recalls more than the second on MQAR."""
    df, s = ev.df, ev.s
    part = df[(df.metric == "token_accuracy") & (df.task == "mqar")]
    present = set(part.variant)
    pairs = [(a, b) for a, b in pairs if a in present and b in present]
    if not pairs:
        return not_run(claim, "These records lack MQAR runs of both arms of any pair this claim compares.")
    sizes = sorted(part.x.unique())
    large, small = sizes_of(s, sizes)
    arms = list(dict.fromkeys(v for pair in pairs for v in pair))
    text = _curve(df, arms, sizes)
    threshold = s["learned_accuracy"]
    unlearned = [v for v in arms if mean(scores(df, v, "mqar", small)) < threshold]
    diffs = [
        paired(
            f"{a} - {b} MQAR token accuracy at {int(large)} pairs",
            scores(df, a, "mqar", large),
            scores(df, b, "mqar", large),
            bounds=ACCURACY,
        )
        for a, b in pairs
    ]
    if unlearned:
        measured = (
            f"at {int(small)} pairs "
            + ", ".join(f"{v} {mean(scores(df, v, 'mqar', small)):.2f}" for v in unlearned)
            + f" against the {threshold:g} that counts as having learned the task"
        )
        accuracies = [
            Estimate.of(
                f"{v} token accuracy at {int(small)} pairs",
                list(scores(df, v, "mqar", small).values()),
                kind="bounded",
                bounds=ACCURACY,
            )
            for v in unlearned
        ]
        found = unmet(
            claim,
            measured,
            f"a learning-rate sweep or a longer training of {', '.join(unlearned)} on MQAR",
            accuracies + [d.estimate for d in diffs],
        )
        return dataclasses.replace(found, sentence=f"{text} {found.sentence}", boundary=threshold)
    verdicts = [directional(d, +1) for d in diffs]
    verdict = all_hold(verdicts)
    tokens = mqar_of(s).length(int(large))
    causes = [
        f"{d.estimate.label} is {d.mean:+.2f}, "
        + (f"reversed ({_state_words(df, a, b, tokens)})" if v == "disagrees" else d.why())
        for d, v, (a, b) in zip(diffs, verdicts, pairs)
        if v != "agrees"
    ]
    judged = "; ".join(f"{d.estimate.label} {d.mean:+.2f} ({d.why()})" for d in diffs)
    return finding(
        claim,
        verdict,
        f"{text} Paired at {int(large)} pairs: {judged}. This run {says(verdict)}.",
        [d.estimate for d in diffs],
        cause=cause_sentence(verdict, causes),
        headline=deciding(diffs, verdicts),
        boundary=0.0,
    )
