"""The language_modeling verdicts: Vaswani et al. 2017's scorings, Ainslie et al. 2023's GQA, Xiong et al. 2020's Post-LN."""

from __future__ import annotations

import math
from typing import List

import pandas as pd

from harness.suite_file import SuiteFile
from harness.findings import Estimate, Finding, finding, not_run
from harness.report_kit import metric, worse
from suites.common.learning import learning_checks, usable
from suites.language_modeling.summary import SIMILAR, Summary, cmp, field, spec_of, widening

#: the published findings this suite tests, in the order its report states them (suite.yaml)
SCORING, GROUPING, POST_LN = CLAIMS = SuiteFile.of(__file__).claims(
    "scorings_similar_small_dk", "gqa_keeps_mha_quality", "post_ln_trains_worse")


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on Vaswani et al.'s scorings, Ainslie et al.'s GQA and Xiong et al.'s Post-LN.

    Only variants that learned and did not memorise are compared; without a usable baseline every claim is
    inconclusive (or not run, when no baseline ran), with one sentence saying why.
    """
    s = Summary(df)
    checks = learning_checks(df, "loss", float(df.iloc[0].profile_settings["train_len"]))
    kept = usable(checks)[0]
    if s.baseline not in kept:
        why = checks[s.baseline].reason() if s.baseline in checks else "did not run"
        sentence = f"No verdict: the baseline `{s.baseline}` {why}, so no variant can be compared with it."
        verdict = "inconclusive" if s.baseline in checks else "not run"
        return [finding(claim, verdict, sentence) for claim in CLAIMS]
    learned = Summary(df[df.variant.isin(kept)])
    if math.isnan(learned.mean_ppl(learned.baseline)):
        sentence = "This run has no baseline perplexity, so it cannot be compared with the literature."
        return [finding(claim, "not run", sentence) for claim in CLAIMS]
    return [_scoring(learned, s), _grouping(learned, s), _post_ln(learned, s)]


def _delta(s: Summary, v: str, label: str) -> Estimate:
    """The paired per-seed change of a variant's perplexity against the baseline's, in %."""
    return Estimate.of(f"{label} Δ ppl vs baseline", s.ppl_delta_pct(v), "%")


def _unlearned(s: Summary, everyone: Summary, family: str) -> List[str]:
    """Variants of a family that ran but are left out of the verdicts (did not learn or memorised)."""
    return sorted(v for v, f in everyone.family.items() if f == family and v not in s.family)


def _left_out_text(names: List[str]) -> str:
    return ("no verdict, as " + ", ".join(f"`{v}`" for v in names)
            + " did not learn or memorised (see above).")


def _base_txt(s: Summary) -> str:
    return f"baseline (scaled_dot) {s.mean_ppl(s.baseline):.3f}"


def _scoring(s: Summary, everyone: Summary) -> Finding:
    """Vaswani et al. 2017: at small d_k the scorings are similar (agrees when every change is within SIMILAR)."""
    head = s.base["d_model"] // s.base["n_heads"]
    dot = [v for v, f in s.family.items() if f == "scoring" and "dot" == field(s, v, "scoring")]
    add = [v for v, f in s.family.items() if f == "scoring" and "additive" == field(s, v, "scoring")]
    text = ("Vaswani et al. 2017 (3.2.1) find additive and dot-product attention similar for small key sizes d_k, and "
            "additive better than unscaled dot products at large d_k, which is why they scale by 1/sqrt(d_k); their "
            "Table 3 (En-De dev, base 25.8 BLEU, PPL 4.92) moves BLEU by at most 0.9 across head counts (1 head 24.9, 16 "
            f"heads 25.8, 32 heads 25.4) and key size (d_k 16: 25.1). Here d_k = {head}, a small key size: ")
    if not dot and not add:
        left = [v for v in _unlearned(s, everyone, "scoring") if field(everyone, v, "scoring") in ("dot", "additive")]
        if left:
            return finding(SCORING, "inconclusive", text + _left_out_text(left))
        return not_run(SCORING, text + "this run has no unscaled-dot or additive variant to compare.")
    parts = [f"{v} {cmp(s, v)[1]} ({100 * cmp(s, v)[0]:+.1f}%)" for v in dot + add]
    deltas = [abs(cmp(s, v)[0]) for v in dot + add if not math.isnan(cmp(s, v)[0])]
    agrees = bool(deltas) and max(deltas) <= SIMILAR
    text += (f"{_base_txt(s)} vs " + ", ".join(parts) + ". This run " +
             ("agrees: at small d_k the scorings are within " if agrees else "does not show the scorings as similar: "
              "the largest change exceeds ") + f"{SIMILAR:.0%} of the baseline.")
    verdict = "agrees" if agrees else ("disagrees" if deltas else "inconclusive")
    return finding(SCORING, verdict, text, [_delta(s, v, v) for v in dot + add])


def _grouping(s: Summary, everyone: Summary) -> Finding:
    """Ainslie et al. 2023: GQA keeps MHA's quality, MQA loses a little (agrees: GQA within SIMILAR and no worse than MQA)."""
    groups = {v: field(s, v, "n_kv_heads") for v, f in s.family.items() if f == "head grouping"}
    unmatched = {v for v in groups if (widening(spec_of(s, v), s.base) or "").startswith("unmatched")}
    mqa = sorted((v for v, g in groups.items() if g == 1), key=lambda v: v in unmatched)  # matched ones first
    gqa = sorted((v for v, g in groups.items() if g not in (None, 1)), key=lambda v: v in unmatched)
    text = ("Ainslie et al. 2023 (T5-XXL, average score, higher is better): MHA 47.2, GQA-8 47.1, MQA 46.6, i.e. grouped "
            "key/value heads keep nearly all of MHA's quality and a single one loses a little (their models are uptrained "
            "from MHA checkpoints; here each is trained from scratch, its FFN widened to the baseline's parameter count "
            "unless marked unmatched above). ")
    if not (mqa and gqa):
        left = _unlearned(s, everyone, "head grouping")
        if left:
            return finding(GROUPING, "inconclusive", text + _left_out_text(left)[0].upper() + _left_out_text(left)[1:])
        return not_run(GROUPING, text + "This run lacks a GQA or MQA variant to compare.")
    g, m = cmp(s, gqa[0]), cmp(s, mqa[0])
    agrees = not math.isnan(g[0]) and not math.isnan(m[0]) and g[0] <= m[0] and g[0] <= SIMILAR
    text += (f"Here {_base_txt(s)} (MHA), {gqa[0]} {g[1]} ({100 * g[0]:+.1f}%), {mqa[0]} {m[1]} ({100 * m[0]:+.1f}%): this run "
             + ("agrees (GQA at most " + f"{SIMILAR:.0%} worse than MHA, and no worse than MQA)." if agrees else
                "does not reproduce the ordering MHA ≈ GQA ≤ MQA in perplexity at this size."))
    missing = math.isnan(g[0]) or math.isnan(m[0])
    verdict = "agrees" if agrees else ("inconclusive" if missing else "disagrees")
    return finding(GROUPING, verdict, text, [_delta(s, gqa[0], gqa[0]), _delta(s, mqa[0], mqa[0])])


