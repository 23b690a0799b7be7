"""Attention solves multi-query associative recall where fixed-state models fail (Arora et al. 2023, Zoology, arXiv
2312.04927), and their accuracy falls as key-value pairs grow.

The claim is about attention that has learned the task: Zoology trains every attention arm until it solves MQAR
(the best of four learning rates per model; a profile with ``mqar_learning_rates`` does the same, and these records
are each variant's chosen rate, suites/recall/learning_rates.py). Its precondition here: every attention arm (the Transformer with each
position encoding) learns MQAR, token accuracy at the most pairs trained on at least the profile's
``learned_accuracy``. One pair is no test of learning: its value is the only one in context. Where an arm has not
learned it, the claim is not testable here, and the comparison is shown judged on the arms that learned it.

Judged, every part must hold (``all_hold``): each attention arm that learned it above each fixed-state model at the
most pairs, and each fixed-state model's recall falling as the pairs grow. Recall is accuracy above guessing
without keys (tasks.MQAR.key_blind_guess: the most frequent value not yet answered, about H_N / N at N pairs), since
guessing alone falls from 1 at one pair to a quarter at 16; the fall is compared between the fewest pairs at which
that guess is below 1 and the most pairs.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, cause_sentence, finding, not_run, unmet
from harness.paired import all_hold, directional, paired
from suites.recall.claims._shared import ACCURACY, Evidence, deciding, mean, says, scores
from suites.recall.tables import FIXED_STATE, POSITIONS
from suites.recall.tasks import mqar_of

CLAIM = declared(__file__)

#: the learning rates Zoology sweeps per model (its best is kept); this suite trains at one of them
ZOOLOGY_RATES = (1e-3, 3e-3, 1e-2, 3e-2)
#: a difference of two accuracies above guessing lies within [-1, 1] each (the guess is a constant per size)
ABOVE_GUESS = (-1.0, 1.0)


def judge(ev: Evidence) -> Finding:
    """Every attention arm above every fixed-state model at the most pairs, and each fixed-state model's recall
    falling; not testable here while an attention arm has not learned MQAR."""
    df, s = ev.df, ev.s
    part = df[(df.metric == "token_accuracy") & (df.task == "mqar")]
    present = set(part.variant)
    attention = [v for v in POSITIONS if v in present]
    fixed = [v for v in FIXED_STATE if v in present]
    if not attention or not fixed:
        return not_run(CLAIM, "These records lack MQAR runs of an attention arm and a fixed-state model.")
    threshold = s["learned_accuracy"]
    task = mqar_of(s)
    sizes = sorted(part.x.unique())
    large = sizes[-1]
    guess = {x: task.key_blind_guess(int(x)) for x in sizes}
    at_most = {a: scores(df, a, "mqar", large) for a in attention}
    learned = [a for a in attention if mean(at_most[a]) >= threshold]
    curve = "; ".join(
        f"{v}: " + ", ".join(f"{mean(scores(df, v, 'mqar', x)):.2f}" for x in sizes) for v in [*attention, *fixed]
    )
    rates = _rates_sentence(part, [*attention, *fixed]) if len(s.get("mqar_learning_rates") or []) > 1 else ""
    text = (
        f"{rates}MQAR token accuracy at {', '.join(str(int(x)) for x in sizes)} key-value pairs (mean over seeds): {curve}; "
        "guessing without keys (the most frequent value not yet answered) scores "
        + ", ".join(f"{guess[x]:.2f}" for x in sizes)
        + "."
    )
    judged = _judged(df, learned, fixed, sizes, guess, at_most) if learned else None
    unlearned = [a for a in attention if a not in learned]
    if not unlearned:
        verdict, parts, estimates, head, causes = judged
        return finding(
            CLAIM,
            verdict,
            f"{text} Judged, {parts} This run {says(verdict)}.",
            estimates,
            cause=cause_sentence(verdict, causes),
            headline=head,
            boundary=0.0,
        )
    shortfall = sorted(unlearned, key=lambda a: -mean(at_most[a]))
    accuracies = [
        Estimate.of(
            f"{a} token accuracy at {int(large)} pairs", list(at_most[a].values()), kind="bounded", bounds=ACCURACY
        )
        for a in shortfall
    ]
    measured = (
        f"at {int(large)} pairs "
        + ", ".join(f"{a} {mean(at_most[a]):.2f}" for a in shortfall)
        + f" against the {threshold:g} that counts as learned (guessing without keys: {guess[large]:.2f})"
        + ("; " + ", ".join(f"{a} {mean(at_most[a]):.2f}" for a in learned) + " learned it" if learned else "")
    )
    found = unmet(CLAIM, measured, _would_test(df, s, shortfall), accuracies + (judged[2] if judged else []))
    aside = (
        f" Judged on the attention arms that learned it ({', '.join(learned)}) alone, {judged[1]} That comparison "
        f"{says(judged[0])}"
        + (": " + "; ".join(judged[4]) if judged[4] else "")
        + "; it separates those arms, not attention, from the fixed-state models."
        if judged
        else ""
    )
    # the headline is the precondition's measurement: the unlearned arm nearest the threshold, against the threshold
    return dataclasses.replace(found, sentence=f"{text} {found.sentence}{aside}", headline_index=0, boundary=threshold)


def _judged(df, learned: list[str], fixed: list[str], sizes, guess: dict[float, float], at_most):
    """(verdict, sentence part, estimates, headline position, causes) of the comparison on the learned arms."""
    large = sizes[-1]
    small = next((x for x in sizes if guess[x] < 1.0), large)
    gaps = [
        paired(f"{a} - {v} at {int(large)} pairs", at_most[a], scores(df, v, "mqar", large), bounds=ACCURACY)
        for a in learned
        for v in fixed
    ]
    falls = [
        paired(
            f"{v} above guessing, {int(small)} - {int(large)} pairs",
            _above(df, v, small, guess),
            _above(df, v, large, guess),
            bounds=ABOVE_GUESS,
        )
        for v in fixed
    ]
    # a fall of recall needs recall to fall from: a model at or below guessing at the fewest pairs shows none
    recalls = {
        v: Estimate.of(
            f"{v} above guessing at {int(small)} pairs",
            list(_above(df, v, small, guess).values()),
            kind="bounded",
            bounds=ABOVE_GUESS,
        )
        for v in fixed
    }
    shows = {v: e.low is not None and e.low > 0 for v, e in recalls.items()}
    diffs = gaps + falls
    verdicts = [directional(d, +1) for d in gaps] + [
        directional(d, +1) if shows[v] else "inconclusive" for v, d in zip(fixed, falls)
    ]
    verdict = all_hold(verdicts)
    text = (
        f"attention's lead at {int(large)} pairs: "
        + ", ".join(f"{d.estimate.label} {d.mean:+.2f} ({d.why()})" for d in gaps)
        + f"; each fixed-state model's accuracy above guessing, from {int(small)} to {int(large)} pairs: "
        + ", ".join(
            f"{v} {recalls[v].value:+.2f} to {mean(_above(df, v, large, guess)):+.2f} (fall {d.mean:+.2f}, {d.why()})"
            for v, d in zip(fixed, falls)
        )
        + "."
    )
    causes = [
        f"the lead {d.estimate.label} is {d.mean:+.2f}, " + ("reversed" if v == "disagrees" else d.why())
        for d, v in zip(gaps, verdicts)
        if v != "agrees"
    ]
    for name, d, v in zip(fixed, falls, verdicts[len(gaps) :]):
        if not shows[name]:
            causes.append(
                f"no fall can show for {name}: it does not recall above guessing even at {int(small)} pairs "
                f"({recalls[name].value:+.2f} {recalls[name].interval_text()})"
            )
        elif v != "agrees":
            causes.append(
                f"the recall of {name} above guessing does not fall from {int(small)} to {int(large)} pairs "
                f"({d.mean:+.2f}, " + ("it rises" if v == "disagrees" else d.why()) + ")"
            )
    return verdict, text, [d.estimate for d in diffs], deciding(diffs, verdicts), causes


def _rate(r) -> str:
    """1e-3, 3e-2: a learning rate as Zoology writes it."""
    return f"{float(r):.0e}".replace("e-0", "e-") if r is not None else "one rate"


def _above(df, variant: str, size: float, guess: dict[float, float]) -> dict[int, float]:
    """seed -> token accuracy minus guessing without keys at ``size`` pairs."""
    return {seed: v - guess[size] for seed, v in scores(df, variant, "mqar", size).items()}


def _rates_sentence(part: pd.DataFrame, variants: list[str]) -> str:
    """'Each at its best learning rate of ...: none 1e-2, ...; ' where the records hold a sweep, else ''."""
    rates = part.groupby("variant").lr.first().dropna().to_dict() if "lr" in part else {}
    if not rates:
        return ""
    return (
        "Each variant at the learning rate that scored best on validation sequences: "
        + ", ".join(f"{v} {_rate(rates[v])}" for v in variants if v in rates)
        + ". "
    )


def _would_test(df: pd.DataFrame, s, arms: list[str]) -> str:
    """What would test the claim: Zoology's learning-rate sweep for the arms that did not learn, with its cost at this
    profile's measured speed; after the sweep, Zoology's longer training."""
    swept = set(s.get("mqar_learning_rates") or [])
    if swept >= set(ZOOLOGY_RATES):
        return (
            f"a training as long as Zoology's (about 22,500 steps of 256 sequences, against {s['steps']} of "
            f"{s['batch_size']} here) for {', '.join(arms)}, beyond the sweep over its four learning rates done here"
        )
    rates = [r for r in ZOOLOGY_RATES if r != s.get("lr") and r not in swept]
    seeds = df.seed.nunique()
    sweep = (
        f"a learning-rate sweep per attention arm as Zoology runs (its rates {', '.join(_rate(r) for r in ZOOLOGY_RATES)}; "
        f"here {_rate(s.get('lr'))}), for {', '.join(arms)}: {len(rates)} more rates x {len(arms)} arms x {seeds} seeds of MQAR training"
    )
    if "task_train_time" not in set(df.metric):
        return sweep
    times = df[
        (df.metric == "task_train_time") & (df.task == "mqar") & df.variant.isin(arms) & (df.status == "ok")
    ].value
    if not len(times):
        return sweep
    minutes = len(rates) * len(arms) * seeds * float(times.mean()) / 60
    return f"{sweep}, about {minutes:.0f} minutes of one worker at the {float(times.mean()):.0f} s each took here"
