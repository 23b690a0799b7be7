"""The recall verdicts: attention against fixed-state models on MQAR and copying, and positions on length generalisation.

Every comparison is paired over seeds (harness/paired.py): a difference counts when its 95% interval excludes 0,
the arms' per-seed ranges do not overlap, or it exceeds the profile's ``accuracy_margin`` (so one seed can count a
large gap); otherwise it is inconclusive. A diverged training scores 0 at every size (an outcome, not a gap).
Token accuracies lie in [0, 1], and their intervals keep to it; the longest length copied is a count, shown with
its range over seeds.
"""

from __future__ import annotations

from typing import Dict, List

import pandas as pd

from harness.findings import Estimate, Finding, cause_sentence, finding, not_run
from harness.paired import all_hold, combine_verdicts, directional, paired
from harness.suite_file import SuiteFile
from suites.recall.tables import ATTENTION, FIXED_STATE, POSITIONS, learned, out_of_distribution_mean, with_task

#: the published findings this suite tests, in the order its report states them (suite.yaml)
MQAR_CLAIM, COPY_CLAIM, POSITION_CLAIM = CLAIMS = SuiteFile.of(__file__).claims(
    "attention_solves_mqar", "transformers_copy_longer", "position_length_generalisation")

#: Kazemnejad et al.'s order, as the pairs this suite tests (each: the first generalises better than the second)
PUBLISHED_PAIRS = (("none", "alibi"), ("t5_bias", "alibi"), ("alibi", "rope"))
#: the tasks of the position-encoding ranking
LENGTH_TASKS = ("copy", "reverse", "addition")
#: the bounds of a token accuracy: its estimates and the paired gaps between two accuracies keep to them
#: (harness/intervals.py "bounded"; a gap lies within [-1, 1])
ACCURACY = (0.0, 1.0)


def findings(df: pd.DataFrame) -> List[Finding]:
    """The three verdicts of this suite from one group of records."""
    df = with_task(df)
    s = df.iloc[0].profile_settings
    return [_mqar(df, s), _copy(df, s), _positions(df, s)]


def _scores(df: pd.DataFrame, variant: str, task: str, size: float) -> Dict[int, float]:
    """seed -> token accuracy, a diverged training at 0."""
    rows = df[(df.metric == "token_accuracy") & (df.variant == variant) & (df.task == task) & (df.x == size)]
    return {int(seed): (float(v) if st == "ok" else 0.0) for seed, v, st in zip(rows.seed, rows.value, rows.status)}


def _says(verdict: str) -> str:
    return {"agrees": "agrees", "disagrees": "disagrees"}.get(verdict, "is inconclusive")


