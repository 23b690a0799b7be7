"""A cached decode step is memory-bound: its latency grows no faster than the bytes it reads (Pope et al. 2022),
judged only on steps pre-selected because their bytes dominate them."""

from __future__ import annotations

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run, not_testable
from harness.paired import all_hold
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
    labels = [_within(r.per_seed) for r in growth.itertuples()]
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
            f"latency {r['latency growth']:.2f}x (share {r['share']:.0%})"
            for _, r in growth.iterrows()
        )
        + f". {labels.count('agrees')} of {len(growth)} variants stay within {NOISE:.2f} x the bytes' growth."
        + (
            f" Not judged (their bytes do not dominate the step at two contexts): {', '.join(f'`{v}`' for v in left)}."
            if left
            else ""
        )
    )
    verdict = all_hold(labels)
    estimates = [
        Estimate.of(f"latency growth / bytes growth, {r.variant}", r.per_seed, kind="log") for r in growth.itertuples()
    ]
    cause = (
        ""
        if verdict == "agrees"
        else (
            f"`{worst.variant}`'s step grows {worst['latency growth']:.2f}x for {worst['bytes growth']:.2f}x the bytes, "
            f"beyond the {NOISE - 1:.0%} allowed for timing noise, on steps pre-selected because their bytes dominate them."
        )
    )
    # the variant whose latency outgrows its bytes the most is the one the verdict turns on
    worst_at = int((growth["latency growth"] / growth["bytes growth"]).values.argmax())
    return finding(
        CLAIM, verdict, sentence, estimates, cause=cause, over_seeds=False, headline=worst_at, boundary=NOISE
    )


def _within(per_seed: list[float]) -> str:
    """Latency growth over bytes growth at most NOISE: one seed against the timing margin itself; two or more seeds
    on the 95% interval of the per-seed ratios (agrees when its upper end is within NOISE, disagrees when its lower
    end is beyond, else inconclusive)."""
    e = Estimate.of("ratio", per_seed, kind="log")
    if e.seeds < 2 or e.low is None:
        return "agrees" if e.value <= NOISE else "disagrees"
    return "agrees" if e.high <= NOISE else "disagrees" if e.low > NOISE else "inconclusive"


def growth_table(steps: pd.DataFrame) -> pd.DataFrame:
    """Per variant, between its two longest contexts at which the step's bytes dominate it in every seed: the growth of
    the bytes it reads and of its latency (means over seeds), the per-seed ratio of the two, and the smaller share."""
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
        rows.append(
            {
                "variant": variant,
                "from": short,
                "to": long,
                "bytes growth": read[long] / read[short],
                "latency growth": float((ms[long] / ms[short]).mean()),
                "per_seed": list(per_seed),
                "share": float(sel[sel.x.isin([short, long])].share.min()),
            }
        )
    return pd.DataFrame(rows)
