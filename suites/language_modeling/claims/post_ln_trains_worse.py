"""Post-LN trains worse than Pre-LN without a long warm-up (Xiong et al. 2020): held-out perplexity of every run,
collapsed ones included, paired over seeds at the source's depth."""

from __future__ import annotations

import math

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import Difference, Verdict, all_hold, directional, paired
from suites.language_modeling.claims._shared import Evidence, deciding, diff, interval, said, unjudged
from suites.language_modeling.depth import SOURCE_DEPTH
from suites.language_modeling.schedule import warmup_of
from suites.language_modeling.summary import Summary, depth_arm, field, spec_of

CLAIM = declared(__file__)


def part_verdicts(worse: Difference, helped: Difference | None) -> list[Verdict]:
    """The verdicts of the claim's parts at one depth: Post-LN without warm-up worse than Pre-LN (directional), and,
    where the control arm ran, the long warm-up better than Post-LN without (directional); the claim is their
    ``all_hold`` (its "disagrees" at 5% across the parts, Holm)."""
    return [directional(worse, +1)] + ([] if helped is None else [directional(helped, -1)])


def judge(ev: Evidence) -> Finding:
    """Post-LN against Pre-LN over every run (a trainability claim), where the baseline learned."""
    return unjudged(ev, CLAIM) or _post_ln(ev.everyone)


def _post_ln(s: Summary) -> Finding:
    """Xiong et al. 2020: Post-LN trains worse than Pre-LN without a long warm-up, judged at their depth.

    A trainability claim: every run counts at the perplexity it ended at (a diverged one at exp(unigram entropy));
    none is left out for not learning, since not learning is the effect. At each depth that ran (the profile's, and
    a ``depth<N>`` arm, depth.py) the judged Post-LN arm is the one with the least warm-up: ``post_ln+no_warmup``
    (the source's "without warm-up") against Pre-LN without warm-up (``no_warmup``, else that depth's baseline), or
    else Post-LN at the profile's warm-up against the baseline. Agrees when the judged arm is worse than Pre-LN (its
    paired interval excludes 0) and, when the control arm ran, the long warm-up makes Post-LN better than that arm.
    The verdict is the one at Xiong et al.'s depth (SOURCE_DEPTH) when it ran; the other depths are shown beside it,
    a trend in depth, not judged.
    """
    settings = s.df.iloc[0].profile_settings
    steps, warmup = settings.get("steps"), settings.get("warmup_steps")
    base_depth = s.base.get("n_layers")
    depths = sorted(
        {base_depth} | {int(spec_of(s, v).get("n_layers")) for v, a in s.arm.items() if a.endswith(" layers")}
    )
    results = {d: _post_ln_at(s, d, steps, warmup) for d in depths}
    results = {d: r for d, r in results.items() if r is not None}
    if not results:
        return not_run(CLAIM)
    judged = SOURCE_DEPTH if SOURCE_DEPTH in results else max(results)
    verdicts, estimates, texts, worse, helped = results[judged]
    verdict = all_hold(verdicts)
    # the spec's initialisation scheme; records of a spec without the field used GPT-2's N(0, 0.02) (version 3)
    init = s.base.get("init") or "gpt2"
    text = (
        f"Xiong et al. 2020: Post-LN needs a learning-rate warm-up and trains worse than Pre-LN without a long one, "
        f"in their {SOURCE_DEPTH} + {SOURCE_DEPTH}-layer models. Every run counts at the perplexity it ended at (a "
        f"collapse is this claim's outcome; exp(unigram entropy) = {s.collapse_ppl():.1f}); {init} initialisation. "
        f"At {judged} layers"
        + (
            " (the source's depth, judged)"
            if judged == SOURCE_DEPTH
            else f" (the deepest that ran; the source's {SOURCE_DEPTH} did not)"
        )
        + f": {texts}. This run {said(verdict).replace(' on whether', '')}."
    )
    others = [d for d in sorted(results) if d != judged]
    if others:
        text += _beside(results, judged, others)
        estimates = estimates + [results[d][3].estimate for d in others]
    # the part the verdict turns on (Post-LN worse; the long warm-up better), both directional: boundary 0
    parts = [(v, e, 0.0, sign) for v, e, sign in zip(verdicts, [worse.estimate, helped and helped.estimate], (+1, -1))]
    headline, boundary = deciding(parts), 0.0
    headline = estimates.index(helped.estimate) if headline == 1 else 0
    cause = "" if verdict == "agrees" else _post_ln_cause(worse, helped, verdicts, judged, settings, init)
    return finding(CLAIM, verdict, text, estimates, cause=cause, headline=headline, boundary=boundary)


