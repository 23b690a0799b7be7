"""Ranking of position encodings on length generalisation: NoPE and T5's bias > ALiBi > RoPE (Kazemnejad et al.
2023): a mean rank over the tasks that test it, each published pair by an exact paired test, every tested pair must
hold.

Kazemnejad et al.'s estimand is a mean rank over tasks: each encoding ranked per task by its accuracy past the
training length, the ranks averaged over the tasks. Here per length task (copy, reverse, addition) the position arms
that learned it in distribution (token accuracy at n at least the learned threshold, mean over seeds) are ranked per
seed by their mean token accuracy over the lengths past n (1 the best, ties sharing the mean rank). A published pair
(a generalises better than b) is one paired comparison: in each (task, seed) cell both arms trained on the same task
from the same seed, and the cell's rank of b minus rank of a says which generalised better; the estimand is the mean
of these over the cells, the difference of the two arms' mean ranks over the tasks that test the pair (both its arms
learned the task).

Its test is exact: under the null the two arms are exchangeable within a cell, so each cell's difference is as likely
negated, and the p-value counts the sign flips of the cells whose mean is at least as far out (every one of the 2^k
patterns up to ``EXACT_CELLS`` cells, a fixed Monte-Carlo sample beyond). Ranks are discrete, so a t test on them is
not of its stated size (three seeds ranked alike give zero spread and p = 0, where chance alone does that a quarter of
the time); the exact test is, and with k cells its smallest two-sided p is 2^(1-k), so at least 6 cells are needed to
decide anything. Its interval is the set of shifts the test does not reject.

Its precondition is about the setting: the estimand is a mean over tasks, so a pair counts only where at least
``LEAST_TASKS`` tasks test it; a pair tested by fewer is left out and named, and with no pair left the claim is not
testable here, whatever one task shows. A ranking is one claim: it agrees when every tested pair agrees and
disagrees when some pair is reversed with the pairs held at 5% together (``all_hold``, Holm).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from harness.claims import declared
from harness.estimate import Estimate
from harness.findings import Finding, cause_sentence, finding, not_run, unmet
from harness.paired import BRANCH_LEVEL, Verdict, all_hold
from suites.recall.claims._shared import Evidence, mean, says
from suites.recall.tables import POSITIONS, learned, out_of_distribution_mean
from suites.recall.tasks import LENGTH_TASKS

CLAIM = declared(__file__)
#: Kazemnejad et al.'s order, as the pairs this suite tests (each: the first generalises better than the second)
PUBLISHED_PAIRS = (("none", "alibi"), ("t5_bias", "alibi"), ("alibi", "rope"))
#: the tasks a pair needs for a mean rank over tasks, the source's estimand (one task is that task's ranking)
LEAST_TASKS = 2
#: cells up to which the sign-flip test enumerates every pattern (2^14 = 16,384); beyond, that many random patterns
EXACT_CELLS = 14
#: the fewest cells whose smallest two-sided p, 2^(1-k), is below 5%
FEWEST_DECIDING_CELLS = 6


def sign_flip(d: np.ndarray) -> tuple[float, float]:
    """(p above, p below): the one-sided exact p-values of 'the mean of the cells ``d`` is above (below) 0' under
    sign symmetry: the share of sign patterns whose mean is at least (at most) the observed one."""
    d = np.asarray(d, dtype=float)
    k = len(d)
    if k == 0:
        return float("nan"), float("nan")
    if k <= EXACT_CELLS:
        signs = ((np.arange(2**k)[:, None] >> np.arange(k)) & 1) * 2 - 1
    else:
        signs = np.random.default_rng(0).choice((-1, 1), size=(2**EXACT_CELLS, k))
    means = signs @ d / k
    observed = d.mean()
    tol = 1e-9 * max(1.0, float(np.abs(d).max()))
    return float(np.mean(means >= observed - tol)), float(np.mean(means <= observed + tol))


def interval(d: np.ndarray, level: float = 0.05, grid: int = 401) -> tuple[float | None, float | None]:
    """The shifts c whose two-sided sign-flip test of d - c is not rejected at ``level``: the test's 95% interval,
    (None, None) where it is unbounded (fewer than FEWEST_DECIDING_CELLS cells reject no shift at all)."""
    d = np.asarray(d, dtype=float)
    if len(d) < FEWEST_DECIDING_CELLS or d.min() == d.max():
        return (float(d.min()), float(d.max())) if len(d) >= FEWEST_DECIDING_CELLS else (None, None)
    kept = []
    for c in np.linspace(d.min(), d.max(), grid):
        up, down = sign_flip(d - c)
        if min(1.0, 2 * min(up, down)) > level:
            kept.append(float(c))
    return (min(kept), max(kept)) if kept else (float(d.mean()), float(d.mean()))


def rank_verdict(d: np.ndarray) -> Verdict:
    """The directional verdict on 'the mean of d is above 0' by the exact sign-flip test, each direction at 2.5%."""
    up, down = sign_flip(d)
    if np.isnan(up):
        return Verdict("inconclusive")
    word = "agrees" if up <= BRANCH_LEVEL else "disagrees" if down <= BRANCH_LEVEL else "inconclusive"
    return Verdict(word, up, down)


def ranks(df: pd.DataFrame, task: str, arms: list[str]) -> dict[int, dict[str, float]]:
    """seed -> arm -> its rank among ``arms`` on ``task`` by mean token accuracy past n (1 the best, ties averaged),
    over the seeds every arm has."""
    means = {v: out_of_distribution_mean(df, v, task) for v in arms}
    seeds = sorted(set.intersection(*(set(m) for m in means.values()))) if means else []
    out = {}
    for seed in seeds:
        r = rankdata([-means[v][seed] for v in arms])
        out[seed] = dict(zip(arms, (float(x) for x in r)))
    return out


def judge(ev: Evidence) -> Finding:
    """Each published pair whose arms learned at least LEAST_TASKS length tasks, by its mean rank difference."""
    df, s = ev.df, ev.s
    acc = df[df.metric == "token_accuracy"]
    tasks = [t for t in LENGTH_TASKS if t in set(acc.task)]
    arms = [v for v in POSITIONS if v in set(acc.variant)]
    if not tasks or len(arms) < 2:
        return not_run(CLAIM, "These records lack two position arms on a length task.")
    threshold = s["learned_accuracy"]
    kept = {t: [v for v in arms if learned(df, v, t, threshold)] for t in tasks}
    ranked = {t: ranks(df, t, kept[t]) for t in tasks}
    described = []
    for t in tasks:
        means = {v: mean(out_of_distribution_mean(df, v, t)) for v in kept[t]}
        order = sorted(kept[t], key=lambda v: -means[v])
        described.append(f"{t}: " + (" > ".join(f"{v} {means[v]:.2f}" for v in order) or "no arm learned it"))
    left_out = [f"{v} on {t}" for t in tasks for v in arms if v not in kept[t]]
    tested, short, shown = [], [], []
    for a, b in PUBLISHED_PAIRS:
        if a not in arms or b not in arms:
            continue
        on = [t for t in tasks if a in kept[t] and b in kept[t]]
        cells = np.array([ranked[t][seed][b] - ranked[t][seed][a] for t in on for seed in ranked[t]])
        low, high = interval(cells) if len(cells) else (None, None)
        label = f"mean rank of {b} - {a} over {', '.join(on)}"
        estimate = Estimate(label, float(cells.mean()), low, high, "ranks", len(cells), "count") if len(cells) else None
        if len(on) < LEAST_TASKS:
            short.append(
                f"{a} > {b} ({', '.join(on) or 'no task'}" + (f": {estimate.value:+.2f}" if estimate else "") + ")"
            )
            shown += [estimate] if estimate else []
            continue
        tested.append((a, b, on, estimate, rank_verdict(cells)))
    out = (
        f" Left out (token accuracy at n below {threshold:g}, mean over seeds: not learned in distribution): "
        f"{', '.join(left_out)}."
        if left_out
        else " Every position arm learned every length task in distribution."
    )
    text = (
        "Length generalisation, mean token accuracy over the evaluation lengths past the training n, by task (best "
        "first): " + "; ".join(described) + "." + out
    )
    if short:
        text += (
            f" Pairs tested by fewer than {LEAST_TASKS} tasks (a mean rank over tasks needs them; shown, not judged, "
            f"as the mean rank difference, positive where the first ranks better): {'; '.join(short)}."
        )
    if not tested:
        found = unmet(
            CLAIM,
            f"no pair of the published order has both arms learn {LEAST_TASKS} or more length tasks in distribution ("
            + "; ".join(short or ["no published pair has both arms"])
            + ")",
            f"a training that lets the position arms learn at least {LEAST_TASKS} of copy, reverse and addition at "
            f"their training lengths (here {s.get('steps')} steps), so that each pair is ranked over tasks; with "
            f"{len(set(df.seed))} seeds per task the exact test then has {LEAST_TASKS * len(set(df.seed))} or more "
            f"cells, and it needs at least {FEWEST_DECIDING_CELLS}",
            shown,
        )
        return dataclasses.replace(found, sentence=f"{text} {found.sentence}", boundary=threshold)
    verdicts = [v for *_, v in tested]
    verdict = all_hold(verdicts)
    text += (
        " Published order tested pair by pair, each by the mean rank difference over its tasks (positive: the first "
        "ranks better), all of which must hold: "
        + "; ".join(
            f"{a} > {b} {e.value:+.2f} {e.interval_text()} over {e.seeds} cells, {v}" for a, b, _, e, v in tested
        )
        + "."
    )
    head = _deciding(tested)
    causes = [_cause(a, b, e, v, verdict, len(tested)) for a, b, _, e, v in tested if v != "agrees"]
    return finding(
        CLAIM,
        verdict,
        f"{text} This run {says(verdict)}.",
        [e for *_, e, _ in tested],
        cause=cause_sentence(verdict, causes),
        headline=head,
        boundary=0.0,
    )


def _deciding(tested: list) -> int:
    """The pair the verdict turns on: the most significant reversal; else the least significant undecided pair; else
    the agreeing pair with the largest p."""
    verdicts = [v for *_, v in tested]
    reversed_ = [i for i, v in enumerate(verdicts) if v == "disagrees"]
    if reversed_:
        return min(reversed_, key=lambda i: verdicts[i].p_against)
    return max(range(len(verdicts)), key=lambda i: (verdicts[i] != "agrees", _or_one(verdicts[i].p)))


def _or_one(p: float) -> float:
    return 1.0 if np.isnan(p) else p


def _cause(a: str, b: str, e: Estimate, v: Verdict, overall: str, pairs: int) -> str:
    said = f"{a} > {b} ({e.label}) is {e.value:+.2f}"
    if v == "disagrees":
        if overall == "disagrees" or pairs == 1:
            return f"{said}: the order reversed"
        return (
            f"{said}: the order reversed at its own 2.5% a side (p against {v.p_against:.2g}) but not below Holm's "
            f"2.5%/{pairs} with the pairs held together"
        )
    if e.seeds < FEWEST_DECIDING_CELLS:
        return (
            f"{said}, undecided: {e.seeds} cells, whose smallest two-sided p is {2.0 ** (1 - e.seeds):.2g}; the exact "
            f"test needs at least {FEWEST_DECIDING_CELLS}"
        )
    return f"{said}, undecided (p {_or_one(v.p):.2g})"
