"""Recurrence leaves most of the device idle, attention keeps it busy (a claim about GPUs): attention's share of the
matmul peak against each recurrent layer's, tested on the timing repeats.

A layer's share of the peak is its FLOPs (exact) over its median latency over its job's matmul peak, so the ratio of
two layers' shares is an exact FLOP ratio times a ratio of two latencies and of two peaks: its log is a sum of four
log timings, each with its variance from its own repeats (suites/common/timing_repeats.py; the peak's from its
interquartile range and kept repeats). The claim holds when attention's share is at least AGREE_RATIO times every
recurrent layer's, the busiest one's included: each ratio is tested against AGREE_RATIO (its 95% interval wholly
above agrees, wholly below disagrees), and the parts are joined by harness/paired.py ``all_hold`` (Holm across the
recurrent layers for "disagrees"). The precondition, a device with parallel lanes to spare (a GPU), is the one the
scan claims share (claims/_shared.py): a CPU group is judged on the project's reference GPU records
(gpu_records.py), the device named in the headline, the sentence and ``Finding.where``, the CPU's shares kept beside
it; with no GPU records, not testable here.
"""

from __future__ import annotations

import math

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, not_run
from harness.paired import all_hold
from suites.common.ceiling_notes import nominal_peak_note
from suites.common.timing_repeats import Contrast, LogTiming, log_timing
from suites.sequence_cost.claims import _shared as shared
from suites.sequence_cost.claims._shared import QUOTED_ATTENTION, QUOTED_RECURRENT, Evidence
from suites.sequence_cost.tables import shares

CLAIM = declared(__file__)
#: attention's share must be at least this many times every recurrent layer's (this project's choice, declared in
#: suite.yaml: "most of the device idle" against "busy"; the quoted 70% against 30% is 2.3x)
AGREE_RATIO = 2.0
#: what would test the claim where the device is not a GPU
WOULD_TEST = "a CUDA device: bench run suite=sequence_cost profile=large device=cuda"
MISSING = "These records lack a recurrent and an attention layer timed at a common length."


def judge(ev: Evidence) -> Finding:
    """On a GPU: agrees when attention's share of the matmul peak is above AGREE_RATIO x every recurrent layer's at the
    longest length both were timed (forward+backward when measured, else forward), each ratio's 95% interval over the
    timing repeats wholly above; disagrees when some ratio's interval lies wholly below (Holm across the recurrent
    layers); else inconclusive. On another device: the verdict on the project's reference GPU records
    (``ev.gpu_results``, reference/gpu/results by default), its device named, the shares measured here kept beside
    it; without GPU records, not testable here."""
    df = ev.df
    measured = _passes(df)
    if not measured:
        return not_run(CLAIM, MISSING)
    device = shared.device_of(df)
    pass_ = measured[0]
    x, rec, att = shares(df, pass_)
    best_rec, best_att = max(rec, key=rec.get), max(att, key=att.get)
    here = (
        f"`{best_rec}` keeps its few cores about as busy as `{best_att}` ({pass_} at {int(x)} tokens: "
        f"{rec[best_rec]:.0f}% of the measured matmul peak against {att[best_att]:.0f}%)"
        if device != "cuda"
        else ""
    )
    shown = [
        Estimate.of(f"{pass_} {v} % of peak", _seed_values(df, v, pass_, x), "%", "bounded", (0, 100))
        for v in (best_att, best_rec)
    ]
    return shared.on_a_gpu(CLAIM, ev, _judge, here, shown, WOULD_TEST, AGREE_RATIO, MISSING)


def _passes(df: pd.DataFrame) -> list[str]:
    """The passes at which a recurrent and an attention layer were both timed, fwd+bwd first."""
    if not len(df) or "pass" not in df:
        return []
    return [p for p in ("fwd+bwd", "fwd") if shares(df, p)[0] is not None]


