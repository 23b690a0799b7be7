"""Attention weights rank the source words unlike gradient and leave-one-out importance (Jain & Wallace 2019): each
of attention's Kendall taus against the importance measures' agreement with each other, paired over seeds."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import all_hold, directional, paired
from suites.attention_explanation.claims._shared import Evidence, by_seed, probed, seeds_text

CLAIM = declared(__file__)
#: a Kendall tau lies in [-1, 1]
TAU = (-1.0, 1.0)


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
    verdict = all_hold([directional(g, -1) for g in gaps])
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
    cause = (
        "attention agrees with an importance measure at least as well as the two measures agree with each other"
        if verdict == "disagrees"
        else "a difference from the importance measures' own agreement does not count over these seeds"
    )
    return finding(
        CLAIM,
        verdict,
        f"{text} {cause[0].upper()}{cause[1:]}.",
        [g.estimate for g in gaps],
        cause=cause[0].upper() + cause[1:] + ".",
    )
