"""The attention_scaling verdicts: Vaswani et al. 2017's q.k variance, softmax saturation, and additive against unscaled dot.

The kinds of estimate (harness/intervals.py): var(q.k) / d_k, a softmax entropy and a held-out loss are positive
("log"); the paired held-out loss difference is unbounded ("t").
"""

from __future__ import annotations

import pandas as pd

from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import directional, paired
from harness.report_kit import in_order, mean_ci
from harness.suite_file import SuiteFile
from suites.attention_scaling.tables import ORDER, _mean, _per_seed
from suites.common.learning import LearningCheck, learning_checks, usable

PUBLISHED = (
    "Vaswani et al. 2017 (arXiv 1706.03762, section 3.2.1): for q and k with independent unit-variance components, "
    "q.k has variance d_k; unscaled, large d_k pushes the softmax toward one-hot weights with extremely small gradients, "
    "which 1/sqrt(d_k) prevents; additive attention outperforms unscaled dot-product attention at large d_k."
)

#: the published findings this suite tests, in the order its report states them (suite.yaml)
VARIANCE, SATURATION, ADDITIVE = CLAIMS = SuiteFile.of(__file__).claims(
    "qk_variance_is_dk", "scaling_by_sqrt_dk", "additive_beats_unscaled_dot"
)
#: q.k variance within this relative error of d_k agrees with the theory
TOLERANCE = 0.1


def findings(df: pd.DataFrame) -> list[Finding]:
    """This suite's verdicts on Vaswani et al.'s section 3.2.1 from one group of records."""
    ok = df[df.status == "ok"]
    variants = in_order(df.variant.unique(), ORDER)
    d_ks = sorted(ok[ok.metric == "qk_variance"].x.dropna().unique())
    checks = learning_checks(df, "heldout_loss", None, "train_loss")
    return [_variance(ok, d_ks), _saturation(ok, variants, d_ks), training_verdict(ok, variants, checks)]


def _variance(ok: pd.DataFrame, d_ks: list[float]) -> Finding:
    """q.k of unit-variance vectors has variance d_k (agrees when within TOLERANCE at every d_k)."""
    if not d_ks:
        return not_run(VARIANCE)
    var = {d: mean_ci(ok[(ok.metric == "qk_variance") & (ok.x == d)].value)[0] for d in d_ks}
    agrees = all(abs(var[d] / d - 1) <= TOLERANCE for d in d_ks)
    hi = d_ks[-1]
    estimate = Estimate.of(
        f"var(q.k) / d_k at d_k {int(hi)}", [v / hi for v in _per_seed(ok, None, "qk_variance", hi)], kind="log"
    )
    text = (
        "var(q.k) against d_k: "
        + ", ".join(f"{var[d]:.1f} at {int(d)}" for d in d_ks)
        + "; this run "
        + ("agrees with the theory (within 10% of d_k)." if agrees else "departs from d_k by more than 10%.")
    )
    worst = max(d_ks, key=lambda d: abs(var[d] / d - 1))
    return finding(
        VARIANCE,
        "agrees" if agrees else "disagrees",
        text,
        [estimate],
        cause="" if agrees else f"var(q.k) is {var[worst]:.1f} at d_k {int(worst)}, over 10% from d_k.",
    )


def _saturation(ok: pd.DataFrame, variants: list[str], d_ks: list[float]) -> Finding:
    """Unscaled scores saturate the softmax at large d_k and shrink its gradient; 1/sqrt(d_k) keeps it spread."""
    lo, hi = (d_ks[0], d_ks[-1]) if d_ks else (None, None)
    if not ("dot" in variants and "scaled_dot" in variants and lo != hi):
        return not_run(SATURATION)
    ent = {v: (_mean(ok, v, "softmax_entropy", lo), _mean(ok, v, "softmax_entropy", hi)) for v in ("dot", "scaled_dot")}
    sat = {
        v: (_mean(ok, v, "softmax_saturated_fraction", lo), _mean(ok, v, "softmax_saturated_fraction", hi))
        for v in ("dot", "scaled_dot")
    }
    jac = {v: _mean(ok, v, "softmax_jacobian_norm", hi) for v in ("dot", "scaled_dot")}
    grad = {v: _mean(ok, v, "query_grad_norm", hi) for v in ("dot", "scaled_dot")}
    saturates = (
        ent["dot"][1] < 0.5 * ent["scaled_dot"][1]
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
        SATURATION,
        "agrees" if saturates else "disagrees",
        text,
        estimates,
        cause=""
        if saturates
        else f"the unscaled softmax at d_k {int(hi)} is not both sharper (under half the "
        f"scaled entropy) and flatter in its Jacobian than the scaled one.",
    )


def training_verdict(ok: pd.DataFrame, variants: list[str], checks: dict[str, LearningCheck]) -> Finding:
    """Additive against unscaled dot at large d_k, from held-out losses of scorings that learned and did not memorise.

    Without the unscaled dot product or an additive scoring among those, no verdict, and the sentence says which
    scoring was left out and why; every other left-out scoring is named too.
    """
    add = next((v for v in variants if v.startswith("additive")), None)
    if "dot" not in variants or add is None:
        return not_run(ADDITIVE)
    kept, left_out = usable({v: checks[v] for v in variants if v in checks})
    note = f" {left_out}" if left_out else ""
    missing = [v for v in ("dot", add) if v not in kept]
    if missing:
        why = " and ".join(f"`{v}` {_short_reason(checks.get(v))}" for v in missing)
        return finding(
            ADDITIVE,
            "inconclusive",
            "Training at large d_k: no verdict, as " + why + "." + note,
            cause=f"{why}, so there is no trained model to compare.",
        )
    held = {v: _mean(ok, v, "heldout_loss") for v in kept}
    by_seed = {
        v: ok[(ok.variant == v) & (ok.metric == "heldout_loss")].groupby("seed").value.mean().to_dict()
        for v in (add, "dot")
    }
    diff = paired(f"held-out loss {add} - dot", by_seed[add], by_seed["dot"], "nats/char")
    verdict = directional(diff, -1)  # additive's loss lower
    estimates = [diff.estimate] + [
        Estimate.of(f"held-out loss {v}", _per_seed(ok, v, "heldout_loss"), "nats/char", "log") for v in (add, "dot")
    ]
    said = {
        "agrees": "agrees that additive attention beats the unscaled dot product at large d_k",
        "disagrees": "finds the unscaled dot product better than additive attention",
        "inconclusive": "cannot tell the two apart",
    }[verdict]
    cause = {
        "agrees": "",
        "disagrees": f"the unscaled dot product's held-out loss is lower by {-diff.mean:.3f} nats/char ({diff.why()}).",
        "inconclusive": f"the difference {diff.mean:+.3f} nats/char does not count ({diff.why()}).",
    }[verdict]
    return finding(
        ADDITIVE,
        verdict,
        f"Training at large d_k: held-out loss {add} {held[add]:.3f} vs unscaled dot "
        f"{held['dot']:.3f}"
        + (f" (scaled dot {held['scaled_dot']:.3f})" if "scaled_dot" in held else "")
        + f"; paired over {diff.seeds} seeds {add} - dot = {diff.mean:+.3f} nats/char ({diff.why()}); this run "
        + said
        + "."
        + note,
        estimates,
        cause=cause,
    )


def _short_reason(check) -> str:
    if check is None or not check.heldout:
        return "has no held-out loss"
    return " and ".join(
        why for why, flag in (("did not learn", check.did_not_learn), ("memorised", check.memorised)) if flag
    )
