"""A few attention blocks restore recall to a recurrent stack (Waleffe et al. 2024): the Mamba-2 hybrid against pure
Mamba-2 on MQAR at the most pairs, paired over seeds.

"Restore" presupposes a deficit: Waleffe et al.'s pure Mamba-2 lags the Transformer on recall. The deficit is measured
first, by a bar declared before the results (suite.yaml ``precondition``): the pure stack falls short of recall at the
most pairs when the 95% interval of its token accuracy there lies wholly below the profile's learned threshold, or
the attention arm's (RoPE's) paired lead over it lies wholly above the claim's smallest effect. Without a deficit
there is nothing to restore and the claim is not testable here, whatever the hybrid scores; with one, the hybrid
must recall more than the pure stack (directional, paired over seeds), and both arms must have learned MQAR's format
(the recall claims' common precondition).
"""

from __future__ import annotations

import dataclasses
import re

from harness.claims import declared
from harness.findings import Finding, not_run, unmet
from harness.paired import reaches
from suites.recall.claims._shared import (
    Evidence,
    accuracy,
    conjunction,
    curve,
    format_unmet,
    judged_text,
    mean,
    mqar_difference,
    mqar_parts,
    scores,
    sizes_of,
    state_of,
)
from suites.recall.tables import ATTENTION
from suites.recall.tasks import mqar_of

CLAIM = declared(__file__)
#: the published order, as (better, worse) pairs of variants: the hybrid above its pure recurrent stack
PAIRS = (("mamba2+hybrid2", "mamba2"),)
#: the pure recurrent stack whose deficit is measured first
PURE = PAIRS[0][1]
#: Zoology's most key-value pairs on MQAR (Arora et al. 2023: 4-64 pairs at 64-512 tokens)
ZOOLOGY_MOST_PAIRS = 64


def judge(ev: Evidence) -> Finding:
    """Not testable without a deficit of the pure stack; else the hybrid above it at the most pairs."""
    df, s = ev.df, ev.s
    part = df[(df.metric == "token_accuracy") & (df.task == "mqar")]
    present = set(part.variant)
    if not all(v in present for pair in PAIRS for v in pair):
        return not_run(CLAIM, "These records lack MQAR runs of both arms of any pair this claim compares.")
    sizes = sorted(part.x.unique())
    large, _ = sizes_of(s, sizes)
    arms = list(dict.fromkeys(v for pair in PAIRS for v in pair))
    tokens = mqar_of(s).length(int(large))
    parts = mqar_parts(df, PAIRS, large, tokens)
    text = curve(df, arms + ([ATTENTION] if ATTENTION in present else []), sizes)
    unlearned = format_unmet(CLAIM, ev, arms, text, [p.diff.estimate for p in parts])
    if unlearned is not None:
        return unlearned
    deficit, measured, shown = _deficit(ev, large)
    if not deficit:
        found = unmet(CLAIM, measured, _would_test(ev, large, tokens), shown + [p.diff.estimate for p in parts])
        aside = f" Shown, not judged: {judged_text(parts, f'{int(large)} pairs')}"
        return dataclasses.replace(found, sentence=f"{text} {found.sentence}{aside}", boundary=s["learned_accuracy"])
    return conjunction(
        CLAIM, f"{text} The deficit: {measured}. {judged_text(parts, f'{int(large)} pairs')}", parts, shown
    )


def _deficit(ev: Evidence, large: float) -> tuple[bool, str, list]:
    """(whether the pure stack falls short of recall at ``large`` pairs, the measurement in words, its estimates)."""
    df, s = ev.df, ev.s
    threshold = s["learned_accuracy"]
    own = accuracy(f"{PURE} token accuracy at {int(large)} pairs", scores(df, PURE, "mqar", large))
    below = reaches(own, threshold, above=False) == "agrees"
    words = f"{PURE}'s token accuracy at {int(large)} pairs is {own.value:.3f} {own.interval_text()}, " + (
        f"wholly below the {threshold:g} that counts as recall" if below else f"not wholly below the {threshold:g}"
    )
    shown = [own]
    lagged = False
    if ATTENTION in set(df.variant):
        lead = mqar_difference(df, ATTENTION, PURE, large)
        margin = CLAIM.smallest_effect or 0.0
        lagged = reaches(lead.estimate, margin) == "agrees"
        words += f"; {ATTENTION}'s lead over it {lead.mean:+.3f} {lead.estimate.interval_text()}, " + (
            f"wholly above the smallest effect {margin:g}"
            if lagged
            else f"not wholly above the smallest effect {margin:g}"
        )
        shown.append(lead.estimate)
    return below or lagged, words, shown


def _would_test(ev: Evidence, large: float, tokens: int) -> str:
    """The sizes at which a pure stack would fall short: more pairs, or a smaller state (with what this run shows of
    the smaller states it trained)."""
    df, s = ev.df, ev.s
    state = state_of(df, PURE, tokens)
    smaller = sorted(v for v in set(df.variant) if re.fullmatch(rf"{re.escape(PURE)}\+state\d+", v))
    keys = int(s.get("mqar_keys") or 0)
    more = (
        f"more pairs than {int(large)} against the pure stack's "
        + (f"{state:,}-number state" if state else "state")
        + f", up to Zoology's {ZOOLOGY_MOST_PAIRS} at {4 * ZOOLOGY_MOST_PAIRS} tokens"
        + (
            f" (with at least that many keys, more than the {keys} here: MQAR's keys are distinct)"
            if keys < ZOOLOGY_MOST_PAIRS
            else ""
        )
    )
    if not smaller:
        return f"{more}, or a smaller state ({PURE}+state16 and its hybrid {PURE}+state16+hybrid2)"
    shown = "; ".join(
        f"{v} keeps {state_of(df, v, tokens) or 0:,} numbers and recalls "
        f"{mean(scores(df, v, 'mqar', large)):.2f} {accuracy('', scores(df, v, 'mqar', large)).interval_text()} at "
        f"{int(large)} pairs"
        for v in smaller
    )
    hybrids = ", ".join(f"{v}+hybrid2 against {v}" for v in smaller)
    return f"{more}; or the hybrid on a smaller state ({hybrids}: {shown}), at {int(large)} pairs or more"
