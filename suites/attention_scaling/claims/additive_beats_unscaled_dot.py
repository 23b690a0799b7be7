"""Additive attention beats the unscaled dot product at large d_k (Vaswani et al. 2017, section 3.2.1, after Britz
et al. 2017): held-out losses of trained scorings, paired over seeds."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import directional, paired
from suites.attention_scaling.claims._shared import Evidence
from suites.attention_scaling.tables import _mean, _per_seed
from suites.common.learning import LearningCheck, usable

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    """Additive against unscaled dot at large d_k, from held-out losses of scorings that learned and did not memorise.

    Without the unscaled dot product or an additive scoring among those, no verdict, and the sentence says which
    scoring was left out and why; every other left-out scoring is named too.
    """
    ok, variants, checks = ev.ok, ev.variants, ev.checks
    add = next((v for v in variants if v.startswith("additive")), None)
    if "dot" not in variants or add is None:
        return not_run(CLAIM)
    kept, left_out = usable({v: checks[v] for v in variants if v in checks})
    note = f" {left_out}" if left_out else ""
    missing = [v for v in ("dot", add) if v not in kept]
    if missing:
        why = " and ".join(f"`{v}` {_short_reason(checks.get(v))}" for v in missing)
        return finding(
            CLAIM,
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
        CLAIM,
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


def _short_reason(check: LearningCheck | None) -> str:
    if check is None or not check.heldout:
        return "has no held-out loss"
    return " and ".join(
        why for why, flag in (("did not learn", check.did_not_learn), ("memorised", check.memorised)) if flag
    )
