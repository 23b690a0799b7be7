"""Post-LN is harder to train than Pre-LN: more of its runs collapse, paired by seed (Xiong et al. 2020)."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import directional, paired
from suites.training_stability.claims._shared import Evidence, interval, said, seeds
from suites.training_stability.outcomes import COLLAPSE_WITHIN, collapse_counts, runs_per_seed

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    return trainability(ev.out, ev.unigram)


def trainability(out: dict, unigram: float) -> Finding:
    """Per seed, how many of each variant's runs collapsed (diverged or at the unigram loss); Post-LN's count
    against Pre-LN's, paired by seed, must count and be larger."""
    if not out or not {"post_ln", "pre_ln"} <= {v for (v, _, _, _) in out}:
        return not_run(CLAIM)
    post, pre = collapse_counts(out, "post_ln", unigram), collapse_counts(out, "pre_ln", unigram)
    n_post, n_pre = runs_per_seed(out, "post_ln"), runs_per_seed(out, "pre_ln")
    most = max(n_post, n_pre)
    d = paired("collapsed runs, Post-LN - Pre-LN", post, pre, "runs", bounds=(0, most) if most > 0 else None)
    verdict = directional(d, +1)
    text = (
        f"Trainability: per seed, Post-LN runs that collapsed (diverged, or ended within {COLLAPSE_WITHIN:g} nats/char "
        f"of the unigram loss {unigram:.2f}) {seeds(post, '{:.0f}')} of {n_post}, Pre-LN {seeds(pre, '{:.0f}')} of "
        f"{n_pre}; paired difference {interval(d, '{:+.1f}')}: this run {said(verdict)}."
    )
    cause = (
        ""
        if verdict == "agrees"
        else (
            "Post-LN's collapses "
            + ("do not outnumber Pre-LN's beyond the seeds' spread." if not d.counts else "are fewer than Pre-LN's.")
        )
    )
    estimates = [
        Estimate.of("Post-LN collapsed runs per seed", post.values(), f"of {n_post}", "count"),
        Estimate.of("Pre-LN", pre.values(), f"of {n_pre}", "count"),
        d.estimate,
    ]
    return finding(CLAIM, verdict, text, estimates, cause=cause, headline=2, boundary=0.0)  # the paired difference