def _mqar(df: pd.DataFrame, s) -> Finding:
    part = df[(df.metric == "token_accuracy") & (df.task == "mqar")]
    fixed = [v for v in FIXED_STATE if v in set(part.variant)]
    if not len(part) or ATTENTION not in set(part.variant) or not fixed:
        return not_run(MQAR_CLAIM, "These records lack MQAR runs of the attention arm (rope) and a fixed-state model.")
    margin, solved = s["accuracy_margin"], s["learned_accuracy"]
    sizes = sorted(part.x.unique())
    small, large = sizes[0], sizes[-1]
    attention = _scores(df, ATTENTION, "mqar", large)
    solves = Estimate.of(f"{ATTENTION} token accuracy at {int(large)} pairs", list(attention.values()), kind="bounded",
                         bounds=ACCURACY)
    # a claim about trained models: an attention arm that has not learned MQAR in this budget cannot refute it
    solves_verdict = "agrees" if solves.value >= solved else "inconclusive"
    gaps = {v: paired(f"{ATTENTION} - {v} at {int(large)} pairs", attention, _scores(df, v, "mqar", large), margin=margin,
                    bounds=ACCURACY) for v in fixed}
    falls = {v: paired(f"{v} at {int(small)} - at {int(large)} pairs", _scores(df, v, "mqar", small),
                       _scores(df, v, "mqar", large), margin=margin, bounds=ACCURACY) for v in fixed}
    gap_v = combine_verdicts([directional(d, +1) for d in gaps.values()])
    fall_v = combine_verdicts([directional(d, +1) for d in falls.values()])
    verdict = all_hold([solves_verdict, gap_v, fall_v])
    curve = "; ".join(f"{v}: " + ", ".join(f"{_mean(_scores(df, v, 'mqar', x)):.2f}" for x in sizes)
                      for v in [ATTENTION, *fixed])
    text = (f"MQAR token accuracy at {', '.join(str(int(x)) for x in sizes)} key-value pairs (mean over seeds): {curve}. "
            f"Attention ({ATTENTION}) at {int(large)} pairs: {solves.value:.2f} (solved at >= {solved:g}: {solves_verdict}); "
            "its lead over each fixed-state model there: "
            + ", ".join(f"{v} {d.mean:+.2f} ({d.why()})" for v, d in gaps.items())
            + f" ({gap_v}); the fixed-state models' fall from {int(small)} to {int(large)} pairs: "
            + ", ".join(f"{v} {d.mean:+.2f}" for v, d in falls.items())
            + f" ({fall_v}). This run {_says(verdict)}.")
    causes = []
    if solves_verdict != "agrees":
        causes.append(f"{ATTENTION} does not solve MQAR at {int(large)} pairs within this budget ({solves.value:.2f} < "
                      f"{solved:g}; 1/{int(large)} = {1 / large:.2f} is what guessing among the values in context scores)")
    causes += [f"{v} is not below {ATTENTION} beyond the seed spread or the margin {margin:g}" for v, d in gaps.items()
               if directional(d, +1) != "agrees"]
    causes += [f"{v}'s accuracy does not fall with the number of pairs ({d.mean:+.2f})" for v, d in falls.items()
               if directional(d, +1) != "agrees"]
    return finding(MQAR_CLAIM, verdict, text, [solves] + [d.estimate for d in gaps.values()]
                   + [d.estimate for d in falls.values()], cause=cause_sentence(verdict, causes), headline=1)


def _longest(df: pd.DataFrame, variant: str, threshold: float) -> Dict[int, float]:
    """seed -> the longest in-distribution copy length whose token accuracy, and every shorter one's, reaches threshold."""
    rows = df[(df.metric == "token_accuracy") & (df.variant == variant) & (df.task == "copy") & (df.in_distribution == True)]  # noqa: E712
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
    rivals = [v for v in ("lstm", "mingru") if v in set(part.variant)]
    if not len(part) or ATTENTION not in set(part.variant) or not rivals:
        return not_run(COPY_CLAIM, "These records lack copy runs of the attention arm (rope) and of lstm or mingru.")
    n, margin, threshold = float(part.train_max.iloc[0]), s["accuracy_margin"], s["learned_accuracy"]
    attention = _scores(df, ATTENTION, "copy", n)
    gaps = {v: paired(f"{ATTENTION} - {v} copy token accuracy at length {int(n)}", attention, _scores(df, v, "copy", n),
                      margin=margin, bounds=ACCURACY) for v in rivals}
    verdict = combine_verdicts([directional(d, +1) for d in gaps.values()])
    attention_at_n = _mean(attention)
    # a claim about what trained models can copy: an attention arm that has not learned copying at the training
    # lengths within this budget cannot refute it (a recurrent model that learns faster is not one that copies longer)
    unlearned = attention_at_n < threshold and verdict != "agrees"
    if unlearned:
        verdict = "inconclusive"
    longest = {v: _longest(df, v, threshold) for v in [ATTENTION, *rivals]}
    text = (f"Copying strings of up to n = {int(n)} symbols (the training lengths): token accuracy at {int(n)} "
            + ", ".join(f"{v} {_mean(_scores(df, v, 'copy', n)):.2f}" for v in [ATTENTION, *rivals])
            + f"; longest length copied at token accuracy >= {threshold:g} (and every shorter one) per seed: "
            + "; ".join(f"{v} [{', '.join(f'{x:g}' for _, x in sorted(l.items()))}]" for v, l in longest.items())
            + ". Paired at length n: " + ", ".join(f"{ATTENTION} - {v} {d.mean:+.2f} ({d.why()})" for v, d in gaps.items())
            + f". This run {_says(verdict)}.")
    causes = ([f"{ATTENTION} has not learned copying at n = {int(n)} within this budget ({attention_at_n:.2f} < {threshold:g})"]
              if unlearned else [])
    causes += [f"{ATTENTION} does not copy better than {v} beyond the seed spread or the margin {margin:g}"
               for v, d in gaps.items() if directional(d, +1) != "agrees"]
    estimates = [d.estimate for d in gaps.values()] + [Estimate.of(f"longest copied, {v}", list(l.values()), "symbols", "count")
                                                       for v, l in longest.items()]
    return finding(COPY_CLAIM, verdict, text, estimates, cause=cause_sentence(verdict, causes))


