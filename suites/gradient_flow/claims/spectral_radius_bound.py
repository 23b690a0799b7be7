"""A check: below spectral radius 1 an Elman RNN's gradient vanishes, and only above 1 can it grow (Pascanu, Mikolov
& Bengio 2013): log10 gradient ratios at initialisation, per seed against 0, each cell on its own."""

from __future__ import annotations

import pandas as pd

from harness.claims import declared
from harness.findings import Finding, cause_sentence, finding, not_run
from harness.paired import Difference, all_hold, directional, paired
from suites.gradient_flow.claims._shared import Evidence, deciding, log_ratios, says

CLAIM = declared(__file__)
#: the Elman cells of the spectral-radius sweep (gamma = 1 for both), at PyTorch's default initialisation
ELMAN = ("rnn", "rnn_relu")
#: the distance from the loss's step at which the sweep is judged (this project's choice, suite.yaml's protocol:
#: far enough that a radius below 1 has decayed by decades; a shorter sweep is judged at its longest distance)
DISTANCE = 50


def judge(ev: Evidence) -> Finding:
    """Below spectral radius 1 gradients vanish; growth needs a radius above 1; above 1 they can grow (per cell)."""
    sweep = ev.sweep
    if not len(sweep):
        return not_run(CLAIM)
    far = int(min(DISTANCE, sweep.x.max()))
    at = sweep[sweep.x == far]
    verdicts, parts, estimates, causes, judged = [], [], [], [], []
    for cell in [c for c in ELMAN if c in set(at.variant)]:
        verdict, part, cause, pairs = _cell(at, cell, far)
        verdicts.append(verdict)
        parts.append(part)
        causes += [cause] if cause else []
        estimates += [d.estimate for _, d in pairs]
        judged += pairs
    if not verdicts:
        return not_run(CLAIM)
    # each Elman cell must obey the bound (a conjunction over cells)
    verdict = all_hold(verdicts)
    text = (
        f"Spectral-radius sweep (Elman RNNs at initialisation, log10 of the gradient ratio at distance {far}, "
        "per seed against 0): " + "; ".join(parts) + f". This run {says(verdict)} the bound (below 1 vanish, "
        "growth needs above 1)."
    )
    return finding(
        CLAIM,
        verdict,
        text,
        estimates,
        cause=cause_sentence(verdict, causes),
        headline=deciding([d for _, d in judged], [v for v, _ in judged]),
        boundary=0.0,
    )


def _against_zero(label: str, values: dict[int, float], unit: str = "") -> Difference:
    """The paired difference of per-seed values from 0 (a one-sample comparison: counts as paired() says)."""
    return paired(label, values, {seed: 0.0 for seed in values}, unit)


def _cell(at: pd.DataFrame, cell: str, far: int) -> tuple[str, str, str, list[tuple[str, Difference]]]:
    """One Elman cell's verdict, its sentence, its cause ('' when it agrees) and the (verdict, difference) of the
    radius below 1 nearest 1 and of the largest radius, the parts the verdict is judged on."""
    by_radius = {
        r: _against_zero(
            f"{cell} log10 ratio at d={far}, radius {r:g}", log_ratios(at[(at.variant == cell) & (at.radius == r)])
        )
        for r in sorted(at[at.variant == cell].radius.unique())
    }
    below = {r: d for r, d in by_radius.items() if r < 1}
    up_to_one = {r: d for r, d in by_radius.items() if r <= 1}
    above = {r: d for r, d in by_radius.items() if r > 1}
    vanish = [r for r, d in below.items() if directional(d, -1) == "agrees"]
    grows_too_early = [r for r, d in up_to_one.items() if directional(d, -1) == "disagrees"]
    grows = [r for r, d in above.items() if directional(d, +1) == "agrees"]
    cause = ""
    if grows_too_early:
        verdict = "disagrees"
        cause = f"for {cell}, the gradient grows at radius {min(grows_too_early):g}, not only above 1"
    elif not below or not above:
        verdict = "inconclusive"
        cause = f"for {cell}, the sweep lacks radii on both sides of 1"
    elif len(vanish) < len(below):
        verdict = "inconclusive"
        cause = f"for {cell}, the decay at radius {max(set(below) - set(vanish)):g} does not count (its paired interval includes 0)"
    elif not grows:
        verdict = "inconclusive"
        cause = (
            f"for {cell}, no radius above 1 makes the gradient grow at distance {far} with a paired interval clear of 0"
        )
    else:
        verdict = "agrees"
    top = max(below) if below else None
    part = (
        f"{cell}: "
        + (
            f"every radius below 1 vanishes (at {top:g}, log10 ratio {below[top].mean:.1f})"
            if below and len(vanish) == len(below)
            else f"radii below 1 vanishing with a paired interval clear of 0: {', '.join(f'{r:g}' for r in vanish) or 'none'}"
        )
        + (
            f"; growth from radius {min(grows):g} up (log10 {above[max(above)].mean:+.1f} at {max(above):g})"
            if grows
            else "; no radius above 1 grows with a paired interval clear of 0"
        )
        + (f"; radius {min(grows_too_early):g} <= 1 grows" if grows_too_early else "")
    )
    pairs = [(directional(below[top], -1), below[top])] if top is not None else []
    if above:
        pairs.append((directional(above[max(above)], +1), above[max(above)]))
    return verdict, part, cause, pairs
