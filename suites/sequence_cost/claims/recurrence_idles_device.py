"""Recurrence leaves most of the device idle, attention keeps it busy (a claim about GPUs): attention's share of the
matmul peak against the busiest recurrent layer's.

The estimates, a layer's share of the matmul peak, lie in [0, 100] % ("bounded", harness/intervals.py), each seed's
value from medians over timing repeats; the verdict compares attention's share with the busiest recurrent layer's
by a ratio (AGREE_RATIO, DISAGREE_RATIO), a timing margin resting on the timing repeats, not on the spread over
seeds, so a run of one seed is not marked indicative. Where the records reported come from a CPU, the verdict is
the project's reference GPU records' (suites/sequence_cost/gpu_records.py), with the device named in its headline
and sentence and the CPU's shares kept beside it; with no GPU records, not testable.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run, not_testable
from suites.common.ceiling_notes import nominal_peak_note
from suites.sequence_cost.claims._shared import QUOTED_ATTENTION, QUOTED_RECURRENT, Evidence
from suites.sequence_cost.gpu_records import reference_gpu_frame, where
from suites.sequence_cost.tables import _frame, shares

CLAIM = declared(__file__)
#: verdict on a GPU (this project's choice): attention's share at least AGREE_RATIO x recurrence's agrees (the quoted
#: 70% against 30% is 2.3x); below DISAGREE_RATIO x disagrees (a 25% margin over equal shares, above one seed's timing
#: noise of a few %)
AGREE_RATIO, DISAGREE_RATIO = 2.0, 1.25
#: what would test the claim where the device is not a GPU
WOULD_TEST = "a CUDA device: bench run suite=sequence_cost profile=large device=cuda"


def judge(ev: Evidence) -> Finding:
    """On a GPU: agrees when the attention layer's share of the matmul peak is at least AGREE_RATIO x the best
    recurrent layer's at the longest length both were timed (forward+backward when measured, else forward);
    disagrees below DISAGREE_RATIO x; inconclusive between. On another device the claim is not testable there: the
    verdict is the one on the project's reference GPU records (``ev.gpu_results``, reference/gpu/results by default),
    its device named, the shares measured here kept beside it; without GPU records, not testable here."""
    df = ev.df
    device = str(df.iloc[0].device).split(":")[0] if len(df) else "?"
    judged = _judge(df)
    if judged is None:
        return not_run(CLAIM, "These records lack a recurrent and an attention layer timed at a common length.")
    if device == "cuda":
        verdict, sentence, estimates, cause, _ = judged
        return finding(
            CLAIM, verdict, sentence, estimates, cause=cause, over_seeds=False, headline=0, boundary=AGREE_RATIO
        )
    pass_, x, rec, att = judged[4]
    best_rec, best_att = max(rec, key=rec.get), max(att, key=att.get)
    here = (
        f"`{best_rec}` keeps its few cores about as busy as `{best_att}` ({pass_} at {int(x)} tokens: "
        f"{rec[best_rec]:.0f}% of the measured matmul peak against {att[best_att]:.0f}%)"
    )
    return _on_the_reference_gpu(device, here, judged[2], ev.gpu_results)


def _on_the_reference_gpu(device: str, here: str, measured: list[Estimate], gpu_results: Path | None) -> Finding:
    """The verdict of the project's reference GPU records beside this device's shares (``here``, ``measured``); not
    testable here without such records."""
    gpu = reference_gpu_frame(gpu_results)
    on_gpu = _judge(_frame(gpu), f"On the project's reference GPU ({where(gpu)})") if gpu is not None else None
    if on_gpu is None:
        return not_testable(
            CLAIM,
            f"the claim is about GPUs, whose thousands of cores a recurrent layer's one "
            f"step per token leaves idle, while on this {device} {here}",
            WOULD_TEST,
            measured,
        )
    verdict, gpu_sentence, gpu_estimates, gpu_cause, _ = on_gpu
    sentence = f"Not testable on this {device}, where {here}. {gpu_sentence}"
    cause = f"On the reference GPU ({where(gpu)}): {gpu_cause}" if gpu_cause else ""
    # the verdict is the GPU's: the confound shown with it is the GPU's, the device named
    claim = replace(CLAIM, confound=f"the verdict is the reference GPU run's ({where(gpu)}): {CLAIM.confound_gpu}")
    return finding(
        claim,
        verdict,
        sentence,
        gpu_estimates + measured[1:],
        cause=cause,
        over_seeds=False,
        headline=0,
        boundary=AGREE_RATIO,
    )


def _judge(df: pd.DataFrame, lead: str = ""):
    """(verdict, sentence, estimates, cause, (pass, length, recurrent shares, attention shares)) of one group of
    records, judged as on a GPU; the first estimate is the ratio the verdict turns on, its label naming the device.
    None where no recurrent and attention layer were timed at a common length. ``lead``: how the sentence names the
    records ('On this cuda' by default)."""
    device = str(df.iloc[0].device).split(":")[0] if len(df) else "?"
    named = str(df.iloc[0].get("device_name") or device) if len(df) else device
    measured = [p for p in ("fwd+bwd", "fwd") if shares(df, p)[0] is not None]
    if not measured:
        return None
    parts, verdicts, estimates, ratios = [], [], [], []
    for pass_ in measured:
        x, rec, att = shares(df, pass_)
        best_rec = max(rec, key=rec.get)
        best_att = max(att, key=att.get)
        ratio = att[best_att] / rec[best_rec] if rec[best_rec] > 0 else math.inf
        ratios.append(
            Estimate(
                f"{pass_} at {int(x)} tokens on {named}: `{best_att}` {att[best_att]:.1f}% / `{best_rec}` "
                f"{rec[best_rec]:.1f}% of the measured matmul peak",
                ratio,
                unit="x",
                seeds=int(df.seed.nunique()),
            )
        )
        verdicts.append("agrees" if ratio >= AGREE_RATIO else "disagrees" if ratio < DISAGREE_RATIO else "inconclusive")
        estimates += [
            Estimate.of(f"{pass_} {v} % of peak", _seed_values(df, v, pass_, x), "%", "bounded", (0, 100))
            for v in (best_att, best_rec)
        ]
        parts.append(
            f"{pass_} at {int(x)} tokens: `{best_att}` {att[best_att]:.0f}% of the measured matmul peak against "
            + ", ".join(f"`{v}` {s:.0f}%" for v, s in sorted(rec.items(), key=lambda kv: -kv[1]))
            + f" ({ratio:.1f}x the busiest recurrent layer)"
        )
    primary = verdicts[0]
    sentence = _sentence(df, device, lead, parts, measured[0], primary)
    cause = {
        "agrees": "",
        "disagrees": f"the busiest recurrent layer reaches over 1/{DISAGREE_RATIO:g} of attention's "
        f"share of the measured matmul peak on this {device}.",
        "inconclusive": f"attention is busier than recurrence by less than {AGREE_RATIO:g}x.",
    }[primary]
    x, rec, att = shares(df, measured[0])
    return primary, sentence, [ratios[0]] + estimates, cause, (measured[0], x, rec, att)


def _sentence(df: pd.DataFrame, device: str, lead: str, parts: list[str], judged: str, primary: str) -> str:
    """The verdict's sentence: the quoted figures, each pass's shares, the verdict on the pass ``judged``."""
    quoted = (
        f"the quoted ~{QUOTED_RECURRENT:.0f}% against {QUOTED_ATTENTION:.0f}%+ is for GPUs"
        if device == "cpu"
        else f"quoted: ~{QUOTED_RECURRENT:.0f}% against {QUOTED_ATTENTION:.0f}%+"
    )
    word = {
        "agrees": f"**agrees**: attention keeps the device at least {AGREE_RATIO:g}x as busy as recurrence",
        "disagrees": f"**disagrees**: recurrence keeps this {device} about as busy as attention or busier "
        f"(attention's share is under {DISAGREE_RATIO:g}x the busiest recurrent layer's)",
        "inconclusive": f"is **inconclusive**: attention is busier, but by less than {AGREE_RATIO:g}x",
    }[primary]
    sentence = (
        f"{lead or 'On this ' + device} ({quoted}): " + "; ".join(parts) + f". Judged on {judged}, "
        f"{'that' if lead else 'this'} run {word} "
        f"(a timing margin on one seed's repeats, not a seed margin)."
    )
    nominal = nominal_peak_note(df, known_only=True)  # the quoted figures are read against a GPU's nominal peak
    return sentence + (f" {nominal}" if nominal else "")


def _seed_values(df: pd.DataFrame, variant: str, pass_: str, x: float) -> list[float]:
    rows = df[
        (df.metric == "peak_fraction")
        & (df.status == "ok")
        & (df.variant == variant)
        & (df["pass"] == pass_)
        & (df.x == x)
    ]
    return [float(v) for v in rows.value]
