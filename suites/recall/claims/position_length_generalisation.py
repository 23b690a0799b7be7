"""Ranking of position encodings on length generalisation: NoPE and T5's bias > ALiBi > RoPE (Kazemnejad et al.
2023): mean token accuracy past the training length, pair by pair in the published order, paired over seeds; a
ranking is one claim, every tested pair must hold."""

from __future__ import annotations

import dataclasses

import pandas as pd

from harness.claims import declared
from harness.findings import Finding, finding, not_run, unmet
from harness.paired import Difference, all_hold, directional, paired
from suites.recall.claims._shared import ACCURACY, Evidence, deciding, mean, says
from suites.recall.tables import POSITIONS, learned, out_of_distribution_mean
from suites.recall.tasks import LENGTH_TASKS

CLAIM = declared(__file__)
#: Kazemnejad et al.'s order, as the pairs this suite tests (each: the first generalises better than the second)
PUBLISHED_PAIRS = (("none", "alibi"), ("t5_bias", "alibi"), ("alibi", "rope"))


def judge(ev: Evidence) -> Finding:
    """Per length task, the position arms that learned it in distribution, compared pair by pair past n."""
    df, s = ev.df, ev.s
    acc = df[df.metric == "token_accuracy"]
    tasks = [t for t in LENGTH_TASKS if t in set(acc.task)]
    arms = [v for v in POSITIONS if v in set(acc.variant)]
    if not tasks or len(arms) < 2:
        return not_run(CLAIM, "These records lack two position arms on a length task.")
    threshold = s["learned_accuracy"]
    diffs, parts, left_out = [], [], []
    for task in tasks:
        kept = [v for v in arms if learned(df, v, task, threshold)]
        left_out += [f"{v} on {task}" for v in arms if v not in kept]
        means = {v: out_of_distribution_mean(df, v, task) for v in kept}
        ranking = sorted(kept, key=lambda v: -mean(means[v]))
        parts.append(
            f"{task}: " + (" > ".join(f"{v} {mean(means[v]):.2f}" for v in ranking) if ranking else "no arm learned it")
        )
        diffs += [
            paired(f"{task}: {a} - {b}, token accuracy past n", means[a], means[b], bounds=ACCURACY)
            for a, b in PUBLISHED_PAIRS
            if a in means and b in means
        ]
    verdicts = [directional(d, +1) for d in diffs]
    # a ranking is one claim: it holds only if every pair of the published order holds
    verdict = all_hold(verdicts)
    out = (
        f" Left out of this verdict (token accuracy at n below {threshold:g}, mean over seeds: not learned in "
        f"distribution): {', '.join(left_out)}."
        if left_out
        else " Every position arm learned every length task in distribution."
    )
    text = (
        "Length generalisation, mean token accuracy over the evaluation lengths past the training n, by task (best "
        "first): "
        + "; ".join(parts)
        + "."
        + out
        + " Published order tested pair by pair, all of which must hold: "
        + ", ".join(f"{a} > {b}" for a, b in PUBLISHED_PAIRS)
        + f" ({len(verdicts)} comparisons: {', '.join(f'{verdicts.count(v)} {v}' for v in dict.fromkeys(verdicts)) or 'none'})."
    )
    if not verdicts:
        found = unmet(
            CLAIM,
            "no pair of the published order has both arms learn a length task in distribution ("
            + ", ".join(left_out)
            + " below "
            + f"{threshold:g})",
            "a longer training or a learning-rate sweep of "
            "the position arms until both arms of a pair learn a task at its training lengths",
        )
        return dataclasses.replace(found, sentence=f"{text} {found.sentence}", boundary=threshold)
    return finding(
        CLAIM,
        verdict,
        f"{text} This run {says(verdict)}.",
        [d.estimate for d in diffs],
        cause="" if verdict == "agrees" else _cause(df, s, diffs, verdicts),
        headline=deciding(diffs, verdicts),
        boundary=0.0,
    )


def _cause(df: pd.DataFrame, s, diffs: list[Difference], verdicts: list[str]) -> str:
    """Which pairs of the published order fail, and how this setting differs from the source's."""
    failed = [
        f"on {d.estimate.label.split(',')[0].replace(':', '')} is {d.mean:+.2f} ("
        + ("the order reversed" if v == "disagrees" else d.why())
        + ")"
        for d, v in zip(diffs, verdicts)
        if v != "agrees"
    ]
    held = sum(v == "agrees" for v in verdicts)
    return (
        f"{held} of {len(verdicts)} tested pairs of the published order hold; "
        + "; ".join(failed)
        + f". Kazemnejad et al. score exact-match answers of ~100M-parameter decoders; here token accuracy of "
        f"{_parameters(df)} models at the profile's {s.get('steps')} steps, with arms that did not learn a task in "
        "distribution left out."
    )


def _parameters(df: pd.DataFrame) -> str:
    """The position arms' parameter count, in words ("0.1M-parameter")."""
    counts = df[df.variant.isin(POSITIONS)].parameters.dropna()
    return f"{counts.max() / 1e6:.1f}M-parameter" if len(counts) else "small"