def _judge(df: pd.DataFrame, lead: str = "") -> shared.Judged | None:
    """The claim judged on one group of records as on a GPU; the first estimate is the ratio to the busiest recurrent
    layer (the one the verdict turns on), its label naming the device. None where no recurrent and attention layer
    were timed at a common length. ``lead``: how the sentence names the records ('On this cuda' by default)."""
    device, named = shared.device_of(df), shared.device_name(df)
    measured = _passes(df)
    if not measured:
        return None
    parts, heads, estimates, judged = [], [], [], None
    for pass_ in measured:
        x, rec, att = shares(df, pass_)
        best_rec, best_att = max(rec, key=rec.get), max(att, key=att.get)
        contrasts = {v: _ratio(df, best_att, v, pass_, x) for v in rec}
        verdicts = [c.verdict(AGREE_RATIO) if c else _untested() for c in contrasts.values()]
        verdict = all_hold(verdicts)
        head = contrasts[best_rec]
        ratio = att[best_att] / rec[best_rec] if rec[best_rec] > 0 else math.inf
        label = (
            f"{pass_} at {int(x)} tokens on {named}: `{best_att}` {att[best_att]:.1f}% / `{best_rec}` "
            f"{rec[best_rec]:.1f}% of the measured matmul peak"
        )
        estimate = head.estimate(label, ratio) if head else Estimate(label, ratio, unit="x")
        if judged is None:
            judged = (pass_, verdict, head, best_rec)
        heads.append(estimate)
        estimates += [
            Estimate.of(f"{pass_} {v} % of peak", _seed_values(df, v, pass_, x), "%", "bounded", (0, 100))
            for v in (best_att, best_rec)
        ]
        interval = f" [{head.bounds()[0]:.2f}, {head.bounds()[1]:.2f}]" if head else ""
        parts.append(
            f"{pass_} at {int(x)} tokens: `{best_att}` {att[best_att]:.0f}% of the measured matmul peak against "
            + ", ".join(f"`{v}` {s:.0f}%" for v, s in sorted(rec.items(), key=lambda kv: -kv[1]))
            + f" ({ratio:.1f}x{interval} the busiest recurrent layer)"
        )
    pass_, verdict, head, best_rec = judged
    estimates = heads[:1] + estimates
    sentence = _sentence(df, device, lead, parts, pass_, verdict, head)
    over = head.over if head else "timing repeats"
    cause = {
        "agrees": "",
        "disagrees": f"attention's share of the measured matmul peak is below {AGREE_RATIO:g}x a recurrent layer's on "
        f"{named} (the ratio's 95% interval over the {over} wholly below it).",
        "inconclusive": f"attention's share is not clearly {AGREE_RATIO:g}x the busiest recurrent layer's (`{best_rec}`) "
        f"on {named}: the ratio's 95% interval over the {over} reaches {AGREE_RATIO:g}"
        + ("" if head else " (no repeats recorded to test)")
        + ".",
    }[str(verdict)]
    return shared.Judged(verdict, sentence, estimates, cause, shared.p_of(verdict))


def _untested():
    from harness.paired import Verdict

    return Verdict("inconclusive")


def _ratio(df: pd.DataFrame, att: str, rec: str, pass_: str, x: float) -> Contrast | None:
    """log(attention's share / ``rec``'s share) at ``x``: per seed the log ratio of the recorded shares; its variance
    from the four timings behind it (each layer's latency and its job's matmul peak). Two seeds or more: the t
    interval over seeds. None where a timing keeps too few repeats."""
    per_seed = {}
    for seed in sorted(set(_seeds(df, att, pass_, x)) & set(_seeds(df, rec, pass_, x))):
        a, r = _share(df, att, pass_, x, seed), _share(df, rec, pass_, x, seed)
        terms = [
            (1, _latency(df, rec, pass_, x, seed)),
            (-1, _latency(df, att, pass_, x, seed)),
            (1, _peak(df, rec, seed)),
            (-1, _peak(df, att, seed)),
        ]
        if a > 0 and r > 0:
            per_seed[seed] = (math.log(a / r), terms)
    if len(per_seed) >= 2:
        return Contrast.over_seeds(v for v, _ in per_seed.values())
    if not per_seed:
        return None
    ((centre, terms),) = per_seed.values()
    c = Contrast.of(terms)
    return None if c is None else Contrast(centre, c.se, c.df)


