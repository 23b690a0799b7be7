"""The recall verdicts: attention against fixed-state models on MQAR and copying, and positions on length generalisation.

Every comparison is one paired test over seeds (suites/recall/judged.py, harness/paired.py): a difference counts
when its 95% interval excludes 0; one seed gives no verdict. A claim of several pairs holds only if every pair
holds, and its headline is the pair the verdict turns on. Each claim declares what must hold for it to be testable
(suite.yaml ``precondition``: the arms learned the task); where the run measures it absent, the verdict is "not
testable here" with that measurement. A diverged training scores 0 at every size (an outcome, not a gap). Token
accuracies lie in [0, 1], and their intervals keep to it; the longest length copied is a count, shown with its
range over seeds.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from harness.findings import Estimate, Finding, cause_sentence, finding, not_run, unmet
from harness.paired import all_hold, directional, paired
from harness.suite_file import SuiteFile
from suites.recall.judged import ACCURACY, deciding, mean, says, scores
from suites.recall.mqar_verdict import mqar_finding
from suites.recall.recurrence_verdicts import (
    DELTA_PAIRS,
    GATED_DELTA_PAIRS,
    HYBRID_PAIRS,
    pairs_finding,
    state_ladder_finding,
)
from suites.recall.tables import ATTENTION, POSITIONS, learned, out_of_distribution_mean, with_task

#: the published findings this suite tests, in the order its report states them (suite.yaml)
(MQAR_CLAIM, COPY_CLAIM, POSITION_CLAIM, GATED_DELTA_CLAIM, DELTA_CLAIM, STATE_CLAIM, HYBRID_CLAIM) = CLAIMS = (
    SuiteFile.of(__file__).claims(
        "attention_solves_mqar",
        "transformers_copy_longer",
        "position_length_generalisation",
        "gated_deltanet_recalls_best",
        "delta_rule_beats_linear_attention",
        "larger_state_recalls_more",
        "hybrid_restores_recall",
    )
)
#: the fixed-state models the copy claim puts against the Transformer (each where its records exist)
COPY_RIVALS = ("lstm", "mingru", "mamba2")

#: Kazemnejad et al.'s order, as the pairs this suite tests (each: the first generalises better than the second)
PUBLISHED_PAIRS = (("none", "alibi"), ("t5_bias", "alibi"), ("alibi", "rope"))
#: the tasks of the position-encoding ranking
LENGTH_TASKS = ("copy", "reverse", "addition")


def findings(df: pd.DataFrame) -> list[Finding]:
    """The verdicts of this suite from one group of records."""
    df = with_task(df)
    s = df.iloc[0].profile_settings
    return [
        mqar_finding(MQAR_CLAIM, df, s),
        _copy(df, s),
        _positions(df, s),
        pairs_finding(GATED_DELTA_CLAIM, df, s, GATED_DELTA_PAIRS),
        pairs_finding(DELTA_CLAIM, df, s, DELTA_PAIRS),
        state_ladder_finding(STATE_CLAIM, df, s),
        pairs_finding(HYBRID_CLAIM, df, s, HYBRID_PAIRS),
    ]


def _longest(df: pd.DataFrame, variant: str, threshold: float) -> dict[int, float]:
    """seed -> the longest in-distribution copy length whose token accuracy, and every shorter one's, reaches threshold."""
    rows = df[
        (df.metric == "token_accuracy") & (df.variant == variant) & (df.task == "copy") & (df.in_distribution == True)  # noqa: E712
    ]
    out = {}
    for seed, part in rows.groupby("seed"):
        longest = 0.0
        for x, v, st in sorted(zip(part.x, part.value, part.status)):
            if st != "ok" or v < threshold:
                break
            longest = float(x)
        out[int(seed)] = longest
    return out