def _beside(results: dict, judged: int, others: list[int]) -> str:
    """The trend in depth and the other depths' parts, shown beside the judged depth."""
    trend = "; ".join(
        f"{d} layers: `{results[d][3].estimate.label.split(' Δ')[0]}` {interval(results[d][3])}"
        for d in sorted(results)
    )
    return (
        f" In depth (Post-LN without warm-up against Pre-LN without, per depth; shown, the verdict is the "
        f"{judged}-layer one): {trend}. Beside the judged depth: "
        + " ".join(
            f"at {d} layers {results[d][2]} ({said(all_hold(results[d][0])).replace(' on whether', '')})."
            for d in others
        )
    )


def _post_ln_at(s: Summary, depth: int, steps: int, warmup: int):
    """At one depth: (part verdicts, estimates, sentence, Post-LN's paired Δ against Pre-LN, the long warm-up's Δ
    against Post-LN or None); None when no Post-LN arm ran at that depth."""
    arm = "" if depth == s.base.get("n_layers") else depth_arm(depth)

    def fraction(v):
        return field(s, v, "warmup_fraction")

    at = [v for v in s.family if s.arm.get(v) == arm]
    post = [v for v in at if s.family[v] == "norm placement" and field(s, v, "norm_placement") == "post"]
    none = [v for v in post if fraction(v) == 0]
    bare = [v for v in post if fraction(v) is None]
    long = [v for v in post if fraction(v)]
    pre_none = [v for v in at if s.family[v] == "warm-up" and fraction(v) == 0]
    main = (none or bare or [None])[0]
    baseline = s.baseline if not arm else s.reference.get(main) if main else None  # None: no baseline at this depth
    pre = pre_none[0] if (main in none and pre_none) else baseline
    if main is None or pre is None:
        return None
    main_warmup = warmup_of(spec_of(s, main), warmup, steps)
    pre_warmup = warmup_of(spec_of(s, pre), warmup, steps)
    base = s.outcome_ppl(pre)
    worse = paired(f"{main} Δ ppl vs {pre}", s.outcome_ppl(main), base, relative=True)
    verdicts = part_verdicts(worse, None)
    text = (
        f"`{main}` (warm-up {main_warmup} of {steps} steps) {_mean(s.outcome_ppl(main)):.3f} against Pre-LN "
        f"`{pre}` (warm-up {pre_warmup}) {_mean(base):.3f}, Δ ppl {interval(worse)} (worse: {verdicts[0]})"
    )
    estimates = [worse.estimate]
    if main in none and bare and baseline:
        shown = diff(s, bare[0], bare[0], s.outcome_ppl(bare[0]), s.outcome_ppl(baseline))
        text += (
            f"; `{bare[0]}` at the profile's warm-up ({warmup} steps) against `{baseline}` {interval(shown)} "
            f"(shown, not judged)"
        )
        estimates.append(shown.estimate)
    helped = None
    if long:
        lw = warmup_of(spec_of(s, long[0]), warmup, steps)
        helped = paired(f"{long[0]} Δ ppl vs {main}", s.outcome_ppl(long[0]), s.outcome_ppl(main), relative=True)
        verdicts = part_verdicts(worse, helped)
        text += (
            f"; with a long warm-up ({lw} of {steps} steps, `{long[0]}`) {_mean(s.outcome_ppl(long[0])):.3f}: "
            f"against `{main}` {interval(helped)} (better: {verdicts[1]})"
        )
        estimates.append(helped.estimate)
        if baseline and s.ppl.get(baseline):
            matched = diff(s, long[0], long[0], s.outcome_ppl(long[0]), s.outcome_ppl(baseline))
            text += f", against `{baseline}` {interval(matched)} (shown)"
            estimates.append(matched.estimate)
    else:
        text += (
            "; no control arm with a long warm-up ran at this depth (`post_ln+long_warmup"
            + (f"+depth{depth}" if arm else "")
            + "`)"
        )
    return verdicts, estimates, text, worse, helped


def _post_ln_cause(worse: Difference, helped, verdicts: list[str], depth: int, settings, init: str) -> str:
    where = (
        f"at {depth} layers ({init} initialisation, lr {settings.get('lr')}, gradient clipping "
        f"{settings.get('grad_clip')}; Xiong et al.: {SOURCE_DEPTH} + {SOURCE_DEPTH} layers, Xavier)"
    )
    if verdicts[0] != "agrees":
        state = (
            f"{worse.why()} (the records hold one seed of this arm)"
            if worse.no_verdict
            else "which does not count"
            if not worse.counts
            else "better, not worse"
        )
        return f"Post-LN without warm-up is {interval(worse)} against Pre-LN without, {state}, {where}."
    return f"the long warm-up's {interval(helped)} against Post-LN without does not make it better, {where}."


def _mean(values) -> float:
    vals = list(values.values()) if isinstance(values, dict) else list(values)
    return sum(vals) / len(vals) if vals else math.nan