def _rows(df: pd.DataFrame, metric: str, variant: str, pass_: str | None = None, x: float | None = None):
    rows = df[(df.metric == metric) & (df.status == "ok") & (df.variant == variant)]
    if pass_ is not None:
        rows = rows[rows["pass"] == pass_]
    if x is not None:
        rows = rows[rows.x == x]
    return rows


def _seed_of(r) -> int:
    return int(getattr(r, "seed", 0) if "seed" in r._fields else 0)


def _seeds(df, variant, pass_, x) -> list[int]:
    return [_seed_of(r) for r in _rows(df, "peak_fraction", variant, pass_, x).itertuples()]


def _share(df, variant, pass_, x, seed) -> float:
    return next(
        float(r.value) for r in _rows(df, "peak_fraction", variant, pass_, x).itertuples() if _seed_of(r) == seed
    )


def _latency(df, variant, pass_, x, seed) -> LogTiming | None:
    for r in _rows(df, "latency", variant, pass_, x).itertuples():
        if _seed_of(r) == seed:
            settings = getattr(r, "profile_settings", None)
            at_least = settings.get("min_repeats") if isinstance(settings, dict) else None
            return log_timing(float(r.value), r.extra, at_least)
    return None


def _peak(df, variant, seed) -> LogTiming | None:
    """The job's matmul peak as a log timing: its best size's rate, the variance from that size's IQR and kept
    repeats (the records keep no repeats of it); zero variance where the job recorded no sizes (made-up records)."""
    for r in _rows(df, "matmul_peak", variant).itertuples():
        if _seed_of(r) != seed:
            continue
        sizes = (r.extra or {}).get("sizes") if isinstance(r.extra, dict) else None
        if not sizes:
            return LogTiming(math.log(float(r.value)), 0.0, math.inf)
        best = max(sizes.values(), key=lambda d: d.get("flops_per_s", 0.0))
        # a rate is 1 / a time: the same variance on the log scale
        return log_timing(float(r.value), {"noise": best.get("noise"), "kept": best.get("kept")})
    return None


def _sentence(df, device, lead, parts, judged, verdict, head) -> str:
    """The verdict's sentence: the quoted figures, each pass's shares, the verdict on the pass ``judged``."""
    quoted = (
        f"the quoted ~{QUOTED_RECURRENT:.0f}% against {QUOTED_ATTENTION:.0f}%+ is for GPUs"
        if device == "cpu"
        else f"quoted: ~{QUOTED_RECURRENT:.0f}% against {QUOTED_ATTENTION:.0f}%+"
    )
    over = head.over if head else "timing repeats"
    word = {
        "agrees": f"**agrees**: attention keeps the device more than {AGREE_RATIO:g}x as busy as every recurrent layer",
        "disagrees": f"**disagrees**: attention's share is below {AGREE_RATIO:g}x a recurrent layer's",
        "inconclusive": f"is **inconclusive**: attention is not clearly {AGREE_RATIO:g}x as busy as every recurrent layer",
    }[str(verdict)]
    sentence = (
        f"{lead or 'On this ' + device} ({quoted}): " + "; ".join(parts) + f". Judged on {judged}, "
        f"{'that' if lead else 'this'} run {word} (each ratio's 95% interval over the {over}, Student-t at their "
        f"degrees of freedom, against {AGREE_RATIO:g}x; a layer disagrees with the layers held at 2.5% together)."
    )
    nominal = nominal_peak_note(df, known_only=True)  # the quoted figures are read against a GPU's nominal peak
    return sentence + (f" {nominal}" if nominal else "")


def _seed_values(df: pd.DataFrame, variant: str, pass_: str, x: float) -> list[float]:
    return [float(v) for v in _rows(df, "peak_fraction", variant, pass_, x).value]