def _copy(df: pd.DataFrame, s) -> Finding:
    part = df[(df.metric == "token_accuracy") & (df.task == "copy")]
    rivals = [v for v in COPY_RIVALS if v in set(part.variant)]
    if not len(part) or ATTENTION not in set(part.variant) or not rivals:
        return not_run(
            COPY_CLAIM, "These records lack copy runs of the attention arm (rope) and of lstm, mingru or mamba2."
        )
    n, threshold = float(part.train_max.iloc[0]), s["learned_accuracy"]
    attention = scores(df, ATTENTION, "copy", n)
    gaps = [
        paired(
            f"{ATTENTION} - {v} copy token accuracy at length {int(n)}",
            attention,
            scores(df, v, "copy", n),
            bounds=ACCURACY,
        )
        for v in rivals
    ]
    verdicts = [directional(d, +1) for d in gaps]
    verdict = all_hold(verdicts)  # longer than LSTMs *and* minGRU: one reversed pair refutes it
    longest = {v: _longest(df, v, threshold) for v in [ATTENTION, *rivals]}
    text = (
        f"Copying strings of up to n = {int(n)} symbols (the training lengths): token accuracy at {int(n)} "
        + ", ".join(f"{v} {mean(scores(df, v, 'copy', n)):.2f}" for v in [ATTENTION, *rivals])
        + f"; longest length copied at token accuracy >= {threshold:g} (and every shorter one) per seed: "
        + "; ".join(f"{v} [{', '.join(f'{x:g}' for _, x in sorted(l.items()))}]" for v, l in longest.items())
        + ". Paired at length n: "
        + ", ".join(f"{d.estimate.label.split(' copy')[0]} {d.mean:+.2f} ({d.why()})" for d in gaps)
    )
    estimates = [d.estimate for d in gaps] + [
        Estimate.of(f"longest copied, {v}", list(l.values()), "symbols", "count") for v, l in longest.items()
    ]
    # a claim about what trained models can copy: an attention arm that has not learned copying at the training
    # lengths cannot refute it (a recurrent model that learns faster is not one that copies longer)
    if mean(attention) < threshold:
        found = unmet(
            COPY_CLAIM,
            f"{ATTENTION}'s token accuracy at n = {int(n)} is {mean(attention):.2f}, below the "
            f"{threshold:g} that counts as learned",
            f"a longer training or a learning-rate sweep of {ATTENTION} "
            "on copying until it copies the training lengths",
            [
                Estimate.of(
                    f"{ATTENTION} copy token accuracy at length {int(n)}",
                    list(attention.values()),
                    kind="bounded",
                    bounds=ACCURACY,
                )
            ]
            + estimates,
        )
        return dataclasses.replace(found, sentence=f"{text}. {found.sentence}", boundary=threshold)
    causes = [
        f"the gap {d.estimate.label} is {d.mean:+.2f}, " + ("reversed" if v == "disagrees" else d.why())
        for d, v in zip(gaps, verdicts)
        if v != "agrees"
    ]
    return finding(
        COPY_CLAIM,
        verdict,
        f"{text}. This run {says(verdict)}.",
        estimates,
        cause=cause_sentence(verdict, causes),
        headline=deciding(gaps, verdicts),
        boundary=0.0,
    )


def _positions(df: pd.DataFrame, s) -> Finding:
    acc = df[df.metric == "token_accuracy"]
    tasks = [t for t in LENGTH_TASKS if t in set(acc.task)]
    arms = [v for v in POSITIONS if v in set(acc.variant)]
    if not tasks or len(arms) < 2:
        return not_run(POSITION_CLAIM, "These records lack two position arms on a length task.")
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
            POSITION_CLAIM,
            "no pair of the published order has both arms learn a length task in distribution ("
            + ", ".join(left_out)
            + " below "
            + f"{threshold:g})",
            "a longer training or a learning-rate sweep of "
            "the position arms until both arms of a pair learn a task at its training lengths",
        )
        return dataclasses.replace(found, sentence=f"{text} {found.sentence}", boundary=threshold)
    failed = [
        f"on {d.estimate.label.split(',')[0].replace(':', '')} is {d.mean:+.2f} ("
        + ("the order reversed" if v == "disagrees" else d.why())
        + ")"
        for d, v in zip(diffs, verdicts)
        if v != "agrees"
    ]
    held = verdicts.count("agrees")
    cause = (
        ""
        if verdict == "agrees"
        else (
            f"{held} of {len(verdicts)} tested pairs of the published order hold; "
            + "; ".join(failed)
            + f". Kazemnejad et al. score exact-match answers of ~100M-parameter decoders; here token accuracy of "
            f"{_parameters(df)} models at the profile's {s.get('steps')} steps, with arms that did not learn a task in "
            "distribution left out."
        )
    )
    return finding(
        POSITION_CLAIM,
        verdict,
        f"{text} This run {says(verdict)}.",
        [d.estimate for d in diffs],
        cause=cause,
        headline=deciding(diffs, verdicts),
        boundary=0.0,
    )


def _parameters(df: pd.DataFrame) -> str:
    """The position arms' parameter count, in words ("0.1M-parameter")."""
    counts = df[df.variant.isin(POSITIONS)].parameters.dropna()
    return f"{counts.max() / 1e6:.1f}M-parameter" if len(counts) else "small"
