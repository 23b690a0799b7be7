"""The language_modeling verdicts: Vaswani et al. 2017's scorings, Ainslie et al. 2023's GQA, Xiong et al. 2020's Post-LN.

Every comparison is paired over seeds (harness/paired.py): the per-seed relative change of a variant's held-out
perplexity against its reference's, whose interval is the log-scale interval of the per-seed perplexity ratios
(harness/intervals.py: perplexities are positive, so it stays above -100%). Two kinds of claim, two ways with runs that learned nothing:

- claims about the *quality of trained models* (the scorings, GQA/MQA) compare only variants that learned and did
  not memorise (suites/common/learning.py): a model that learned nothing says nothing about its design's quality;
- the *trainability* claim (Post-LN without a long warm-up) is about whether a model trains at all, so a collapsed
  run is its outcome: it enters at its perplexity (a diverged run at exp(unigram entropy)), never left out.
"""

from __future__ import annotations

import math

import pandas as pd

from harness.findings import Finding, finding, not_run
from harness.paired import Difference, all_hold, directional, equivalent, paired
from harness.suite_file import SuiteFile
from suites.common.char_margin import TOLERANCE_PCT, derivation
from suites.common.learning import learning_checks, usable
from suites.language_modeling.deciding import deciding
from suites.language_modeling.depth import SOURCE_DEPTH
from suites.language_modeling.schedule import warmup_of
from suites.language_modeling.summary import Summary, depth_arm, field, spec_of, widening

#: the published findings this suite tests, in the order its report states them (suite.yaml)
SCORING, GROUPING, POST_LN = CLAIMS = SuiteFile.of(__file__).claims(
    "scorings_similar_small_dk", "gqa_keeps_mha_quality", "post_ln_trains_worse"
)

#: the equivalence tolerance of "similar" and "keeps quality", in % of per-character perplexity: the smallest change
#: Vaswani et al.'s Table 3 calls a loss, converted from nats per wordpiece to nats per character (suites/common/char_margin.py)
TOLERANCE = TOLERANCE_PCT


def findings(df: pd.DataFrame) -> list[Finding]:
    """This suite's verdicts on Vaswani et al.'s scorings, Ainslie et al.'s GQA and Xiong et al.'s Post-LN.

    The quality claims compare only variants that learned and did not memorise; without a usable baseline they
    are inconclusive (or not run, when no baseline ran). The Post-LN claim uses every run.
    """
    s = Summary(df)
    checks = learning_checks(df, "loss", float(df.iloc[0].profile_settings["train_len"]))
    kept = usable(checks)[0]
    if s.baseline not in kept:  # Pre-LN is also the trainability claim's control: without it no claim is tested
        why = checks[s.baseline].reason() if s.baseline in checks else "did not run"
        sentence = f"No verdict: the baseline `{s.baseline}` {why}, so no variant can be compared with it."
        verdict = "inconclusive" if s.baseline in checks else "not run"
        cause = f"the baseline {why}." if verdict == "inconclusive" else ""
        return [finding(claim, verdict, sentence, cause=cause) for claim in CLAIMS]
    learned = Summary(df[df.variant.isin(kept)])
    if math.isnan(learned.mean_ppl(learned.baseline)):
        sentence = "This run has no baseline perplexity, so it cannot be compared with the literature."
        return [finding(claim, "not run", sentence) for claim in CLAIMS]
    return [_scoring(learned, s), _grouping(learned, s), _post_ln(s)]


def _diff(s: Summary, v: str, label: str, values=None, ref_values=None) -> Difference:
    """The paired per-seed relative change (%) of v's perplexity against its reference's."""
    ref = s.reference.get(v)
    a = s.ppl.get(v, {}) if values is None else values
    b = s.ppl.get(ref, {}) if ref_values is None else ref_values
    return paired(f"{label} Δ ppl vs {ref or 'its reference'}", a, b, relative=True)


def _interval(d: Difference) -> str:
    e = d.estimate
    if math.isnan(e.value):
        return "no paired seeds"
    inside = f" [{e.low:+.1f}, {e.high:+.1f}]" if e.low is not None else ""
    return f"{e.value:+.1f}%{inside} (n={d.seeds})"


