"""Which part of a conjunction a verdict turns on: the estimate a finding's headline shows and plans seeds for."""

from __future__ import annotations

from collections.abc import Sequence

from harness.findings import Estimate
from harness.power import sd_of, seeds_to_resolve

#: one part of a conjunction: (its verdict, its estimate, the boundary its interval must clear, the side of the
#: boundary the claim expects: +1 above, -1 below, None for an equivalence)
Part = tuple[str, Estimate, float, int | None]


def _seeds_needed(e: Estimate, boundary: float) -> float:
    """Seeds that would resolve the part if its estimate is the true effect (inf: none affordable or no interval)."""
    sd = sd_of(e)
    if sd is None:
        return float("inf")
    if e.kind == "log" and e.unit == "%":
        import math

        distance = abs(math.log1p(e.value / 100) - math.log1p(boundary / 100))
    else:
        distance = abs(e.value - boundary)
    need: int | None = seeds_to_resolve(sd, distance)
    return float("inf") if need is None else float(need)


def _wrong_side(e: Estimate, boundary: float, expected: int | None) -> bool:
    return expected is not None and (e.value - boundary) * expected < 0


def deciding(parts: Sequence[Part]) -> int:
    """The index of the part a conjunction's verdict turns on: the first refuted part; else the first undecided
    part whose estimate lies on the wrong side of its boundary (more seeds would rather refute it); else the
    undecided part that would need the most seeds to resolve; else (every part agrees) the first."""
    for i, (verdict, _, _, _) in enumerate(parts):
        if verdict == "disagrees":
            return i
    for i, (verdict, e, b, expected) in enumerate(parts):
        if verdict != "agrees" and _wrong_side(e, b, expected):
            return i
    open_parts = [(i, _seeds_needed(e, b)) for i, (verdict, e, b, _) in enumerate(parts) if verdict != "agrees"]
    if not open_parts:
        return 0
    return max(open_parts, key=lambda p: (p[1], -p[0]))[0]
