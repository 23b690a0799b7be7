"""Post-LN needs the learning-rate warm-up more than Pre-LN does (Xiong et al. 2020): the cost of dropping it, paired
by seed and pooled over the cells that test it."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import directional
from suites.training_stability.claims._shared import Evidence, interval, mean, said
from suites.training_stability.outcomes import Cell, cells, pooled

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    return warmup(cells(ev.out, ev.unigram) if ev.out else [])


def warmup(found: list[Cell]) -> Finding:
    """Post-LN's cost of dropping the warm-up against Pre-LN's, paired by seed and pooled over the cells that test
    warm-up; a cell where even the warmed-up Post-LN collapsed in every seed is named, not pooled."""
    found = [c for c in found if {"post_ln", "pre_ln"} <= set(c.cost)]
    if not found:
        return not_run(CLAIM)
    fragile = [c for c in found if c.fails_even_warmed("post_ln") or c.fails_even_warmed("pre_ln")]
    tested = [c for c in found if c not in fragile]
    per_cell = {c.label(): c.difference("post_ln", "pre_ln") for c in tested}
    against = [label for label, d in per_cell.items() if directional(d, +1) == "disagrees"]
    d = pooled(tested, "post_ln", "pre_ln") if tested else None
    verdict = "inconclusive" if d is None else directional(d, +1)
    if verdict == "agrees" and against:
        verdict = "inconclusive"
    warm = found[0].warmup
    cost_text = "; ".join(
        f"{c.label()}: Post-LN {mean(c.cost['post_ln']):+.2f}, Pre-LN {mean(c.cost['pre_ln']):+.2f}" for c in tested
    )
    text = (
        f"Warm-up: dropping the {warm}-step warm-up costs (held-out nats/char, mean over seeds; a diverged run at the "
        f"unigram loss) " + (cost_text or "nothing that can be compared") + ". "
    )
    if d is not None:
        text += (
            f"Post-LN's cost minus Pre-LN's, per seed the mean over these {len(tested)} cells and paired by seed: "
            f"{interval(d)}"
            + (f"; a cell counts the other way ({', '.join(against)})" if against else "")
            + f": this run {said(verdict)}. "
        )
    if fragile:
        text += (
            f"In {len(fragile)} cell(s) ({', '.join(c.label() for c in fragile)}) the warmed-up Post-LN collapsed too, "
            f"in every seed: evidence that Post-LN is fragile there (the trainability verdict counts these runs), but "
            f"not of whether warm-up helps it ({warm} steps were not enough), so they are not pooled."
        )
    cause = ""
    if verdict != "agrees":
        cause = (
            "no cell tests warm-up: the warmed-up Post-LN collapsed in every one."
            if d is None
            else f"a cell counts against the claim ({', '.join(against)})."
            if against
            else f"Post-LN's pooled extra cost {interval(d)} does not count over the seeds."
            if not d.counts
            else "Post-LN's pooled cost of dropping the warm-up is smaller than Pre-LN's."
        )
    estimates = ([d.estimate] if d is not None else []) + [per_cell[c.label()].estimate for c in tested]
    return finding(CLAIM, verdict, text.strip(), estimates, cause=cause, headline=0, boundary=0.0)