def _positions(df: pd.DataFrame, s) -> Finding:
    acc = df[df.metric == "token_accuracy"]
    tasks = [t for t in LENGTH_TASKS if t in set(acc.task)]
    arms = [v for v in POSITIONS if v in set(acc.variant)]
    if not tasks or len(arms) < 2:
        return not_run(POSITION_CLAIM, "These records lack two position arms on a length task.")
    threshold, margin = s["learned_accuracy"], s["accuracy_margin"]
    verdicts, parts, estimates, left_out, failed = [], [], [], [], []
    for task in tasks:
        kept = [v for v in arms if learned(df, v, task, threshold)]
        left_out += [f"{v} on {task}" for v in arms if v not in kept]
        means = {v: out_of_distribution_mean(df, v, task) for v in kept}
        ranking = sorted(kept, key=lambda v: -_mean(means[v]))
        parts.append(f"{task}: " + (" > ".join(f"{v} {_mean(means[v]):.2f}" for v in ranking) if ranking else "no arm learned it"))
        for a, b in PUBLISHED_PAIRS:
            if a in means and b in means:
                d = paired(f"{task}: {a} - {b}, token accuracy past n", means[a], means[b], margin=margin, bounds=ACCURACY)
                verdicts.append(directional(d, +1))
                estimates.append(d.estimate)
                if verdicts[-1] != "agrees":
                    failed.append(f"on {task} {a} - {b} is {d.mean:+.2f} ("
                                  + ("the order reversed" if verdicts[-1] == "disagrees" else "not beyond the seed spread "
                                     f"or the margin {margin:g}") + ")")
    verdict = combine_verdicts(verdicts)
    out = (f" Left out of this verdict (token accuracy at n below {threshold:g}, mean over seeds: not learned in "
           f"distribution): {', '.join(left_out)}." if left_out else " Every position arm learned every length task in distribution.")
    text = ("Length generalisation, mean token accuracy over the evaluation lengths past the training n, by task (best "
            "first): " + "; ".join(parts) + "." + out + " Published order tested pair by pair: "
            + ", ".join(f"{a} > {b}" for a, b in PUBLISHED_PAIRS)
            + f" ({len(verdicts)} comparisons: {', '.join(f'{verdicts.count(v)} {v}' for v in dict.fromkeys(verdicts)) or 'none'})."
            + f" This run {_says(verdict)}.")
    if not verdicts:
        return finding(POSITION_CLAIM, "inconclusive", text, (), cause="No pair of the published order had both arms learn a task in distribution.")
    held = verdicts.count("agrees")
    cause = "" if verdict == "agrees" else (
        f"{held} of {len(verdicts)} tested pairs of the published order hold; " + "; ".join(failed)
        + f". Kazemnejad et al. score exact-match answers of ~100M-parameter decoders; here token accuracy of "
        f"{_parameters(df)} models at the profile's {s.get('steps')} steps, with arms that did not learn a task in "
        "distribution left out.")
    return finding(POSITION_CLAIM, verdict, text, estimates, cause=cause)


def _parameters(df: pd.DataFrame) -> str:
    """The position arms' parameter count, in words ("0.1M-parameter")."""
    counts = df[df.variant.isin(POSITIONS)].parameters.dropna()
    return f"{counts.max() / 1e6:.1f}M-parameter" if len(counts) else "small"


def _mean(values: Dict[int, float]) -> float:
    vals = list(values.values())
    return sum(vals) / len(vals) if vals else float("nan")
