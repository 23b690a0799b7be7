"""What recall's claims read: the records with their task columns, per-seed accuracies, their bounds, the part a
conjunction of pairs turns on, each arm's state, and the MQAR comparison of ordered pairs that four claims make.

Every comparison is one paired test over seeds (harness/paired.py): a difference counts when its 95% interval
excludes 0. No margin applies: a one-seed margin would have to be calibrated from the standard profile's per-seed
spread of the very quantity judged, and none is, so one seed gives no verdict. A claim made of several parts
(attention above each fixed-state model; a ranking) holds only if every part holds, and is refuted only when a part
refutes it with the parts held at 5% together (``all_hold``: Holm across the parts); its headline is the part the
verdict turns on (``deciding``). Each claim declares what must hold for it to be testable (suite.yaml
``precondition``), about the setting, never the claim's predicted outcome, and applied whatever the direction of the
result; where the run measures it absent, the verdict is "not testable here" with that measurement, and the
comparison is shown, not judged. A diverged training scores 0 at every size (an outcome, not a gap). Token
accuracies lie in [0, 1], and their intervals keep to it.

The recurrences' claims (``pairs_finding``) are sets of ordered pairs of variants (the first recalls more),
compared by MQAR token accuracy at the most pairs trained on. Their precondition: every arm compared learned the
task's format, token accuracy at least the profile's learned threshold at the fewest pairs whose guess without keys
is below 1 (2 pairs, far inside every arm's state). Below that a model has not learned to read keys and values at
all, and a gap at the most pairs says nothing about the size of its memory; the bar is the same for both arms.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.findings import Claim, Estimate, Finding, cause_sentence, finding, not_run, unmet
from harness.paired import Difference, all_hold, directional, p_against, paired
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


def accuracy(label: str, values: dict[int, float]) -> Estimate:
    """The estimate of per-seed token accuracies, its interval kept within [0, 1]."""
    return Estimate.of(label, list(values.values()), kind="bounded", bounds=ACCURACY)


@dataclass(frozen=True)
class Part:
    """One part of a claim of several: its paired difference, its verdict (a ``harness.paired.Verdict`` carrying its
    one-sided p-values), the boundary its interval must clear (0 for "a differs from b", a margin for "not worse by
    more than"), and what a part that disagrees means in words."""

    diff: Difference
    verdict: str
    boundary: float = 0.0
    refuted_words: str = "reversed"


def deciding(parts: Sequence[Part]) -> int:
    """The position of the part a conjunction's verdict turns on: the one that disagrees with the smallest p against
    the claim; else the least decided of those that are inconclusive (the smallest distance from its boundary against
    its interval's half-width: the one more seeds would resolve last); else, all agreeing, the one whose interval comes
    nearest its boundary."""
    if not parts:
        return 0
    refuted = [i for i, p in enumerate(parts) if p.verdict == "disagrees"]
    if refuted:
        return min(refuted, key=lambda i: _p_or_one(parts[i].verdict))
    undecided = [i for i, p in enumerate(parts) if p.verdict != "agrees"]
    if undecided:
        return min(undecided, key=lambda i: _decidedness(parts[i]))
    return min(range(len(parts)), key=lambda i: _nearest(parts[i]))


def _p_or_one(verdict: str) -> float:
    p = p_against(verdict)
    return 1.0 if math.isnan(p) else p


def _decidedness(p: Part) -> float:
    e = p.diff.estimate
    if e.low is None or e.high is None or math.isnan(e.value):
        return -1.0  # no interval (one seed, no verdict): as undecided as a part can be
    half = (e.high - e.low) / 2
    return abs(e.value - p.boundary) / half if half > 0 else math.inf


def _nearest(p: Part) -> float:
    e = p.diff.estimate
    if e.low is None or e.high is None:
        return abs(e.value - p.boundary)
    return min(abs(e.low - p.boundary), abs(e.high - p.boundary))


def why(p: Part) -> str:
    """Why a part counts or not, in words, against its own boundary."""
    if p.boundary == 0.0 or p.diff.one_seed or p.diff.estimate.low is None:
        return p.diff.why()
    e = p.diff.estimate
    side = "lies above" if e.low > p.boundary else "lies below" if e.high < p.boundary else "reaches"
    return f"its 95% interval {e.interval_text()} {side} {p.boundary:+.3g}"


def part_cause(p: Part, overall: str, parts: int) -> str:
    """One clause on a part that does not agree: reversed (refuting the claim with the parts held together, or only at
    its own 5%), or undecided and why."""
    said = f"{p.diff.estimate.label} is {p.diff.mean:+.2f}, "
    if p.verdict != "disagrees":
        return said + why(p)
    if overall == "disagrees" or parts == 1:
        return said + p.refuted_words
    return (
        said + f"{p.refuted_words} at its own 5% but not with the {parts} parts held at 5% together (Holm; p against "
        f"{_p_or_one(p.verdict):.2g})"
    )


def conjunction(claim: Claim, text: str, parts: Sequence[Part], shown: Sequence[Estimate] = ()) -> Finding:
    """The finding of a claim whose parts must all hold (``all_hold``: refuted only with the parts held at 5%
    together); ``shown``: estimates reported beside the parts, not judged."""
    verdict = all_hold([p.verdict for p in parts])
    head = deciding(parts)
    causes = [part_cause(p, verdict, len(parts)) for p in parts if p.verdict != "agrees"]
    return finding(
        claim,
        verdict,
        f"{text} This run {says(verdict)}.",
        [p.diff.estimate for p in parts] + list(shown),
        cause=cause_sentence(verdict, causes),
        headline=head,
        boundary=parts[head].boundary if parts else 0.0,
    )


def sizes_of(s, sizes: list[float]) -> tuple[float, float]:
    """(the most pairs, the fewest pairs whose guess without keys is below 1)."""
    task = mqar_of(s)
    small = next((x for x in sizes if task.key_blind_guess(int(x)) < 1.0), sizes[-1])
    return sizes[-1], small


def curve(df: pd.DataFrame, arms: Sequence[str], sizes: Sequence[float]) -> str:
    return (
        f"MQAR token accuracy at {', '.join(str(int(x)) for x in sizes)} key-value pairs (mean over seeds): "
        + "; ".join(f"{v}: " + ", ".join(f"{mean(scores(df, v, 'mqar', x)):.2f}" for x in sizes) for v in arms)
        + "."
    )


def state_of(df: pd.DataFrame, variant: str, tokens: int) -> int | None:
    """The numbers ``variant`` keeps per sequence to decode after ``tokens`` tokens, from its records' spec
    (suites/recall/models.state_numbers); None where no record carries one."""
    from suites.recall.models import spec_from_record, state_numbers

    if "spec" not in df:
        return None
    specs = df[(df.variant == variant) & df.spec.map(lambda x: isinstance(x, dict))].spec
    return state_numbers(spec_from_record(specs.iloc[0]), tokens) if len(specs) else None


def _state_words(df: pd.DataFrame, a: str, b: str, tokens: int) -> str:
    """'gated_deltanet keeps 1,020 numbers per sequence, mamba2 7,452: matched in parameters, not in state': the
    state each arm keeps to decode after ``tokens`` tokens, a candidate cause of a reversed order at equal
    parameters."""
    kept = {v: state_of(df, v, tokens) for v in (a, b)}
    if any(n is None for n in kept.values()):
        return "state sizes not recorded"
    return (
        f"{a} keeps {kept[a]:,} numbers per sequence, {b} {kept[b]:,}: the arms are matched in parameters, not in state"
    )


def format_unmet(
    claim: Claim, ev: Evidence, arms: Sequence[str], text: str, shown: Sequence[Estimate] = ()
) -> Finding | None:
    """Not testable here where an arm of ``arms`` has not learned MQAR's format (token accuracy at the fewest pairs
    whose guess without keys is below 1 under the profile's learned threshold, mean over seeds), else None; applied to
    every arm alike, whatever the comparison at the most pairs shows (``shown``: estimates reported, not judged)."""
    df, s = ev.df, ev.s
    sizes = sorted(df[(df.metric == "token_accuracy") & (df.task == "mqar")].x.unique())
    _, small = sizes_of(s, sizes)
    threshold = s["learned_accuracy"]
    unlearned = [v for v in arms if mean(scores(df, v, "mqar", small)) < threshold]
    if not unlearned:
        return None
    measured = (
        f"at {int(small)} pairs "
        + ", ".join(f"{v} {mean(scores(df, v, 'mqar', small)):.2f}" for v in unlearned)
        + f" against the {threshold:g} that counts as having learned the task"
    )
    accuracies = [
        accuracy(f"{v} token accuracy at {int(small)} pairs", scores(df, v, "mqar", small)) for v in unlearned
    ]
    found = unmet(
        claim,
        measured,
        f"a learning-rate sweep or a longer training of {', '.join(unlearned)} on MQAR",
        accuracies + list(shown),
    )
    return dataclasses.replace(found, sentence=f"{text} {found.sentence}", boundary=threshold)


def mqar_difference(df: pd.DataFrame, a: str, b: str, size: float, label: str = "") -> Difference:
    """``a`` - ``b`` in MQAR token accuracy at ``size`` pairs, paired over seeds (bounded: accuracies in [0, 1])."""
    label = label or f"{a} - {b} MQAR token accuracy at {int(size)} pairs"
    return paired(label, scores(df, a, "mqar", size), scores(df, b, "mqar", size), bounds=ACCURACY)


def mqar_parts(df: pd.DataFrame, pairs: Sequence[tuple[str, str]], large: float, tokens: int) -> list[Part]:
    """Each first variant of ``pairs`` above the second in MQAR token accuracy at ``large`` pairs, paired over seeds."""
    out = []
    for a, b in pairs:
        diff = mqar_difference(df, a, b, large)
        out.append(Part(diff, directional(diff, +1), 0.0, f"reversed ({_state_words(df, a, b, tokens)})"))
    return out


def judged_text(parts: Sequence[Part], at: str) -> str:
    return (
        f"Paired at {at}: " + "; ".join(f"{p.diff.estimate.label} {p.diff.mean:+.2f} ({why(p)})" for p in parts) + "."
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
    large, _ = sizes_of(s, sizes)
    arms = list(dict.fromkeys(v for pair in pairs for v in pair))
    parts = mqar_parts(df, pairs, large, mqar_of(s).length(int(large)))
    text = curve(df, arms, sizes)
    unmet_found = format_unmet(claim, ev, arms, text, [p.diff.estimate for p in parts])
    if unmet_found is not None:
        return unmet_found
    return conjunction(claim, f"{text} {judged_text(parts, f'{int(large)} pairs')}", parts)
