"""A check: unscaled scores saturate the softmax at large d_k and shrink its gradient; 1/sqrt(d_k) keeps it spread
(Vaswani et al. 2017, section 3.2.1)."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from suites.attention_scaling.claims._shared import Evidence
from suites.attention_scaling.tables import _mean, _per_seed

CLAIM = declared(__file__)
#: "saturated" means the unscaled softmax's entropy is under this share of the scaled one's at the largest d_k
#: (this project's choice: a one-hot softmax has entropy 0, a uniform one log n_keys)
SHARPER = 0.5


def judge(ev: Evidence) -> Finding:
    """Agrees when, at the largest d_k, the unscaled softmax is sharper (entropy under SHARPER x the scaled one's),
    more often saturated than at the smallest d_k and than the scaled one, and flatter in its Jacobian."""
    ok, variants, d_ks = ev.ok, ev.variants, ev.d_ks
    lo, hi = (d_ks[0], d_ks[-1]) if d_ks else (None, None)
    if not ("dot" in variants and "scaled_dot" in variants and lo != hi):
        return not_run(CLAIM)
    ent = {v: (_mean(ok, v, "softmax_entropy", lo), _mean(ok, v, "softmax_entropy", hi)) for v in ("dot", "scaled_dot")}
    sat = {
        v: (_mean(ok, v, "softmax_saturated_fraction", lo), _mean(ok, v, "softmax_saturated_fraction", hi))
        for v in ("dot", "scaled_dot")
    }
    jac = {v: _mean(ok, v, "softmax_jacobian_norm", hi) for v in ("dot", "scaled_dot")}
    grad = {v: _mean(ok, v, "query_grad_norm", hi) for v in ("dot", "scaled_dot")}
    saturates = (
        ent["dot"][1] < SHARPER * ent["scaled_dot"][1]
        and sat["dot"][1] > sat["dot"][0]
        and sat["dot"][1] > sat["scaled_dot"][1]
        and jac["dot"] < jac["scaled_dot"]
    )
    estimates = [
        Estimate.of(f"softmax entropy at d_k {int(hi)}, {name}", _per_seed(ok, v, "softmax_entropy", hi), "nats", "log")
        for v, name in (("dot", "unscaled"), ("scaled_dot", "scaled"))
    ]
    text = (
        f"From d_k {int(lo)} to {int(hi)} the unscaled softmax's entropy falls {ent['dot'][0]:.2f} -> "
        f"{ent['dot'][1]:.2f} nats and its saturated share rises {sat['dot'][0]:.0%} -> {sat['dot'][1]:.0%}, while the "
        f"scaled one stays at {ent['scaled_dot'][1]:.2f} nats and {sat['scaled_dot'][1]:.0%}; mean softmax Jacobian "
        f"norm at {int(hi)}: unscaled {jac['dot']:.3g}, scaled {jac['scaled_dot']:.3g}. This run "
        + (
            "agrees: unscaled scores saturate the softmax and shrink its gradient, scaling keeps it spread."
            if saturates
            else "does not show the unscaled softmax saturating with a smaller gradient."
        )
        + f" (The gradient reaching the query, ||dL/dq||, is still {grad['dot'] / grad['scaled_dot']:.1f}x larger "
        "unscaled at this d_k: the unscaled score lacks the 1/sqrt(d_k) factor on q, which outweighs the "
        "saturation for the queries that are not saturated.)"
    )
    return finding(
        CLAIM,
        "agrees" if saturates else "disagrees",
        text,
        estimates,
        cause=""
        if saturates
        else f"the unscaled softmax at d_k {int(hi)} is not both sharper (under half the "
        f"scaled entropy) and flatter in its Jacobian than the scaled one.",
    )
