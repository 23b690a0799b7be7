"""A check: fewer key/value heads make the memory-bound decode step faster (Ainslie et al. 2023's argument), on the
step whose bytes dominate it, MHA against MQA per position encoding."""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run, not_testable
from harness.paired import all_hold, directional, paired
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
    timing = (
        f"The {NOISE - 1:.0%} margin is the timing repeats' noise (one seed), not a seed margin."
        if judged.seed.nunique() == 1
        else ""
    )
    parts = [f.part for f in found]
    return finding(
        CLAIM,
        verdict,
        " ".join([where + parts[0]] + parts[1:] + [_model_step_sentence(df), timing]).strip(),
        estimates,
        cause="" if verdict == "agrees" else next(f.cause for f in found if f.cause),
        over_seeds=False,
        headline=head,
        boundary=NOISE,
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
    diff = paired(
        f"MHA over MQA step time, {position}", a.to_dict(), b.to_dict(), relative=True, margin=100 * (NOISE - 1)
    )
    # one seed: a difference counts only beyond the timing margin; two or more: on the paired t test over seeds
    label = directional(diff, +1)
    fewer = float(at_mha.bytes.mean() / at_mqa.bytes.mean())  # MHA's bytes over MQA's
    also = (
        f" (whole model's step {step.value:.2f}x at {step.label.rsplit(', ', 1)[1]})"
        if kind == "attention" and step is not None
        else ""
    )
    estimate = Estimate.of(
        f"MHA / MQA {'attention op' if kind == 'attention' else 'step'} time, {position}, {int(x)} tokens{also}",
        (a / b).dropna().tolist(),
        kind="log",
    )
    where = "the whole model's step" if kind == "model" else "the decode-step attention"
    part = (
        f"With {position}, {where} at {int(x)} cached tokens (MHA: {describe(at_mha)}, "
        f"bytes dominating) takes {a.mean():.3g} ms with MHA and {b.mean():.3g} ms with MQA "
        f"({a.mean() / b.mean():.2f}x; "
        + (
            diff.why()
            if not diff.one_seed
            else f"beyond the {NOISE - 1:.0%} timing margin"
            if diff.beyond_margin
            else f"within the {NOISE - 1:.0%} timing margin"
        )
        + ")."
    )
    cause = ""
    if label != "agrees":
        short = "faster by less than the timing margin" if diff.one_seed else "not faster on the paired test over seeds"
        cause = (
            f"with {position} MQA is {'slower' if label == 'disagrees' else short} "
            f"({a.mean() / b.mean():.2f}x at {int(x)} tokens)."
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
