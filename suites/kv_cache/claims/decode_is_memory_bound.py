"""A check: a cached decode step is memory-bound, its latency growing no faster than the bytes it reads (Pope et
al. 2022's model), on steps pre-selected because their bytes dominate them.

A check of the selector, not a test of the finding: a step is judged only where reading its bytes at the copy
bandwidth already takes at least half its latency, so the selection itself bounds its latency's growth by 2x the
bytes'; what the check adds is that between the two longest such contexts the latency grows at most NOISE x the
bytes (a step that copied its cache, or did work per cached token beyond reading it, would grow faster). The rule
is a test on the timing repeats (suites/common/timing_repeats.py): the log of the latency growth over the exact bytes
growth against log NOISE, its 95% interval wholly below agrees, wholly above disagrees, else inconclusive; every
variant judged must hold (harness/paired.py ``all_hold``, Holm across the variants)."""

from __future__ import annotations

import math

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run, not_testable
from harness.paired import Verdict, all_hold
from suites.common.timing_repeats import ratio_contrast
from suites.kv_cache.claims._shared import NOISE, WOULD_TEST, Evidence, judged_steps
from suites.kv_cache.steps import DOMINANT

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    """Between the two longest contexts, both with the step's bytes dominating it, each variant's step slows by at
    most NOISE x the growth of the bytes it reads: a step that copied its cache, or did work per cached token beyond
    reading it, would grow faster. Not testable where no step's bytes dominate it (an overhead-bound step tells
    nothing about memory)."""
    steps = ev.steps
    kind, judged = judged_steps(steps)
    if kind is None:
        if not len(steps):
            return not_run(CLAIM)
        return not_testable(CLAIM, f"{judged} (overhead-bound)", WOULD_TEST)
    growth = growth_table(judged)
    if not len(growth):
        return not_testable(CLAIM, f"no variant's {kind} step has its bytes dominate it at two contexts", WOULD_TEST)
    labels = [
        r.contrast.verdict(NOISE, above=False) if r.contrast else Verdict("inconclusive") for r in growth.itertuples()
    ]
    # each variant judged must stay within the bytes' growth: one that outgrows them refutes the claim
    worst = growth.loc[(growth["latency growth"] / growth["bytes growth"]).idxmax()]
    where = "the whole model's cached step" if kind == "model" else "the decode-step attention (grouped queries)"
    left = sorted(set(judged.variant) - set(growth.variant))
    sentence = (
        f"Judged on {where}, only on steps pre-selected because their bytes dominate them, between the two "
        f"longest contexts at which they do (at least {DOMINANT:.0%} of the latency is the time to read the bytes "
        f"at the copy bandwidth; where no step beats its copy time the selection "
        f"alone bounds the latency's growth by {1 / DOMINANT:g}x the bytes', the verdict asks for {NOISE:.2f}x): "
        + "; ".join(
            f"`{r.variant}` {int(r['from'])} -> {int(r['to'])} tokens, bytes {r['bytes growth']:.2f}x, "
            f"latency {r['latency growth']:.2f}x (share {r['share']:.0%}; latency over bytes growth "
            + (
                f"{math.exp(r.contrast.centre):.3f} [{r.contrast.bounds()[0]:.3f}, {r.contrast.bounds()[1]:.3f}])"
                if r.contrast
                else "untested: no repeats)"
            )
            for _, r in growth.iterrows()
        )
        + f". {labels.count('agrees')} of {len(growth)} variants stay below {NOISE:.2f} x the bytes' growth (the 95% "
        f"interval over the {_over(growth)}, Student-t at its degrees of freedom, wholly below {NOISE:.2f})."
        + (
            f" Not judged (their bytes do not dominate the step at two contexts): {', '.join(f'`{v}`' for v in left)}."
            if left
            else ""
        )
    )
    verdict = all_hold(labels)
    estimates = [
        r.contrast.estimate(f"latency growth / bytes growth, {r.variant}", float(sum(r.per_seed) / len(r.per_seed)))
        if r.contrast
        else Estimate.of(f"latency growth / bytes growth, {r.variant}", r.per_seed, kind="log")
        for r in growth.itertuples()
    ]
    failing = [i for i, v in enumerate(labels) if v != "agrees"]
    cause = ""
    if verdict != "agrees":
        bad = growth.iloc[failing[0]] if failing else worst
        cause = (
            f"`{bad.variant}`'s step grows {bad['latency growth']:.2f}x for {bad['bytes growth']:.2f}x the bytes: "
            + ("beyond" if verdict == "disagrees" else "not clearly within")
            + f" {NOISE:.2f}x the bytes' growth on the {_over(growth)}, on steps pre-selected because their bytes "
            "dominate them."
        )
    # the variant the verdict turns on: the first that fails, else the one whose latency outgrows its bytes the most
    worst_at = failing[0] if failing else int((growth["latency growth"] / growth["bytes growth"]).values.argmax())
    p = getattr(verdict, "p", math.nan)
    return finding(
        CLAIM,
        verdict,
        sentence,
        estimates,
        cause=cause,
        over_seeds=False,
        headline=worst_at,
        boundary=NOISE,
        p=None if math.isnan(p) else p,
    )


def _over(growth: pd.DataFrame) -> str:
    """What the intervals are over: one job's timing repeats, or seeds."""
    overs = {r.contrast.over for r in growth.itertuples() if r.contrast}
    return "seeds" if overs == {"seeds"} else "timing repeats"


def growth_table(steps: pd.DataFrame) -> pd.DataFrame:
    """Per variant, between its two longest contexts at which the step's bytes dominate it in every seed: the growth of
    the bytes it reads and of its latency (means over seeds), the per-seed ratio of the two, its log's test
    (``contrast``: over the timing repeats at one seed, over seeds at two or more; None without repeats), and the
    smaller share."""
    rows = []
    for variant, sel in steps.groupby("variant", sort=False):
        dominated = sel.groupby("x").dominated.all()
        xs = sorted(dominated[dominated].index)
        if len(xs) < 2:
            continue
        short, long = xs[-2], xs[-1]
        read = {x: float(sel[sel.x == x].bytes.iloc[0]) for x in (short, long)}
        ms = {x: sel[sel.x == x].set_index("seed").ms for x in (short, long)}
        per_seed = (ms[long] / ms[short]).dropna() / (read[long] / read[short])
        timing = {x: sel[sel.x == x].set_index("seed").timing for x in (short, long)}
        seeds = sorted(set(timing[short].index) & set(timing[long].index))
        contrast = ratio_contrast(
            {s: [(1, timing[long][s]), (-1, timing[short][s])] for s in seeds},
            offset=-math.log(read[long] / read[short]),
        )
        rows.append(
            {
                "variant": variant,
                "from": short,
                "to": long,
                "bytes growth": read[long] / read[short],
                "latency growth": float((ms[long] / ms[short]).mean()),
                "per_seed": list(per_seed),
                "contrast": contrast,
                "share": float(sel[sel.x.isin([short, long])].share.min()),
            }
        )
    return pd.DataFrame(rows)
