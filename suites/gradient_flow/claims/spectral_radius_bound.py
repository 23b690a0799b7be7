"""A check: below spectral radius 1 an Elman RNN's gradient vanishes, and only above 1 can it grow (Pascanu, Mikolov
& Bengio 2013): log10 gradient ratios at initialisation, per seed against 0, each cell on its own."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from harness.claims import declared
from harness.findings import Finding, cause_sentence, finding, not_run
from harness.paired import Difference, Verdict, all_hold, directional, p_against, paired
from suites.gradient_flow.claims._shared import Evidence, deciding, log_ratios, says

CLAIM = declared(__file__)
#: the Elman cells of the spectral-radius sweep (gamma = 1 for both), at PyTorch's default initialisation
ELMAN = ("rnn", "rnn_relu")
#: the distance from the loss's step at which the sweep is judged (this project's choice, suite.yaml's protocol:
#: far enough that a radius below 1 has decayed by decades; a shorter sweep is judged at its longest distance)
DISTANCE = 50


def judge(ev: Evidence) -> Finding:
    """Below spectral radius 1 gradients vanish; growth needs a radius above 1; above 1 they can grow (per cell).

    Every cell's parts are the core rules' verdicts (harness.paired.directional, with their p-values), and the
    whole is one harness.paired.all_hold over every cell's parts: it agrees when every part does, and a part refutes
    the bound only with all of them held at 2.5% together (Holm), however many radii the sweep has."""
    sweep = ev.sweep
    if not len(sweep):
        return not_run(CLAIM)
    far = int(min(DISTANCE, sweep.x.max()))
    at = sweep[sweep.x == far]
    cells = [_cell(at, c, far) for c in ELMAN if c in set(at.variant)]
    if not cells:
        return not_run(CLAIM)
    # each Elman cell must obey the bound (a conjunction over cells and radii)
    verdict = all_hold([v for c in cells for v in c.parts])
    if verdict == "agrees" and any(c.verdict != "agrees" for c in cells):
        verdict = Verdict("inconclusive", verdict.p_for, verdict.p_against)  # a cell without radii on both sides
    text = (
        f"Spectral-radius sweep (Elman RNNs at initialisation, log10 of the gradient ratio at distance {far}, "
        "per seed against 0): " + "; ".join(c.part for c in cells) + f". This run {says(verdict)} the bound (below 1 "
        "vanish, growth needs above 1)."
    )
    judged = [pair for c in cells for pair in c.pairs]
    return finding(
        CLAIM,
        verdict,
        text,
        [d.estimate for c in cells for _, d in c.pairs],
        cause=cause_sentence(verdict, [c.cause for c in cells if c.cause]),
        headline=deciding([d for _, d in judged], [v for v, _ in judged]),
        boundary=0.0,
    )


def _against_zero(label: str, values: dict[int, float], unit: str = "") -> Difference:
    """The paired difference of per-seed values from 0 (a one-sample comparison: counts as paired() says)."""
    return paired(label, values, {seed: 0.0 for seed in values}, unit)


def only_refutes(v: Verdict) -> Verdict:
    """A part that can refute the bound but need not agree (at radius 1 the gradient may vanish or stay level, but
    growth there refutes 'growth needs a radius above 1'): its word is 'agrees' unless the test says 'disagrees',
    and it keeps the test's p against."""
    return Verdict("disagrees" if v == "disagrees" else "agrees", 0.0, v.p_against)


def only_supports(v: Verdict) -> Verdict:
    """A part that must agree but cannot refute (above radius 1 the gradient *can* grow: a radius where it shrinks
    is no evidence against the bound, which says growth is possible there, not that it happens): 'disagrees' becomes
    'inconclusive', with no evidence against (p against 1)."""
    return Verdict("inconclusive" if v == "disagrees" else str(v), v.p_for, 1.0)


