"""Attention weights rank the source words unlike gradient and leave-one-out importance (Jain & Wallace 2019): each
of attention's Kendall taus against the importance measures' agreement with each other, paired over seeds."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import Difference, Verdict, all_hold, directional, paired
from suites.attention_explanation.claims._shared import Evidence, by_seed, probed, seeds_text

CLAIM = declared(__file__)
#: a Kendall tau lies in [-1, 1]
TAU = (-1.0, 1.0)


def rule(gaps: list[Difference]) -> Verdict:
    """Both of attention's taus below the measures' own agreement: a conjunction of two directional paired tests
    (``all_hold``: agrees when both agree, an intersection-union test of each part's size; disagrees when a part is
    reversed with the two held at 2.5% together, Holm)."""
    return all_hold([directional(g, -1) for g in gaps])


def judge(ev: Evidence) -> Finding:
    """Agrees when attention's mean tau with each importance measure is below the two measures' tau with each other
    (two paired tests, directional, both must hold)."""
    ok = ev.ok
    v = probed(ok, ev.specs)
    if v is None:
        return not_run(
            CLAIM, "This run probed no model with learned attention.", "bench run suite=attention_explanation"
        )
    yardstick = by_seed(ok, v, "tau_gradient_loo")
    gaps = [
        paired(f"tau(attention, {name}) - tau(gradient, leave-one-out)", by_seed(ok, v, metric), yardstick, bounds=TAU)
        for name, metric in (("gradient", "tau_attention_gradient"), ("leave-one-out", "tau_attention_loo"))
    ]
    verdict = rule(gaps)
    means = {}
    for m in ("tau_attention_gradient", "tau_attention_loo", "tau_gradient_loo"):
        values = by_seed(ok, v, m)
        means[m] = sum(values.values()) / max(len(values), 1)
    text = (
        f"`{v}`: mean Kendall tau of attention with gradient importance {means['tau_attention_gradient']:.2f} and with "
        f"leave-one-out {means['tau_attention_loo']:.2f}, against {means['tau_gradient_loo']:.2f} between the two "
        f"importance measures ({seeds_text(gaps[0].seeds)}; {gaps[0].why()}; {gaps[1].why()})."
    )
    if verdict == "agrees":
        return finding(
            CLAIM,
            verdict,
            text + " Attention ranks the source words unlike the importance measures.",
            [g.estimate for g in gaps],
        )
    parts = [directional(g, -1) for g in gaps]
    open_parts = [i for i, p in enumerate(parts) if p != "agrees"]
    # the part that keeps the conjunction from agreeing is the headline: the reversed one, else the first undecided
    head = next((i for i in open_parts if parts[i] == "disagrees"), open_parts[0] if open_parts else 0)
    named = "; ".join(f"{gaps[i].estimate.label} {gaps[i].mean:+.3f} ({gaps[i].why()})" for i in open_parts)
    cause = (
        f"attention agrees with an importance measure at least as well as the two measures agree with each other: {named}"
        if verdict == "disagrees"
        else f"of the two parts that must both hold, one does not count over these seeds: {named}"
        if len(open_parts) == 1
        else f"of the two parts that must both hold, neither counts over these seeds: {named}"
    )
    return finding(
        CLAIM,
        verdict,
        f"{text} {cause[0].upper()}{cause[1:]}.",
        [g.estimate for g in gaps],
        cause=cause[0].upper() + cause[1:] + ".",
        headline=head,
    )
