"""Attention solves multi-query associative recall where fixed-state models fail (Arora et al. 2023, Zoology, arXiv
2312.04927), and their accuracy falls as key-value pairs grow.

The attention arm is the Transformer with RoPE (``PRIMARY``), named by the protocol before any result: the claim is
judged on it, against every fixed-state model. Whether an attention arm learns MQAR is half of the claim's predicted
outcome, so it is never a precondition: the primary arm is judged whatever it scores. Each other Transformer arm (no
positions, ALiBi, T5's bias) gets its own verdict by the same rule, shown beside the claim's with its budget (Zoology
trains about 22,500 steps of 256 sequences at the best of four learning rates; a profile's ``steps`` are far fewer),
never folded into it.

Its precondition is about the setting, the same bar as the other recall claims: every arm compared learned MQAR's
format, token accuracy at 2 pairs (the fewest at which guessing without keys is below 1, far inside every arm's
state) at least the profile's ``learned_accuracy``, mean over seeds. A fixed-state model that has not learned to read
keys and values at 2 pairs can show neither attention's lead from memory nor a fall of recall with pairs; such an arm
is left out and named, and with none left (or the primary arm short of it) the claim is not testable here, whatever
the comparison shows.

Judged, every part must hold (``all_hold``: refuted only with the parts held at 5% together, Holm): RoPE above each
fixed-state model at the most pairs, and each fixed-state model's recall falling as the pairs grow. Recall is
accuracy above guessing without keys (tasks.MQAR.key_blind_guess: the most frequent value not yet answered, about
H_N / N at N pairs), since guessing alone falls from 1 at one pair to a quarter at 16; the fall is compared between
the fewest pairs at which that guess is below 1 and the most pairs.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from harness.claims import declared
from harness.findings import Finding, not_run, unmet
from harness.paired import all_hold, directional, paired
from suites.recall.claims._shared import (
    Evidence,
    Part,
    accuracy,
    conjunction,
    mean,
    mqar_difference,
    scores,
    sizes_of,
    why,
)
from suites.recall.tables import ATTENTION, FIXED_STATE, POSITIONS
from suites.recall.tasks import mqar_of

CLAIM = declared(__file__)
#: the attention arm the protocol names, before any result: the claim's verdict is on it
PRIMARY = ATTENTION

#: the learning rates Zoology sweeps per model (its best is kept); this suite trains at one of them
ZOOLOGY_RATES = (1e-3, 3e-3, 1e-2, 3e-2)
#: a difference of two accuracies above guessing lies within [-1, 1] each (the guess is a constant per size)
ABOVE_GUESS = (-1.0, 1.0)


def judge(ev: Evidence) -> Finding:
    """RoPE above every fixed-state model that learned MQAR's format at the most pairs, and each one's recall falling;
    not testable here while no fixed-state model (or RoPE) learned the format."""
    df, s = ev.df, ev.s
    part = df[(df.metric == "token_accuracy") & (df.task == "mqar")]
    present = set(part.variant)
    attention = [v for v in POSITIONS if v in present]
    fixed = [v for v in FIXED_STATE if v in present]
    if PRIMARY not in present or not fixed:
        return not_run(CLAIM, f"These records lack MQAR runs of the attention arm ({PRIMARY}) and a fixed-state model.")
    threshold = s["learned_accuracy"]
    task = mqar_of(s)
    sizes = sorted(part.x.unique())
    large, small = sizes_of(s, sizes)
    guess = {x: task.key_blind_guess(int(x)) for x in sizes}
    at_small = {v: mean(scores(df, v, "mqar", small)) for v in [*attention, *fixed]}
    taking = [v for v in fixed if at_small[v] >= threshold]
    left_out = [v for v in fixed if v not in taking]
    curve = "; ".join(
        f"{v}: " + ", ".join(f"{mean(scores(df, v, 'mqar', x)):.2f}" for x in sizes) for v in [*attention, *fixed]
    )
    rates = _rates_sentence(part, [*attention, *fixed]) if len(s.get("mqar_learning_rates") or []) > 1 else ""
    text = (
        f"{rates}MQAR token accuracy at {', '.join(str(int(x)) for x in sizes)} key-value pairs (mean over seeds): {curve}; "
        "guessing without keys (the most frequent value not yet answered) scores "
        + ", ".join(f"{guess[x]:.2f}" for x in sizes)
        + f". The attention arm, as the protocol names it: {PRIMARY}."
    )
    others = [_other(df, s, a, taking, sizes, guess, at_small) for a in attention if a != PRIMARY]
    others_text = (
        (" Other attention arms, each by the same rule, not part of this verdict: " + "; ".join(others) + ".")
        if others
        else ""
    )
    others_cause = (
        f" Other attention arms (not the protocol's): {'; '.join(o.split(' (')[0] for o in others)}, each at "
        f"{s.get('steps')} steps of {s.get('batch_size')} where Zoology trains about 22,500 of 256."
        if others
        else ""
    )
    unlearned = ([PRIMARY] if at_small[PRIMARY] < threshold else []) + left_out
    if at_small[PRIMARY] < threshold or not taking:
        shown = _parts(df, PRIMARY, fixed, sizes, guess)
        measured = (
            f"at {int(small)} pairs "
            + ", ".join(f"{v} {at_small[v]:.2f}" for v in unlearned)
            + f" against the {threshold:g} that counts as having learned MQAR's format (guessing without keys: "
            f"{guess[small]:.2f})"
        )
        accuracies = [
            accuracy(f"{v} token accuracy at {int(small)} pairs", scores(df, v, "mqar", small)) for v in unlearned
        ]
        found = unmet(CLAIM, measured, _would_test(df, s, unlearned), accuracies + [p.diff.estimate for p in shown])
        aside = f" Shown, not judged: {_words(df, shown, fixed, sizes, guess)}"
        return dataclasses.replace(
            found,
            sentence=f"{text} {found.sentence}{aside}{others_text}",
            cause=found.cause + others_cause,
            headline_index=0,
            boundary=threshold,
        )
    parts = _parts(df, PRIMARY, taking, sizes, guess)
    out = (
        f" Left out (token accuracy at {int(small)} pairs below {threshold:g}: MQAR's format not learned): "
        + ", ".join(f"{v} {at_small[v]:.2f}" for v in left_out)
        + "."
        if left_out
        else ""
    )
    found = conjunction(CLAIM, f"{text} Judged, {_words(df, parts, taking, sizes, guess)}{out}{others_text}", parts)
    return dataclasses.replace(found, cause=found.cause + others_cause if found.cause else found.cause)


def _parts(df, arm: str, fixed: list[str], sizes, guess: dict[float, float]) -> list[Part]:
    """``arm``'s lead over each fixed-state model at the most pairs, then each one's fall of recall above guessing from
    the fewest pairs whose guess is below 1 to the most pairs."""
    large = sizes[-1]
    small = next((x for x in sizes if guess[x] < 1.0), large)
    out = []
    for v in fixed:
        lead = mqar_difference(df, arm, v, large, f"{arm} - {v} at {int(large)} pairs")
        out.append(Part(lead, directional(lead, +1)))
    for v in fixed:
        fall = paired(
            f"{v} above guessing, {int(small)} - {int(large)} pairs",
            _above(df, v, small, guess),
            _above(df, v, large, guess),
            bounds=ABOVE_GUESS,
        )
        out.append(Part(fall, directional(fall, +1), refuted_words="its recall rises"))
    return out


def _words(df, parts: list[Part], fixed: list[str], sizes, guess: dict[float, float]) -> str:
    large = sizes[-1]
    small = next((x for x in sizes if guess[x] < 1.0), large)
    leads, falls = parts[: len(fixed)], parts[len(fixed) :]
    return (
        f"attention's lead at {int(large)} pairs: "
        + ", ".join(f"{p.diff.estimate.label} {p.diff.mean:+.2f} ({why(p)})" for p in leads)
        + f"; each fixed-state model's accuracy above guessing, from {int(small)} to {int(large)} pairs: "
        + ", ".join(
            f"{v} {mean(_above(df, v, small, guess)):+.2f} to {mean(_above(df, v, large, guess)):+.2f} "
            f"(fall {p.diff.mean:+.2f}, {why(p)})"
            for v, p in zip(fixed, falls)
        )
        + "."
    )


def _other(df, s, arm: str, taking: list[str], sizes, guess, at_small: dict[str, float]) -> str:
    """'none: not testable here (...)': another attention arm's verdict by the same rule, with its budget."""
    large = sizes[-1]
    small = next((x for x in sizes if guess[x] < 1.0), large)
    threshold = s["learned_accuracy"]
    accuracy_words = (
        f"{mean(scores(df, arm, 'mqar', large)):.2f} at {int(large)} pairs, {at_small[arm]:.2f} at {int(small)}"
    )
    if at_small[arm] < threshold or not taking:
        why_not = "it did not learn" if at_small[arm] < threshold else "no fixed-state model learned"
        return f"{arm} not testable here ({accuracy_words}; {why_not} MQAR's format)"
    parts = _parts(df, arm, taking, sizes, guess)
    verdict = all_hold([p.verdict for p in parts])
    leads = ", ".join(f"{p.diff.mean:+.2f} over {v}" for p, v in zip(parts, taking))
    return f"{arm} {verdict} ({accuracy_words}; leads {leads})"


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
        f"a learning-rate sweep per arm as Zoology runs (its rates {', '.join(_rate(r) for r in ZOOLOGY_RATES)}; "
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