def _post_ln(s: Summary, everyone: Summary) -> Finding:
    """Xiong et al. 2020: Post-LN trains worse than Pre-LN without a long warm-up (agrees: it diverged or is worse)."""
    post = [v for v, f in s.family.items() if f == "norm placement" and field(s, v, "norm_placement") == "post"]
    if not post:
        left = [v for v in _unlearned(s, everyone, "norm placement") if field(everyone, v, "norm_placement") == "post"]
        if left:
            return finding(POST_LN, "inconclusive", "Xiong et al. 2020: Post-LN trains worse than Pre-LN without a long "
                           "warm-up; " + _left_out_text(left))
        return not_run(POST_LN)
    change, shown = cmp(s, post[0])
    # worse by the metric's direction (perplexity: lower is better)
    is_worse = s.status(post[0]) == "diverged" or (not math.isnan(change) and worse(
        metric("language_modeling", "perplexity"), s.mean_ppl(post[0]), s.mean_ppl(s.baseline)))
    text = (f"Xiong et al. 2020: Post-LN needs a learning-rate warm-up and trains worse than Pre-LN without a long one "
            f"(here {s.df.iloc[0].profile_settings['warmup_steps']} warm-up steps). {_base_txt(s)} (Pre-LN) vs {post[0]} {shown}"
            + ("" if math.isnan(change) else f" ({100 * change:+.1f}%)") + ": this run "
            + ("agrees (Post-LN is worse)." if is_worse else "does not show Post-LN worse at this size and warm-up."))
    verdict = "agrees" if is_worse else ("inconclusive" if math.isnan(change) else "disagrees")
    return finding(POST_LN, verdict, text, [_delta(s, post[0], post[0])])