def _unlearned(s: Summary, everyone: Summary, family: str) -> list[str]:
    """Variants of a family that ran but are left out of the quality verdicts (did not learn or memorised)."""
    return sorted(v for v, f in everyone.family.items() if f == family and v not in s.family)


def _left_out_text(names: list[str]) -> str:
    return "no verdict, as " + ", ".join(f"`{v}`" for v in names) + " did not learn or memorised (see above)."


def _scorings(s: Summary, arm: str):
    """(the arm's baseline, [unscaled dot and additive variants]) of one arm ('' = the baseline's position)."""
    members = [
        v
        for v, f in s.family.items()
        if f == "scoring" and s.arm.get(v) == arm and field(s, v, "scoring") in ("dot", "additive")
    ]
    members.sort(key=lambda v: field(s, v, "scoring") != "dot")  # dot first
    refs = {s.reference.get(v) for v in members}
    return (refs.pop() if len(refs) == 1 else None), members


def _scoring(s: Summary, everyone: Summary) -> Finding:
    """Vaswani et al. 2017: at small d_k additive and (unscaled) dot-product scores are similar.

    "The two mechanisms" of their 3.2.1 are additive attention and dot-product attention, "identical to our algorithm,
    except for the scaling factor": the claim compares additive with the *unscaled* dot product, so that pair decides
    (an equivalence within TOLERANCE); each is also shown against the scaled dot product of the same positions. The
    main arm has absolute (sinusoidal) positions, as in Vaswani et al. and Britz et al.; the RoPE arm is reported beside
    it but does not decide: RoPE rotates q and k before the score, which keeps its relative-position property only for
    a dot product (Su et al. 2021), not for additive's MLP of q and k.
    """
    head = s.base["d_model"] // s.base["n_heads"]
    text = (
        "Vaswani et al. 2017 (3.2.1) find additive and dot-product attention (theirs without the 1/sqrt(d_k) "
        "scaling) similar for small key sizes d_k, and additive better than unscaled dot products at large d_k, why "
        f"they scale; their setting has sinusoidal absolute positions. Here d_k = {head}, a small key size; additive "
        f"against the unscaled dot product of the same positions, per-seed Δ perplexity with its 95% interval, "
        f"similar when the interval lies within {derivation()}; each also against the scaled dot product. "
    )
    main_ref, main = _scorings(s, "sinusoidal")
    _, rope = _scorings(s, "")
    rope_pair = _pair(s, rope)
    rope_diffs = [_diff(s, v, f"{v} (RoPE arm)") for v in rope] + ([rope_pair] if rope_pair else [])
    rope_text = (
        (
            "RoPE arm (second, not judged: RoPE's relative property holds only for dot products): "
            + ", ".join(f"{d.estimate.label} {_interval(d)}" for d in rope_diffs)
            + ". "
        )
        if rope
        else ""
    )
    pair = _pair(s, main)
    if pair is None:
        left = [v for v in _unlearned(s, everyone, "scoring") if everyone.arm.get(v) == "sinusoidal"]
        if "sinusoidal" in everyone.family and "sinusoidal" not in s.family:
            left = ["sinusoidal"] + left
        if left:
            return finding(
                SCORING,
                "inconclusive",
                text + "Sinusoidal arm: " + _left_out_text(left) + " " + rope_text,
                [d.estimate for d in rope_diffs],
                cause="the sinusoidal arm's models did not learn or memorised.",
            )
        return not_run(
            SCORING,
            text + rope_text + "This run lacks the sinusoidal arm's `sinusoidal+dot` and "
            "`sinusoidal+additive+naive`, the pair the claim is about.",
        )
    beside = [_diff(s, v, f"{v}") for v in main]
    verdict = equivalent(pair, TOLERANCE)
    text += (
        f"Sinusoidal arm (main): {pair.estimate.label} {_interval(pair)}: {verdict}; against the scaled dot "
        f"product `{main_ref}` ({s.mean_ppl(main_ref):.3f}): "
        + "; ".join(f"{v} {_interval(d)}" for v, d in zip(main, beside))
        + ". "
        + rope_text
        + f"This run {_said(verdict)} that the scorings are similar at small d_k."
    )
    cause = ""
    if verdict != "agrees":
        missing = [v for v in main if math.isnan(s.mean_ppl(v))]
        cause = (
            f"{', '.join(missing)} has no perplexity to compare ({s.status(missing[0])})."
            if missing
            else f"with sinusoidal positions additive changes perplexity against the unscaled dot product by "
            f"{_interval(pair)}, "
            + ("beyond" if verdict == "disagrees" else "not resolved within")
            + f" the ±{TOLERANCE:.2f}% tolerance at this size and budget."
        )
    return finding(
        SCORING,
        verdict,
        text,
        [pair.estimate] + [d.estimate for d in beside + rope_diffs],
        cause=cause,
        boundary=_edge(pair, TOLERANCE),
    )


