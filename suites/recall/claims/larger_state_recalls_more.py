"""A larger recurrent state recalls more, and attention tops the recall-memory frontier (Arora et al. 2024, Based;
2023, Zoology): each family's adjacent state sizes on MQAR, and attention above every arm short of solving it.

The state ladder pairs each recurrent family's ``+state<N>`` arms in order of N (a larger state recalls more,
directional, paired over seeds); its attention part asks that attention (RoPE) top the frontier: no recurrent arm
recalls more than it by more than the claim's smallest effect (a one-sided test of non-inferiority, paired over
seeds, ``not_worse``), which two arms at the ceiling pass and no arm is picked for by its own score. Every part must
hold (``all_hold``: refuted only with the parts held at 5% together, Holm); every arm must have learned MQAR's
format (the recall claims' common precondition).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.claims import declared
from harness.findings import Finding, not_run
from harness.paired import not_worse
from suites.recall.claims._shared import (
    Evidence,
    Part,
    conjunction,
    curve,
    format_unmet,
    judged_text,
    mqar_difference,
    mqar_parts,
    sizes_of,
)
from suites.recall.tables import ATTENTION
from suites.recall.tasks import mqar_of
from variants.mixer import mixers

CLAIM = declared(__file__)
_STATE = re.compile(r"^(?P<family>[a-z_0-9]+?)\+state(?P<n>\d+)$")


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


def judge(ev: Evidence) -> Finding:
    """Larger states recall more (each family's adjacent sizes), and no recurrent arm above attention by more than the
    smallest effect."""
    df, s = ev.df, ev.s
    part = df[(df.metric == "token_accuracy") & (df.task == "mqar")]
    found = ladders(sorted(set(part.variant)))
    if not found:
        return not_run(
            CLAIM,
            "These records lack a recurrent family at two state sizes (variants such as "
            "mamba2+state16 and mamba2+state64).",
        )
    pairs = [(big, small) for arms in found.values() for (_, small), (_, big) in zip(arms, arms[1:])]
    sizes = sorted(part.x.unique())
    large, _ = sizes_of(s, sizes)
    parts = mqar_parts(df, pairs, large, mqar_of(s).length(int(large)))
    recurrent = [v for arms in found.values() for _, v in arms]
    margin = float(CLAIM.smallest_effect or 0.0)
    if ATTENTION in set(part.variant):
        for v in recurrent:
            diff = mqar_difference(df, v, ATTENTION, large)
            parts.append(Part(diff, not_worse(diff, margin), margin, f"above attention by more than {margin:g}"))
    arms = recurrent + ([ATTENTION] if ATTENTION in set(part.variant) else [])
    text = curve(df, arms, sizes)
    unlearned = format_unmet(CLAIM, ev, arms, text, [p.diff.estimate for p in parts])
    if unlearned is not None:
        return unlearned
    return conjunction(CLAIM, f"{text} {judged_text(parts, f'{int(large)} pairs')}", parts)
