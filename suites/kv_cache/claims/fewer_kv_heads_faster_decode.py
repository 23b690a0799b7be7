"""A check: fewer key/value heads make the memory-bound decode step faster (Ainslie et al. 2023's argument), on the
step whose bytes dominate it, MHA against MQA per position encoding.

Faster means by more than NOISE (10%, this project's choice: within it two timings of one step differ from causes
one job's repeats do not see). The rule is a test on the timing repeats (suites/common/timing_repeats.py): the log of
MHA's step time over MQA's against log NOISE, each log median's variance pi/2 sd^2 / n from its own repeats,
Student-t at the Welch-Satterthwaite degrees of freedom (two seeds or more: the per-seed ratios' t interval over
seeds); the 95% interval wholly above agrees, wholly below disagrees, else inconclusive; every position encoding
must hold (harness/paired.py ``all_hold``, Holm across them)."""

from __future__ import annotations

import math
from typing import NamedTuple

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run, not_testable
from harness.paired import Verdict, all_hold
from suites.common.timing_repeats import ratio_contrast
from suites.kv_cache.claims._shared import NOISE, WOULD_TEST, Evidence, judged_steps
from suites.kv_cache.steps import describe

CLAIM = declared(__file__)


class _Position(NamedTuple):
    """What one position encoding's steps say: the paired label, its estimate, its sentence, why it does not agree
    (empty where it does), and MHA's bytes over MQA's."""

    label: str
    estimate: Estimate
    part: str
    cause: str
    fewer: float


def judge(ev: Evidence) -> Finding:
    """Fewer K/V heads make the decode step faster (MHA over MQA beyond NOISE, per position encoding), judged at
    the longest context where the MHA step's bytes dominate it; not testable where no step's bytes dominate."""
    df, steps = ev.df, ev.steps
    kind, judged = judged_steps(steps)
    if kind is None:
        if not len(steps):
            return not_run(CLAIM)
        return not_testable(
            CLAIM,
            f"{judged} (overhead-bound: a step's time is not the time to read its cache)",
            WOULD_TEST,
            _model_ratios(df),
        )
    whole = {e.label.split(", ")[1]: e for e in _model_ratios(df)}  # position -> the whole model's MHA / MQA step
    found = [
        _position(judged[judged.position == position], position, kind, whole.get(position))
        for position in sorted(judged.position.unique())
    ]
    found = [f for f in found if f is not None]
    if not found:
        return not_run(CLAIM)
    labels = [f.label for f in found]
    estimates = [f.estimate for f in found]
    # every position encoding must hold; the one the verdict turns on is the first that fails, else the smallest ratio
    verdict = all_hold(labels)
    failing = [i for i, label in enumerate(labels) if label != "agrees"]
    head = failing[0] if failing else min(range(len(estimates)), key=lambda i: estimates[i].value)
    where = (
        "Judged on one layer's decode-step attention, chosen because its bytes dominate it (there MHA reads "
        f"{found[-1].fewer:.0f}x MQA's bytes, so the ratio checks the bytes argument); the whole model's step is "
        "shown beside it. "
        if kind == "attention"
        else ""
    )
    over = "seeds" if judged.seed.nunique() > 1 else "timing repeats"
    timing = (
        f"Each ratio is tested against {NOISE:g}x on its 95% interval over the {over} (Student-t at its degrees of "
        "freedom); every position encoding must hold."
    )
    parts = [f.part for f in found]
    p = getattr(verdict, "p", math.nan)
    return finding(
        CLAIM,
        verdict,
        " ".join([where + parts[0]] + parts[1:] + [_model_step_sentence(df), timing]).strip(),
        estimates,
        cause="" if verdict == "agrees" else next(f.cause for f in found if f.cause),
        over_seeds=False,
        headline=head,
        boundary=NOISE,
        p=None if math.isnan(p) else p,
    )