def _edge(d: Difference, tolerance: float) -> float:
    """The side of an equivalence's ±tolerance its interval must clear: the one nearer the estimate."""
    return tolerance if d.estimate.value >= 0 else -tolerance


def _pair(s: Summary, members: list[str]):
    """Additive against the unscaled dot product of one arm (members: [dot, additive]), or None without both."""
    kinds = {field(s, v, "scoring"): v for v in members}
    if not ("dot" in kinds and "additive" in kinds):
        return None
    dot, add = kinds["dot"], kinds["additive"]
    return paired(f"{add} Δ ppl vs {dot}", s.ppl.get(add, {}), s.ppl.get(dot, {}), relative=True)


def _said(verdict: str) -> str:
    return {"agrees": "agrees", "disagrees": "disagrees", "inconclusive": "is inconclusive on whether"}.get(
        verdict, verdict
    )


def _grouping(s: Summary, everyone: Summary) -> Finding:
    """Ainslie et al. 2023: GQA keeps MHA's quality (equivalence within TOLERANCE) and MQA loses a little (MQA
    worse than MHA, a directional claim that needs the difference to count); both must hold."""
    groups = {v: field(s, v, "n_kv_heads") for v, f in s.family.items() if f == "head grouping" and not s.arm.get(v)}
    unmatched = {v for v in groups if (widening(spec_of(s, v), s.base) or "").startswith("unmatched")}
    mqa = sorted((v for v, g in groups.items() if g == 1), key=lambda v: v in unmatched)  # matched ones first
    gqa = sorted((v for v, g in groups.items() if g not in (None, 1)), key=lambda v: v in unmatched)
    text = (
        "Ainslie et al. 2023 (T5-XXL, average score, higher is better): MHA 47.2, GQA-8 47.1, MQA 46.6, i.e. grouped "
        "key/value heads keep nearly all of MHA's quality and a single one loses a little (their models are uptrained "
        "from MHA checkpoints; here each is trained from scratch, its FFN widened to the baseline's parameter count "
        "unless marked unmatched above). "
    )
    if not (mqa and gqa):
        left = _unlearned(s, everyone, "head grouping")
        if left:
            return finding(
                GROUPING,
                "inconclusive",
                text + _left_out_text(left)[0].upper() + _left_out_text(left)[1:],
                cause="a grouped variant did not learn or memorised.",
            )
        return not_run(GROUPING, text + "This run lacks a GQA or MQA variant to compare.")
    g, m = _diff(s, gqa[0], gqa[0]), _diff(s, mqa[0], mqa[0])
    keeps, loses = equivalent(g, TOLERANCE), directional(m, +1)
    verdict = all_hold([keeps, loses])
    text += (
        f"Here, per-seed Δ perplexity against MHA ({s.mean_ppl(s.baseline):.3f}): {gqa[0]} {_interval(g)} "
        f"(equivalent within ±{TOLERANCE:.2f}%, the source's step per character: {keeps}), {mqa[0]} {_interval(m)} (worse than MHA: {loses}); this run "
        + {"agrees": "agrees.", "disagrees": "disagrees.", "inconclusive": "is inconclusive."}.get(
            verdict, verdict + "."
        )
    )
    cause = ""
    if verdict != "agrees":
        why = []
        if keeps != "agrees":
            why.append(
                f"{gqa[0]}'s {_interval(g)} is "
                + (
                    f"a loss beyond ±{TOLERANCE:.2f}%"
                    if keeps == "disagrees"
                    else f"not resolved within ±{TOLERANCE:.2f}% (its interval reaches past it)"
                )
            )
        if loses != "agrees":
            why.append(f"{mqa[0]}'s {_interval(m)} " + ("does not count" if not m.counts else "is not a loss"))
        cause = "; ".join(why) + f" over {g.seeds} paired seeds."
    # the headline is the part the verdict turns on: a refuted part, else the undecided part that needs more seeds
    parts = [(keeps, g.estimate, _edge(g, TOLERANCE), None), (loses, m.estimate, 0.0, +1)]
    head = deciding(parts)
    return finding(
        GROUPING, verdict, text, [g.estimate, m.estimate], cause=cause, headline=head, boundary=parts[head][2]
    )


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
        return not_run(POST_LN)
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
        + f": {texts}. This run {_said(verdict).replace(' on whether', '')}."
    )
    others = [d for d in sorted(results) if d != judged]
    if others:
        trend = "; ".join(
            f"{d} layers: `{results[d][3].estimate.label.split(' Δ')[0]}` {_interval(results[d][3])}"
            for d in sorted(results)
        )
        text += (
            f" In depth (Post-LN without warm-up against Pre-LN without, per depth; shown, the verdict is the "
            f"{judged}-layer one): {trend}. Beside the judged depth: "
            + " ".join(
                f"at {d} layers {results[d][2]} ({_said(all_hold(results[d][0])).replace(' on whether', '')})."
                for d in others
            )
        )
        estimates = estimates + [results[d][3].estimate for d in others]
    # the part the verdict turns on (Post-LN worse; the long warm-up better), both directional: boundary 0
    parts = [(v, e, 0.0, sign) for v, e, sign in zip(verdicts, [worse.estimate, helped and helped.estimate], (+1, -1))]
    headline, boundary = deciding(parts), 0.0
    headline = estimates.index(helped.estimate) if headline == 1 else 0
    cause = "" if verdict == "agrees" else _post_ln_cause(worse, helped, verdicts, judged, settings, init)
    return finding(POST_LN, verdict, text, estimates, cause=cause, headline=headline, boundary=boundary)


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
    verdicts = [directional(worse, +1)]
    text = (
        f"`{main}` (warm-up {main_warmup} of {steps} steps) {_mean(s.outcome_ppl(main)):.3f} against Pre-LN "
        f"`{pre}` (warm-up {pre_warmup}) {_mean(base):.3f}, Δ ppl {_interval(worse)} (worse: {verdicts[0]})"
    )
    estimates = [worse.estimate]
    if main in none and bare and baseline:
        shown = _diff(s, bare[0], bare[0], s.outcome_ppl(bare[0]), s.outcome_ppl(baseline))
        text += (
            f"; `{bare[0]}` at the profile's warm-up ({warmup} steps) against `{baseline}` {_interval(shown)} "
            f"(shown, not judged)"
        )
        estimates.append(shown.estimate)
    helped = None
    if long:
        lw = warmup_of(spec_of(s, long[0]), warmup, steps)
        helped = paired(f"{long[0]} Δ ppl vs {main}", s.outcome_ppl(long[0]), s.outcome_ppl(main), relative=True)
        verdicts.append(directional(helped, -1))
        text += (
            f"; with a long warm-up ({lw} of {steps} steps, `{long[0]}`) {_mean(s.outcome_ppl(long[0])):.3f}: "
            f"against `{main}` {_interval(helped)} (better: {verdicts[1]})"
        )
        estimates.append(helped.estimate)
        if baseline and s.ppl.get(baseline):
            matched = _diff(s, long[0], long[0], s.outcome_ppl(long[0]), s.outcome_ppl(baseline))
            text += f", against `{baseline}` {_interval(matched)} (shown)"
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
        return f"Post-LN without warm-up is {_interval(worse)} against Pre-LN without, {state}, {where}."
    return f"the long warm-up's {_interval(helped)} against Post-LN without does not make it better, {where}."


def _mean(values) -> float:
    vals = list(values.values()) if isinstance(values, dict) else list(values)
    return sum(vals) / len(vals) if vals else math.nan


# the verdict on multi-head latent attention (suites/language_modeling/mla_claims.py), after these
from suites.language_modeling.mla_claims import extend  # noqa: E402

CLAIMS, findings = extend(CLAIMS, findings)
