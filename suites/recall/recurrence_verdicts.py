"""The verdicts on the recurrences that came back: which recalls more on MQAR, and what a few attention blocks restore.

Each claim is a set of ordered pairs of variants (the first recalls more), compared by MQAR token accuracy at the
most pairs trained on, paired over seeds (harness/paired.py); a claim of several pairs holds only if every pair holds.
Its precondition: every arm compared learned the task's format, token accuracy at least the profile's learned
threshold at the fewest pairs whose guess without keys is below 1 (2 pairs). Below that a model has not learned to
read keys and values at all, and a gap at the most pairs says nothing about the size of its memory. The state ladder
pairs each recurrent family's ``+state<N>`` arms in order of N (a larger state recalls more); its attention part
asks that attention (RoPE) recall more than every recurrent arm that has not solved MQAR (mean below the learned
threshold), since two arms at the ceiling cannot be ordered.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import pandas as pd

from harness.findings import Estimate, Finding, cause_sentence, finding, not_run, unmet
from harness.paired import all_hold, directional, paired
from suites.recall.judged import ACCURACY, deciding, mean, says, scores
from suites.recall.tables import ATTENTION
from suites.recall.tasks import MQAR
from variants.mixer import mixers

#: the published orders tested, each as (better, worse) pairs of variants
GATED_DELTA_PAIRS = (("gated_deltanet", "mamba2"), ("gated_deltanet", "deltanet"))
DELTA_PAIRS = (("deltanet", "linear_attention"),)
HYBRID_PAIRS = (("mamba2+hybrid2", "mamba2"),)
_STATE = re.compile(r"^(?P<family>[a-z_0-9]+?)\+state(?P<n>\d+)$")


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


def pairs_finding(claim, df: pd.DataFrame, s, pairs: Sequence[tuple[str, str]]) -> Finding:
    """The verdict on a claim that each first variant of ``pairs`` recalls more than the second on MQAR."""
    part = df[(df.metric == "token_accuracy") & (df.task == "mqar")]
    present = set(part.variant)
    pairs = [(a, b) for a, b in pairs if a in present and b in present]
    if not pairs:
        return not_run(claim, "These records lack MQAR runs of both arms of any pair this claim compares.")
    sizes = sorted(part.x.unique())
    large, small = _sizes(s, sizes)
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
    tokens = MQAR(keys=s.get("mqar_keys", MQAR.keys), values=s.get("mqar_values", MQAR.values)).length(int(large))
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


def ladders(variants: Sequence[str]) -> dict[str, list[tuple[int, str]]]:
    """family -> its (state size, variant) arms in order of size, for families with at least two sizes; a bare mixer
    name counts at its fixed default state size where it has one (``mamba2``: N = 64)."""
    out: dict[str, list[tuple[int, str]]] = {}
    for v in variants:
        match = _STATE.match(v)
        if match:
            out.setdefault(match["family"], []).append((int(match["n"]), v))
        elif v in mixers and getattr(mixers.get(v), "default_state", None):
            out.setdefault(v, []).append((int(mixers.get(v).default_state), v))
    return {family: sorted(set(arms)) for family, arms in out.items() if len(arms) >= 2}


def state_ladder_finding(claim, df: pd.DataFrame, s) -> Finding:
    """Larger states recall more (each family's adjacent sizes), and attention above every arm short of solving it."""
    part = df[(df.metric == "token_accuracy") & (df.task == "mqar")]
    found = ladders(sorted(set(part.variant)))
    if not found:
        return not_run(
            claim,
            "These records lack a recurrent family at two state sizes (variants such as "
            "mamba2+state16 and mamba2+state64).",
        )
    pairs = [(big, small) for arms in found.values() for (_, small), (_, big) in zip(arms, arms[1:])]
    threshold = s["learned_accuracy"]
    sizes = sorted(part.x.unique())
    large, _ = _sizes(s, sizes)
    if ATTENTION in set(part.variant):
        recurrent = [v for arms in found.values() for _, v in arms]
        pairs += [(ATTENTION, v) for v in recurrent if mean(scores(df, v, "mqar", large)) < threshold]
    return pairs_finding(claim, df, s, pairs)


def _sizes(s, sizes: list[float]) -> tuple[float, float]:
    """(the most pairs, the fewest pairs whose guess without keys is below 1)."""
    task = MQAR(keys=s.get("mqar_keys", MQAR.keys), values=s.get("mqar_values", MQAR.values))
    small = next((x for x in sizes if task.key_blind_guess(int(x)) < 1.0), sizes[-1])
    return sizes[-1], small


def _curve(df: pd.DataFrame, arms: list[str], sizes: list[float]) -> str:
    return (
        f"MQAR token accuracy at {', '.join(str(int(x)) for x in sizes)} key-value pairs (mean over seeds): "
        + "; ".join(f"{v}: " + ", ".join(f"{mean(scores(df, v, 'mqar', x)):.2f}" for x in sizes) for v in arms)
        + "."
    )
