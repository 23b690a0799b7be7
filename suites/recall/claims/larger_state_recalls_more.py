"""A larger recurrent state recalls more, and attention tops the recall-memory frontier (Arora et al. 2024, Based;
2023, Zoology): each family's adjacent state sizes on MQAR, and attention above every arm short of solving it.

The state ladder pairs each recurrent family's ``+state<N>`` arms in order of N (a larger state recalls more); its
attention part asks that attention (RoPE) recall more than every recurrent arm that has not solved MQAR (mean below
the learned threshold), since two arms at the ceiling cannot be ordered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.claims import declared
from harness.findings import Finding, not_run
from suites.recall.claims._shared import Evidence, mean, pairs_finding, scores, sizes_of
from suites.recall.tables import ATTENTION
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
    """Larger states recall more (each family's adjacent sizes), and attention above every arm short of solving it."""
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
    threshold = s["learned_accuracy"]
    sizes = sorted(part.x.unique())
    large, _ = sizes_of(s, sizes)
    if ATTENTION in set(part.variant):
        recurrent = [v for arms in found.values() for _, v in arms]
        pairs += [(ATTENTION, v) for v in recurrent if mean(scores(df, v, "mqar", large)) < threshold]
    return pairs_finding(CLAIM, ev, pairs)
