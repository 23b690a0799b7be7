"""Additive attention beats the unscaled dot product at large d_k (Vaswani et al. 2017, section 3.2.1, after Britz
et al. 2017): held-out losses of trained scorings, paired over seeds.

Its precondition is about the setting, not the two arms it compares: the training budget trains this model, read on
the scaled dot product (a scoring the claim does not compare), which must learn (held-out loss LEARN_MARGIN below
the bigram entropy) and not memorise. Whether the unscaled dot product or the additive scoring learns is the claim's
outcome: an unscaled dot product that does not learn is what the source predicts (a saturated softmax trains
badly), so it enters the paired comparison at its held-out loss, flagged, never left out."""

from __future__ import annotations

import dataclasses

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run, unmet
from harness.paired import directional, paired
from suites.attention_scaling.claims._shared import Evidence
from suites.attention_scaling.tables import _mean, _per_seed
from suites.common.learning import LearningCheck

CLAIM = declared(__file__)
#: the scoring the precondition reads: trained like the compared two, compared by neither side of the claim
SETTING = "scaled_dot"


def judge(ev: Evidence) -> Finding:
    """Additive against unscaled dot at large d_k, from the held-out losses of both, paired over seeds, in a setting
    whose budget trains the model (the scaled dot product learned and did not memorise), whatever the two show.

    Without the unscaled dot product or an additive scoring, no verdict; without the scaled dot product, the
    precondition cannot be read, and no verdict either."""
    ok, variants, checks = ev.ok, ev.variants, ev.checks
    add = next((v for v in variants if v.startswith("additive")), None)
    if "dot" not in variants or add is None:
        return not_run(CLAIM)
    if SETTING not in variants or SETTING not in checks:
        return not_run(
            CLAIM,
            f"Training at large d_k: this run lacks `{SETTING}`, on which the claim's precondition (the budget trains "
            "this model) is read.",
        )
    held = {v: _mean(ok, v, "heldout_loss") for v in (SETTING, "dot", add)}
    by_seed = {
        v: ok[(ok.variant == v) & (ok.metric == "heldout_loss")].groupby("seed").value.mean().to_dict()
        for v in (add, "dot")
    }
    diff = paired(f"held-out loss {add} - dot", by_seed[add], by_seed["dot"], "nats/char")
    estimates = [diff.estimate] + [
        Estimate.of(f"held-out loss {v}", _per_seed(ok, v, "heldout_loss"), "nats/char", "log") for v in (add, "dot")
    ]
    flags = _flags({v: checks.get(v) for v in (add, "dot")})
    compared = (
        f"Training at large d_k: held-out loss {add} {held[add]:.3f} vs unscaled dot {held['dot']:.3f} "
        f"(scaled dot {held[SETTING]:.3f}); paired over {diff.seeds} seeds {add} - dot = {diff.mean:+.3f} nats/char "
        f"({diff.why()})" + flags
    )
    setting = checks[SETTING]
    if not setting.usable:
        setting_estimate = Estimate.of(
            f"held-out loss {SETTING}", _per_seed(ok, SETTING, "heldout_loss"), "nats/char", "log"
        )
        found = unmet(
            CLAIM,
            f"`{SETTING}` {setting.reason()}",
            "a training budget in which the scaled dot product learns the corpus without memorising it (more steps, "
            "or more text)",
            [setting_estimate, *estimates],
        )
        return dataclasses.replace(found, sentence=f"{compared}. {found.sentence}")
    verdict = directional(diff, -1)  # additive's loss lower
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
    return finding(CLAIM, verdict, f"{compared}; this run {said}.", estimates, cause=cause)


def _flags(checks: dict[str, LearningCheck | None]) -> str:
    """'; `dot` did not learn (...), an outcome the comparison keeps': the compared scorings' learning flags,
    shown, not a reason to leave either out."""
    flagged = [f"`{v}` {c.reason()}" for v, c in checks.items() if c is not None and not c.usable]
    if not flagged:
        return ""
    return "; " + " and ".join(flagged) + " (an outcome the paired comparison keeps, not a reason to leave it out)"