def _position(mine: pd.DataFrame, position: str, kind: str, step: Estimate | None) -> _Position | None:
    """MHA against MQA at the longest context where MHA's step is dominated by its bytes, for one position
    encoding's steps ``mine`` (None without such an MHA step or without MQA); ``step``: the whole model's ratio."""
    mha = mine[(mine.grouping == "MHA") & mine.dominated]
    if not len(mha) or not (mine.grouping == "MQA").any():
        return None
    x = mha.x.max()
    at_mha = mine[(mine.grouping == "MHA") & (mine.x == x)]
    at_mqa = mine[(mine.grouping == "MQA") & (mine.x == x)]
    a, b = at_mha.set_index("seed").ms, at_mqa.set_index("seed").ms
    ta, tb = at_mha.set_index("seed").timing, at_mqa.set_index("seed").timing
    contrast = ratio_contrast({s: [(1, ta[s]), (-1, tb[s])] for s in sorted(set(ta.index) & set(tb.index))})
    label = contrast.verdict(NOISE) if contrast else Verdict("inconclusive")
    fewer = float(at_mha.bytes.mean() / at_mqa.bytes.mean())  # MHA's bytes over MQA's
    also = (
        f" (whole model's step {step.value:.2f}x at {step.label.rsplit(', ', 1)[1]})"
        if kind == "attention" and step is not None
        else ""
    )
    name = f"MHA / MQA {'attention op' if kind == 'attention' else 'step'} time, {position}, {int(x)} tokens{also}"
    ratio = float((a / b).dropna().mean())
    estimate = contrast.estimate(name, ratio) if contrast else Estimate.of(name, (a / b).dropna().tolist(), kind="log")
    where = "the whole model's step" if kind == "model" else "the decode-step attention"
    tested = (
        f"[{contrast.bounds()[0]:.2f}, {contrast.bounds()[1]:.2f}] over the {contrast.over}, "
        + {"agrees": "above", "disagrees": "below", "inconclusive": "reaching"}[str(label)]
        + f" {NOISE:g}x"
        if contrast
        else "no repeats recorded to test"
    )
    part = (
        f"With {position}, {where} at {int(x)} cached tokens (MHA: {describe(at_mha)}, "
        f"bytes dominating) takes {a.mean():.3g} ms with MHA and {b.mean():.3g} ms with MQA "
        f"({a.mean() / b.mean():.2f}x {tested})."
    )
    cause = ""
    if label != "agrees":
        cause = (
            f"with {position} MQA is "
            + ("not faster by" if label == "disagrees" else "not clearly faster by")
            + f" {NOISE - 1:.0%} ({a.mean() / b.mean():.2f}x at {int(x)} tokens, {tested})."
        )
    return _Position(label, estimate, part, cause, fewer)


def _model_ratios(df: pd.DataFrame) -> list[Estimate]:
    """MHA / MQA time of the whole model's cached step at the longest context, per position (shown, not judged)."""
    step = df[(df.metric == "decode_latency") & (df.status == "ok")]
    if not len(step):
        return []
    x = step.x.max()
    out = []
    at = step[step.x == x]
    for position in sorted(at.spec.apply(lambda s: s["position"]).unique()):
        mine = at[at.spec.apply(lambda s: s["position"]) == position]
        a = mine[mine.grouping == "MHA"].groupby("seed").value.mean()
        b = mine[mine.grouping == "MQA"].groupby("seed").value.mean()
        if len(a) and len(b):
            out.append(
                Estimate.of(
                    f"MHA / MQA model step time, {position}, {int(x)} tokens", (a / b).dropna().tolist(), kind="log"
                )
            )
    return out


def _model_step_sentence(df: pd.DataFrame) -> str:
    ratios = _model_ratios(df)
    if not ratios:
        return ""
    return (
        "The whole model's cached step (MHA / MQA, not judged where its bytes do not dominate it, and so not the "
        "check's verdict): "
        + "; ".join(f"{e.label.replace('MHA / MQA model step time, ', '')} {e.value:.2f}x" for e in ratios)
        + "."
    )