def bound_parts(by_radius: dict[float, Difference]) -> dict[float, Verdict]:
    """Radius -> its part of the bound, from the per-seed log10 ratios against 0: below 1 the gradient vanishes
    (directional, must agree; growth refutes), at 1 it does not grow (``only_refutes``), at the largest radius above 1
    it grows (``only_supports``: a radius fixed before the data, not the best of several)."""
    parts = {r: directional(d, -1) for r, d in by_radius.items() if r < 1}
    parts.update({r: only_refutes(directional(d, -1)) for r, d in by_radius.items() if r == 1})
    above = [r for r in by_radius if r > 1]
    if above:
        parts[max(above)] = only_supports(directional(by_radius[max(above)], +1))
    return parts


@dataclass(frozen=True)
class Cell:
    """One Elman cell's parts of the bound, its own verdict on them, its sentence, its cause ('' when it agrees),
    and the (part's verdict, difference) pairs the headline is chosen from."""

    parts: list[Verdict]
    verdict: Verdict
    part: str
    cause: str
    pairs: list[tuple[Verdict, Difference]]


def _cell(at: pd.DataFrame, cell: str, far: int) -> Cell:
    """One Elman cell: each radius below 1 must vanish (directional, against 0), radius 1 must not grow (it may only
    refute), and the largest radius must grow (it may only support); the headline pairs are the radius below 1
    nearest 1 and the largest radius."""
    by_radius = {
        r: _against_zero(
            f"{cell} log10 ratio at d={far}, radius {r:g}", log_ratios(at[(at.variant == cell) & (at.radius == r)])
        )
        for r in sorted(at[at.variant == cell].radius.unique())
    }
    parts = bound_parts(by_radius)
    verdict = all_hold(list(parts.values()))
    below = {r: v for r, v in parts.items() if r < 1}
    level = {r: v for r, v in parts.items() if r == 1}
    above = {r: d for r, d in by_radius.items() if r > 1}
    top = max(above) if above else None
    growth = {top: parts[top]} if above else {}
    if verdict == "agrees" and not (below and above):
        verdict = Verdict("inconclusive", verdict.p_for, verdict.p_against)
    grows = [r for r, d in above.items() if directional(d, +1) == "agrees"]
    vanish = [r for r, v in below.items() if v == "agrees"]
    cause = ""
    if verdict == "disagrees":
        refuting = min((r for r, v in parts.items() if v == "disagrees"), key=lambda r: p_against(parts[r]))
        cause = f"for {cell}, the gradient grows at radius {refuting:g}, not only above 1"
    elif verdict != "agrees":
        undecided = [r for r, v in {**below, **level}.items() if v != "agrees"]
        if not below or not above:
            cause = f"for {cell}, the sweep lacks radii on both sides of 1"
        elif undecided:
            r = max(undecided)
            cause = (
                f"for {cell}, the decay at radius {r:g} does not count (its paired interval includes 0)"
                if parts[r] == "inconclusive"
                else f"for {cell}, the gradient at radius {r:g} grows, but not clearly enough to refute the bound with "
                "its parts held together"
            )
        else:
            cause = (
                f"for {cell}, the largest radius {top:g} does not make the gradient grow at distance {far} with a "
                "paired interval clear of 0"
            )
    nearest = max(below) if below else None
    part = (
        f"{cell}: "
        + (
            f"every radius below 1 vanishes (at {nearest:g}, log10 ratio {by_radius[nearest].mean:.1f})"
            if below and len(vanish) == len(below)
            else f"radii below 1 vanishing with a paired interval clear of 0: {', '.join(f'{r:g}' for r in vanish) or 'none'}"
        )
        + (
            f"; growth from radius {min(grows):g} up (log10 {above[top].mean:+.1f} at {top:g})"
            if grows
            else "; no radius above 1 grows with a paired interval clear of 0"
        )
        + "".join(f"; radius {r:g} <= 1 grows" for r, v in parts.items() if r <= 1 and v == "disagrees")
    )
    pairs = [(below[nearest], by_radius[nearest])] if nearest is not None else []
    if above:
        pairs.append((growth[top], above[top]))
    return Cell(list(parts.values()), verdict, part, cause, pairs)
