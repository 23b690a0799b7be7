"""A check: PyTorch's fused SDPA keeps the share of the matmul peak this project measured earlier at 4096 tokens,
per mask, within a tolerance set from this run's timing noise (a regression check, not a published finding).

The tolerance is a 95% prediction bound for the change between two runs of one setting: the share's relative sd per
run is SDPA's latency's and the matmul peak's relative sds in quadrature, the earlier run taken to be as noisy
(sqrt 2), and the bound is the t quantile t(0.975, df) times that sd, df the Welch-Satterthwaite degrees of freedom
of the two sds estimated from their repeats (a fixed 2.8 sd ignored that the sds are estimated from a few repeats).
A mask whose change lies beyond the bound says "disagrees" with its two-sided p-value; the two masks are held
together (harness/paired.py ``all_hold``: Holm at 2.5% across them), so the check says "disagrees" at most 2.5% of
the time when nothing changed (tests/unit/suites/attention_cost/claims/test_sdpa_share_of_peak.py simulates it)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, finding
from harness.intervals import t_quantile
from harness.paired import Verdict, all_hold
from suites.attention_cost.claims._shared import Evidence

CLAIM = declared(__file__)
#: the share of the matmul peak this project measured earlier at 4096 tokens (docs/references.md), per mask
EARLIER = {False: 69.0, True: 59.0}
#: the interquartile range of a normal sample is this many standard deviations (a timing's IQR / median -> its sd)
IQR_SDS = 1.349
#: the two-sided confidence of the prediction bound a change is judged against
CONFIDENCE = 0.95


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
    noise = change_sd(df, causal, x)
    change = 100.0 * (got / earlier - 1.0)
    cause, bound = "", 0.0
    if got > 100:
        said = "above 100%, so this run's peak is not trustworthy (the machine's load changed between the two)."
        label = Verdict("inconclusive")
        cause = f"the {mask} share is over 100%: the matmul peak and SDPA were timed under different loads."
    elif x != 4096:
        said = "measured at a different length, so not comparable."
        label = Verdict("inconclusive")
        cause = f"the longest length timed is {int(x)}, not the 4096 of the earlier measurement."
    elif noise is None:
        said = "no timing repeats recorded to set a tolerance from."
        label = Verdict("inconclusive")
        cause = f"the records hold no timing repeats of SDPA's {mask} call to set the tolerance from."
    else:
        sd, dof = noise
        label, k = judge_change(math.log(got / earlier), sd, dof)
        low, high = 100.0 * math.expm1(-k), 100.0 * math.expm1(k)
        close = label == "agrees"
        band = f"[{low:+.1f}%, {high:+.1f}%]"
        said = (
            f"{change:+.1f}% relative, {'within' if close else 'beyond'} the {band} this run's timing noise allows "
            f"(a 95% prediction bound, t at {dof:.0f} degrees of freedom)."
        )
        bound = high if change > 0 else low
        if not close:
            cause = (
                f"the {mask} share {got:.1f}% is {change:+.1f}% from the earlier {earlier:g}%, beyond "
                f"the {band} band set from this run's timing repeats."
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
    return _Mask(label, estimate, part, cause, bound)


def _log_sd(extra: dict, repeats_at_least: int | None) -> tuple[float, int] | None:
    """(relative sd of one timing's repeats, their count): the sample sd of the log kept repeats where the record
    keeps them, else its IQR / median over IQR_SDS with its kept count (else ``repeats_at_least``)."""
    times = [float(t) for t in extra.get("times") or [] if t]
    mask = extra.get("kept_mask") or []
    if len(mask) == len(times) and sum(bool(m) for m in mask) == extra.get("kept"):
        times = [t for t, ok in zip(times, mask) if ok]
    if len(times) >= 2:
        logs = [math.log(t) for t in times]
        mean = sum(logs) / len(logs)
        return math.sqrt(sum((v - mean) ** 2 for v in logs) / (len(logs) - 1)), len(logs)
    n = extra.get("kept") or repeats_at_least
    if extra.get("noise") is None or not n or n < 2:
        return None
    return float(extra["noise"]) / IQR_SDS, int(n)


def change_sd(df: pd.DataFrame, causal: bool, x: float) -> tuple[float, float] | None:
    """(the sd of the log change in SDPA's share between two runs, its degrees of freedom) from this run's timing
    repeats: the share is useful FLOPs / SDPA's median latency / the matmul peak, so its relative sd per run is the
    two timings' relative sds in quadrature; the earlier run is taken to be as noisy (sqrt 2); the degrees of
    freedom are the Welch-Satterthwaite ones of the two sds. None where the records hold no timing repeats."""
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
    at_least = None
    if "profile_settings" in lat and len(lat):
        settings = lat.profile_settings.iloc[0]
        at_least = settings.get("min_repeats") if isinstance(settings, dict) else None
    timings = [t for e in lat.extra if isinstance(e, dict) and (t := _log_sd(e, at_least))]
    if not timings:
        return None
    # the matmul peak of the same jobs: the best size's repeats set its noise
    peaks = df[(df.metric == "matmul_peak") & (df.status == "ok") & df.variant.isin(set(lat.variant))]
    peak_timings = [
        t
        for e in peaks.extra
        if isinstance(e, dict) and (sizes := e.get("sizes"))
        if (t := _log_sd(max(sizes.values(), key=lambda d: d.get("flops_per_s", 0.0)), at_least))
    ]
    # the noisiest timing of each kind, with its count (the tolerance must cover the worst seed)
    return combined_sd(*max(timings), *(max(peak_timings) if peak_timings else (None, None)))


def combined_sd(sd_latency, n_latency: int, sd_peak=None, n_peak: int | None = None):
    """(sqrt 2 x the two relative sds in quadrature, their Welch-Satterthwaite degrees of freedom); vectorised over
    arrays of sds."""
    v1 = np.asarray(sd_latency, float) ** 2
    v2 = np.asarray(sd_peak, float) ** 2 if sd_peak is not None and n_peak else np.zeros_like(v1)
    d2 = (n_peak or 2) - 1
    var = v1 + v2
    den = v1 * v1 / (n_latency - 1) + v2 * v2 / d2
    with np.errstate(divide="ignore", invalid="ignore"):
        dof = np.where(den > 0, var * var / np.where(den > 0, den, 1.0), float(n_latency - 1))
    sd = np.sqrt(2.0 * var)
    return (float(sd), float(dof)) if np.ndim(sd) == 0 else (sd, dof)


def judge_changes(log_change, sd, dof) -> list[Verdict]:
    """Vectorised: each log change between two runs against its 95% prediction bound t(0.975, dof) x ``sd``: agrees
    within it, disagrees beyond it, carrying its two-sided p-value as the p against."""
    from scipy import stats

    log_change, sd, dof = (np.atleast_1d(np.asarray(v, float)) for v in (log_change, sd, dof))
    k = stats.t.ppf(0.5 + CONFIDENCE / 2, dof) * sd
    close = np.abs(log_change) <= k
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sd > 0, np.abs(log_change) / np.where(sd > 0, sd, 1.0), np.where(close, 0.0, np.inf))
    p = np.minimum(1.0, 2 * stats.t.sf(t, dof))
    return [Verdict("agrees" if c else "disagrees", math.nan, float(q)) for c, q in zip(close, p)]


def judge_change(log_change: float, sd: float, dof: float) -> tuple[Verdict, float]:
    """(the verdict on one log change against its 95% prediction bound, the bound)."""
    return judge_changes(log_change, sd, dof)[0], float(t_quantile(0.5 + CONFIDENCE / 2, dof)) * sd
