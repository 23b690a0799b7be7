"""Post-LN needs the learning-rate warm-up more than Pre-LN does (Xiong et al. 2020): the cost of dropping it, paired
by seed and pooled over the cells that test it."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run, unmet
from harness.paired import Verdict, directional, refuted
from suites.training_stability.claims._shared import Evidence, interval, mean, said
from suites.training_stability.outcomes import Cell, cells, pooled

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    return warmup(cells(ev.out, ev.unigram) if ev.out else [])


def warmup(found: list[Cell]) -> Finding:
    """Post-LN's cost of dropping the warm-up against Pre-LN's, paired by seed and pooled over the cells that test
    warm-up; a cell where the warmed-up run of either norm collapsed in every seed is named, not pooled (its cost is
    held at the collapse floor whatever warm-up does: the declared precondition, read before the costs and for both
    norms alike). Agrees when the pooled difference counts upward and no cell refutes it, the cells held at 2.5%
    together (harness.paired.refuted: Holm); disagrees when the pooled difference counts the other way."""
    found = [c for c in found if {"post_ln", "pre_ln"} <= set(c.cost)]
    if not found:
        return not_run(CLAIM)
    fragile = [c for c in found if c.fails_even_warmed("post_ln") or c.fails_even_warmed("pre_ln")]
    tested = [c for c in found if c not in fragile]
    if not tested:
        return _untested(found)
    per_cell = {c.label(): c.difference("post_ln", "pre_ln") for c in tested}
    cell_verdicts = {label: directional(d, +1) for label, d in per_cell.items()}
    against = (
        [label for label, v in cell_verdicts.items() if v == "disagrees"] if refuted(cell_verdicts.values()) else []
    )
    d = pooled(tested, "post_ln", "pre_ln")
    verdict = directional(d, +1)
    if verdict == "agrees" and against:
        verdict = Verdict("inconclusive", verdict.p_for, verdict.p_against)
    warm = found[0].warmup
    cost_text = "; ".join(
        f"{c.label()}: Post-LN {mean(c.cost['post_ln']):+.2f}, Pre-LN {mean(c.cost['pre_ln']):+.2f}" for c in tested
    )
    text = (
        f"Warm-up: dropping the {warm}-step warm-up costs (held-out nats/char, mean over seeds; a diverged run at the "
        f"unigram loss) " + cost_text + ". "
    )
    text += (
        f"Post-LN's cost minus Pre-LN's, per seed the mean over these {len(tested)} cells and paired by seed: "
        f"{interval(d)}"
        + (f"; a cell counts the other way ({', '.join(against)})" if against else "")
        + f": this run {said(verdict)}. "
    )
    post = [c for c in fragile if c.fails_even_warmed("post_ln")]
    pre = [c for c in fragile if c not in post]
    if post:
        text += (
            f"In {len(post)} cell(s) ({', '.join(c.label() for c in post)}) the warmed-up Post-LN collapsed too, "
            f"in every seed: evidence that Post-LN is fragile there (the trainability verdict counts these runs), but "
            f"not of whether warm-up helps it ({warm} steps were not enough), so they are not pooled. "
        )
    if pre:
        text += (
            f"In {len(pre)} cell(s) ({', '.join(c.label() for c in pre)}) the warmed-up Pre-LN collapsed in every "
            "seed: its cost is held at the collapse floor there, so they are not pooled either."
        )
    cause = ""
    if verdict != "agrees":
        cause = (
            f"a cell counts against the claim ({', '.join(against)})."
            if against
            else f"Post-LN's pooled extra cost {interval(d)} does not count over the seeds."
            if not d.counts
            else "Post-LN's pooled cost of dropping the warm-up is smaller than Pre-LN's."
        )
    estimates = [d.estimate] + [per_cell[c.label()].estimate for c in tested]
    return finding(CLAIM, verdict, text.strip(), estimates, cause=cause, headline=0, boundary=0.0)


def _untested(found: list[Cell]) -> Finding:
    """Not testable here: in every cell the warmed-up run of one norm collapsed in every seed, so no cost of dropping
    the warm-up is measured above the collapse floor."""
    which = "; ".join(
        f"{c.label()}: " + " and ".join(n for n in ("post_ln", "pre_ln") if c.fails_even_warmed(n)) for c in found
    )
    return unmet(
        CLAIM,
        f"in every (depth, peak lr) cell the warmed-up run of one norm collapsed in every seed ({which})",
        f"a warm-up long enough for both norms to train with it in some cell (the source's 4000 steps; here "
        f"{found[0].warmup})",
    )
