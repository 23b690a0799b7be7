"""A check: PyTorch's fused SDPA keeps the share of the matmul peak this project measured earlier at 4096 tokens,
per mask, within a tolerance set from this run's timing noise (a regression check, not a published finding)."""

from __future__ import annotations

import math
from typing import NamedTuple

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, finding
from harness.paired import MARGIN_SDS, all_hold
from suites.attention_cost.claims._shared import Evidence

CLAIM = declared(__file__)
#: the share of the matmul peak this project measured earlier at 4096 tokens (docs/references.md), per mask
EARLIER = {False: 69.0, True: 59.0}
#: the interquartile range of a normal sample is this many standard deviations (a timing's IQR / median -> its sd)
IQR_SDS = 1.349


class _Mask(NamedTuple):
    """What one mask's share says: its label, its estimate, its sentence, why it does not agree (empty where it
    does) and the signed tolerance it is judged against (0 where none)."""

    label: str
    estimate: Estimate
    part: str
    cause: str
    bound: float


def judge(ev: Evidence) -> Finding:
    """A regression check: SDPA's forward FLOP/s share of the matmul peak at 4096 tokens, per mask, is within a
    relative tolerance of the share this project measured earlier, the tolerance set from this run's timing noise
    (``share_tolerance``); both masks must hold."""
    df = ev.df
    frac = df[
        (df.metric == "peak_fraction")
        & (df.status == "ok")
        & (df["pass"] == "fwd")
        & (df.kernel == "sdpa")
        & (df.grouping == "MHA")
    ]
    masks = []
    if len(frac):
        x = frac.x.max()
        for causal, earlier in EARLIER.items():
            sel = frac[(frac.x == x) & (frac.causal == causal)]
            if len(sel):
                masks.append(_mask(df, sel, causal, earlier, x))
    labels = [m.label for m in masks]
    estimates = [m.estimate for m in masks]
    causes = [m.cause for m in masks if m.cause]
    verdict = all_hold(labels)
    # the mask the verdict turns on: the first that fails, else the one farthest from its earlier share
    failing = [i for i, label in enumerate(labels) if label != "agrees"]
    head = failing[0] if failing else max(range(len(estimates)), key=lambda i: abs(estimates[i].value), default=0)
    return finding(
        CLAIM,
        verdict,
        " ".join(m.part for m in masks),
        estimates,
        cause=causes[0] if causes and verdict != "agrees" else "",
        over_seeds=False,
        headline=head,
        boundary=masks[head].bound if masks else 0.0,
    )


def _mask(df: pd.DataFrame, sel: pd.DataFrame, causal: bool, earlier: float, x: float) -> _Mask:
    """SDPA's share at length ``x`` under one mask (its records ``sel``) against the ``earlier`` share."""
    got = sel.value.mean()
    mask = "causal" if causal else "non-causal"
    tolerance = share_tolerance(df, causal, x)
    change = 100.0 * (got / earlier - 1.0)
    cause = ""
    if got > 100:
        said = "above 100%, so this run's peak is not trustworthy (the machine's load changed between the two)."
        label = "inconclusive"
        cause = f"the {mask} share is over 100%: the matmul peak and SDPA were timed under different loads."
    elif x != 4096:
        said = "measured at a different length, so not comparable."
        label = "inconclusive"
        cause = f"the longest length timed is {int(x)}, not the 4096 of the earlier measurement."
    elif tolerance is None:
        said = "no timing repeats recorded to set a tolerance from."
        label = "inconclusive"
        cause = f"the records hold no timing repeats of SDPA's {mask} call to set the tolerance from."
    else:
        close = abs(change) <= tolerance
        said = (
            f"{change:+.1f}% relative, {'within' if close else 'beyond'} the {tolerance:.1f}% this run's "
            f"timing noise allows."
        )
        label = "agrees" if close else "disagrees"
        if not close:
            cause = (
                f"the {mask} share {got:.1f}% is {change:+.1f}% from the earlier {earlier:g}%, beyond "
                f"the {tolerance:.1f}% tolerance set from this run's timing repeats."
            )
    estimate = Estimate(
        f"SDPA share of the measured matmul peak against the earlier {earlier:g}%, {mask}, {int(x)} tokens",
        change,
        unit="%",
        seeds=int(sel.seed.nunique()),
    )
    part = (
        f"SDPA reaches {got:.1f}% of the measured matmul peak at {int(x)} tokens {mask} forward against "
        f"~{earlier:g}% measured earlier by this project at 4096 tokens: {said}"
    )
    bound = math.copysign(tolerance, change) if tolerance is not None else 0.0
    return _Mask(label, estimate, part, cause, bound)


def share_tolerance(df: pd.DataFrame, causal: bool, x: float) -> float | None:
    """The relative tolerance (%) of SDPA's share against the earlier one, from this run's timing repeats: the share
    is useful FLOPs / SDPA's median latency / the matmul peak, so its relative sd per run is the two timings'
    relative sds in quadrature (each its IQR / median over IQR_SDS); the earlier run is taken to be as noisy
    (sqrt 2), and a change counts beyond MARGIN_SDS of that sd. None where the records hold no timing repeats."""
    lat = (
        df[
            (df.metric == "latency")
            & (df.status == "ok")
            & (df["pass"] == "fwd")
            & (df.kernel == "sdpa")
            & (df.grouping == "MHA")
            & (df.x == x)
            & (df.causal == causal)
        ]
        if "extra" in df
        else df.iloc[0:0]
    )
    noise = [e.get("noise") for e in lat.extra if isinstance(e, dict) and e.get("noise") is not None]
    # the matmul peak of the same jobs: the best size's repeats set its noise
    peaks = df[(df.metric == "matmul_peak") & (df.status == "ok") & df.variant.isin(set(lat.variant))]
    peak_noise = [
        min(sizes.values(), key=lambda d: -d["flops_per_s"]).get("noise", 0.0)
        for e in peaks.extra
        if isinstance(e, dict) and (sizes := e.get("sizes"))
    ]
    if not noise:
        return None
    sd_latency = max(noise) / IQR_SDS  # (T,) timings of one call: their relative sd
    sd_peak = (max(peak_noise) if peak_noise else 0.0) / IQR_SDS
    return 100.0 * MARGIN_SDS * math.sqrt(2.0) * math.hypot(sd_latency, sd_peak)
