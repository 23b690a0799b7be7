"""The language_modeling report: setup, one table per variant family against the shared baseline, a figure
of perplexity against parameters, and the comparison with Vaswani et al. 2017 and Ainslie et al. 2023."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run, sentences
from harness.report import fmt_mean_ci, markdown_table, mean_ci
from suites.common.learning import learning_checks, learning_section, usable
from suites.language_modeling.figure import perplexity_figure
from harness.groups import code_line

#: which family a variant belongs to, by the spec field it changes (the kernel never changes quality)
FAMILY_OF_FIELD = {"scoring": "scoring", "n_kv_heads": "head grouping", "norm_placement": "norm placement",
                   "norm": "norm type", "ffn": "FFN", "d_ff": "FFN", "position": "position"}
FAMILY_ORDER = ("scoring", "head grouping", "norm placement", "norm type", "FFN", "position", "kernel", "combined")
SCORING = Claim(
    "scorings_similar_small_dk", "language_modeling", "At small d_k additive and dot-product scores are similar",
    "Vaswani et al. 2017 (arXiv 1706.03762, 3.2.1)",
    "similar at small d_k; Table 3 moves BLEU by at most 0.9 (25.8 base) across head counts and key sizes",
    ("baseline", "dot", "additive+naive"))
GROUPING = Claim(
    "gqa_keeps_mha_quality", "language_modeling", "GQA keeps MHA quality; MQA loses a little",
    "Ainslie et al. 2023 (arXiv 2305.13245)", "T5-XXL average score: MHA 47.2, GQA-8 47.1, MQA 46.6",
    ("baseline", "gqa2", "mqa"))
POST_LN = Claim(
    "post_ln_trains_worse", "language_modeling", "Post-LN trains worse than Pre-LN without a long warm-up",
    "Xiong et al. 2020 (arXiv 2002.04745)", "Post-LN BLEU 8.45 without warm-up vs ~34 with 4000 steps (IWSLT14 De-En)",
    ("baseline", "post_ln"))
CLAIMS = (SCORING, GROUPING, POST_LN)
#: a variant whose parameter count differs from the baseline's by more than this is flagged
PARAM_TOLERANCE = 0.10
#: perplexity differences within this fraction of the baseline count as "about the same"
SIMILAR = 0.03


def family_of(spec: Dict, base: Dict) -> str:
    """The family of a spec relative to the baseline spec: the axis it changes ('baseline' when none)."""
    changed = {k for k in spec if spec[k] != base.get(k)}
    if not changed:
        return "baseline"
    axes = changed - {"kernel"}
    if not axes:
        return "kernel"
    if "n_kv_heads" in axes:  # a grouped variant's FFN widened to match parameters (variants/param_match.py)
        axes.discard("d_ff")
    families = {FAMILY_OF_FIELD.get(k, "combined") for k in axes}
    return families.pop() if len(families) == 1 else "combined"


def _baseline_spec(df: pd.DataFrame) -> Dict:
    rows = df[df.variant == "baseline"]
    if len(rows):
        return rows.iloc[0].spec
    from variants.spec import TransformerSpec

    default = TransformerSpec().to_dict()
    spec = dict(df.iloc[0].spec)
    spec.update({k: default[k] for k in FAMILY_OF_FIELD if k in default})
    spec["kernel"] = default["kernel"]
    return spec


def ffn_width(spec: Dict) -> int:
    """The FFN hidden size d_ff a stored spec builds (None means 4 x d_model)."""
    return spec.get("d_ff") or 4 * spec["d_model"]


def widening(spec: Dict, base: Dict) -> Optional[str]:
    """How a grouped (gqa<g>/mqa) variant's FFN relates to the baseline's: widened to match, or unmatched; else None."""
    if spec.get("n_kv_heads") in (None, spec.get("n_heads")) or spec.get("n_kv_heads") == base.get("n_kv_heads"):
        return None
    if ffn_width(spec) != ffn_width(base):
        return f"matched: d_ff widened to {ffn_width(spec)} (baseline {ffn_width(base)})"
    return f"unmatched: d_ff kept at {ffn_width(spec)}"


def _per_seed(ok: pd.DataFrame, variant: str, metric: str) -> Dict[int, float]:
    rows = ok[(ok.variant == variant) & (ok.metric == metric)]
    return {int(r.seed): float(r.value) for r in rows.itertuples()}


def _fmt_count(n: Optional[float]) -> str:
    if n is None or (isinstance(n, float) and math.isnan(n)):
        return "-"
    for unit, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.3g}{unit}"
    return f"{n:.0f}"


class Summary:
    """Per-variant numbers the tables, verdicts and figure share."""

    def __init__(self, df: pd.DataFrame):
        self.df, self.ok = df, df[df.status == "ok"]
        self.base = _baseline_spec(df)
        specs = df.drop_duplicates("variant").set_index("variant").spec
        self.family = {v: family_of(specs[v], self.base) for v in specs.index}
        base_names = [v for v, f in self.family.items() if f == "baseline"]
        self.baseline = "baseline" if "baseline" in base_names else (base_names[0] if base_names else None)
        self.params = {v: self._fact(v, "parameters") for v in specs.index}
        self.ppl = {v: _per_seed(self.ok, v, "perplexity") for v in specs.index}
        self.flops = {v: mean_ci(_per_seed(self.ok, v, "train_flops").values())[0] for v in specs.index}

    def _fact(self, variant: str, column: str) -> Optional[float]:
        if column not in self.ok:
            return None
        vals = self.ok[self.ok.variant == variant][column].dropna()
        return float(vals.iloc[0]) if len(vals) else None

    def mean_ppl(self, v: str) -> float:
        return mean_ci(self.ppl.get(v, {}).values())[0] if v else math.nan

    def param_delta(self, v: str) -> Optional[float]:
        b, p = self.params.get(self.baseline), self.params.get(v)
        return None if b is None or p is None else (p - b) / b

    def ppl_delta_pct(self, v: str) -> List[float]:
        """Per-seed (ppl_v / ppl_baseline - 1) x 100 over the seeds both ran."""
        base = self.ppl.get(self.baseline, {})
        return [100 * (p / base[s] - 1) for s, p in self.ppl.get(v, {}).items() if s in base]

    def status(self, v: str) -> str:
        bad = self.df[(self.df.variant == v) & (self.df.status != "ok")]
        return bad.status.iloc[0] if len(bad) else "-"


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> List[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    s = Summary(df)
    first = s.ok.iloc[0] if len(s.ok) else df.iloc[0]  # skipped records carry no job facts
    settings, spec = first.profile_settings, s.base
    seeds = sorted(int(x) for x in df.seed.unique())
    backends = s.ok.drop_duplicates("variant").set_index("variant").get("attention_backend", pd.Series(dtype=str))
    lines = [f"# Language modelling ({suite.name}, suite version {first.suite_version})", "",
             suite.description.strip().splitlines()[0], "", "## Setup", "",
             f"- Model: decoder-only character Transformer, {spec['n_layers']} layers, d_model {spec['d_model']}, "
             f"{spec['n_heads']} heads (head size {spec['d_model'] // spec['n_heads']}), tied embeddings, position "
             f"{spec['position']}. Baseline: scoring {spec['scoring']}, {spec['n_kv_heads'] or spec['n_heads']} key/value heads, "
             f"{spec['norm_placement']}-norm {spec['norm']}, FFN {spec['ffn']}, kernel {spec['kernel']}.",
             f"- Training: {settings['steps']} steps of {settings['batch_size']} x {settings['train_len']} characters, AdamW lr "
             f"{settings['lr']:g} (warm-up {settings['warmup_steps']} steps, cosine decay), weight decay {settings['weight_decay']:g}, "
             f"gradient clipping {settings['grad_clip']:g}; profile `{first.profile}`; seeds {seeds}.",
             f"- Evaluation: perplexity per character on {int(first.get('eval_chars') or 0):,} held-out characters of "
             f"{first.get('corpus', '?')} (sha256 {str(first.data_checksum)[:16]}...; "
             f"{first.get('split') or 'last ' + format(settings['heldout_fraction'], '.0%') + ' held out'}; training split "
             f"{int(first.get('train_chars') or 0):,} characters, read {float(first.get('train_passes') or 0):.2f} times) in "
             f"**non-overlapping** windows of the training length {settings['train_len']}.",
             "- Training FLOPs: torch.utils.flop_counter.FlopCounterMode on one training step (forward and backward) x steps, "
             "counted on a copy of the model with the `naive` kernel (the counter cannot see inside fused CPU kernels); "
             "matrix products only, so elementwise work (softmax, norms, activations, additive attention's tanh) is not counted, "
             "and the full T x T score matrix is counted, masked half included.",
             "- Attention implementation per variant (as dispatched): "
             + ", ".join(f"{v} {backends[v]}" for v in backends.index) + ".",
             f"- Device: {first.device} ({first.device_name}), {first['dtype']}, torch {first.torch_version}, flush denormals "
             f"{first.get('flush_denormal')}, threads {first.get('num_threads')}; {code_line(df)}.", ""]

    lines += [f"## Perplexity by family (mean ± 95% interval over seeds; each family against the shared baseline)", "",
              f"Δ ppl is the per-seed relative change against the baseline of the same seed. A variant whose parameter count "
              f"differs from the baseline's by more than {PARAM_TOLERANCE:.0%} is flagged: its comparison is not at equal budget. "
              "Grouped key/value heads (gqa<g>, mqa) remove K/V projection parameters, so by default their FFN is widened "
              "until the model is within 2% of the baseline's count; the budget column gives the d_ff, and a `+unmatched` "
              "variant keeps the default FFN.", ""]
    families = [f for f in FAMILY_ORDER if f in s.family.values()]
    for fam in families:
        members = [s.baseline] + sorted(v for v, f in s.family.items() if f == fam) if s.baseline else sorted(
            v for v, f in s.family.items() if f == fam)
        lines += [f"### {fam}", "", markdown_table(pd.DataFrame([_row(s, v) for v in members])), ""]
    if not families:
        lines += [markdown_table(pd.DataFrame([_row(s, v) for v in s.family])), ""]
    reasons = df[df.status != "ok"].drop_duplicates(["variant", "status", "reason"])
    if len(reasons):
        lines += ["Cells that are not numbers:", ""] + [f"- `{r.variant}`: {r.status}: {r.reason}" for r in reasons.itertuples()] + [""]

    figure = perplexity_figure(s, out_dir / "figures" / f"{suite.name}.png", FAMILY_ORDER, PARAM_TOLERANCE)
    lines += ["## Perplexity against parameters", "", f"![held-out perplexity against parameter count](figures/{figure.name})", ""]
    checks = learning_checks(df, "loss", float(settings["train_len"]))
    lines += learning_section(checks, [s.baseline] + sorted(v for v in s.family if v != s.baseline) if s.baseline else None)
    left_out = usable(checks)[1]
    lines += (["## Against the published findings", "", _seed_note(s), ""] + ([left_out, ""] if left_out else [])
              + [f"- {t}" for t in sentences(findings(df))] + [""])
    path = out_dir / f"{suite.name}.md"
    path.write_text("\n".join(lines))
    return [path, figure]


def _row(s: Summary, v: str) -> Dict[str, str]:
    delta = s.param_delta(v)
    flagged = delta is not None and abs(delta) > PARAM_TOLERANCE
    widened = widening(_spec(s, v), s.base)
    ppl = s.ppl.get(v, {})
    deltas = s.ppl_delta_pct(v) if v != s.baseline else []
    return {
        "variant": v,
        "parameters": _fmt_count(s.params.get(v)),
        "Δ params": "-" if delta is None or v == s.baseline else f"{100 * delta:+.1f}%",
        "training FLOPs": _fmt_count(s.flops.get(v)),
        "held-out ppl": fmt_mean_ci(ppl.values(), 3) if ppl else s.status(v),
        "Δ ppl vs baseline": _fmt_pct(deltas),
        "budget": _budget(delta if flagged else None, widened),
    }


def _budget(flagged_delta: Optional[float], widened: Optional[str]) -> str:
    """'matched', 'flagged: params -12% vs baseline', and for gqa<g>/mqa the FFN width it was compared at."""
    flag = None if flagged_delta is None else f"flagged: params {100 * flagged_delta:+.0f}% vs baseline"
    if widened is None:
        return flag or "matched"
    return f"{flag}; {widened}" if flag else widened


def _fmt_pct(values: List[float]) -> str:
    """'+1.2% ± 0.4 (n=3)' of per-seed percentage changes, '+1.2% (n=1)' for one seed, '-' for none."""
    mean, half, n = mean_ci(values)
    if n == 0:
        return "-"
    return f"{mean:+.1f}%" + ("" if math.isnan(half) else f" ± {half:.1f}") + f" (n={n})"


def _cmp(s: Summary, v: str) -> Tuple[float, str]:
    """(relative ppl change vs baseline, 'ppl X (n=k)') of a variant; NaN when missing."""
    m, b = s.mean_ppl(v), s.mean_ppl(s.baseline)
    n = len(s.ppl.get(v, {}))
    return (m / b - 1 if b and not math.isnan(m) else math.nan), (f"{m:.3f} (n={n})" if n else f"{s.status(v)}")


def _seed_note(s: Summary) -> str:
    """How much weight the verdicts below can bear, from the number of seeds and the baseline's spread."""
    base = list(s.ppl.get(s.baseline, {}).values())
    if len(base) < 2:
        return ("Each verdict rests on one seed per variant, which cannot separate a difference of a few percent from "
                "seed-to-seed noise; run the standard profile (3 seeds) before trusting the small differences.")
    mean, half, n = mean_ci(base)
    return (f"The baseline's 95% interval over {n} seeds is ±{100 * half / mean:.1f}% of its perplexity; differences "
            "smaller than that are within seed-to-seed noise.")


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
    dot = [v for v, f in s.family.items() if f == "scoring" and "dot" == _field(s, v, "scoring")]
    add = [v for v, f in s.family.items() if f == "scoring" and "additive" == _field(s, v, "scoring")]
    text = ("Vaswani et al. 2017 (3.2.1) find additive and dot-product attention similar for small key sizes d_k, and "
            "additive better than unscaled dot products at large d_k, which is why they scale by 1/sqrt(d_k); their "
            "Table 3 (En-De dev, base 25.8 BLEU, PPL 4.92) moves BLEU by at most 0.9 across head counts (1 head 24.9, 16 "
            f"heads 25.8, 32 heads 25.4) and key size (d_k 16: 25.1). Here d_k = {head}, a small key size: ")
    if not dot and not add:
        left = [v for v in _unlearned(s, everyone, "scoring") if _field(everyone, v, "scoring") in ("dot", "additive")]
        if left:
            return finding(SCORING, "inconclusive", text + _left_out_text(left))
        return not_run(SCORING, text + "this run has no unscaled-dot or additive variant to compare.")
    parts = [f"{v} {_cmp(s, v)[1]} ({100 * _cmp(s, v)[0]:+.1f}%)" for v in dot + add]
    deltas = [abs(_cmp(s, v)[0]) for v in dot + add if not math.isnan(_cmp(s, v)[0])]
    agrees = bool(deltas) and max(deltas) <= SIMILAR
    text += (f"{_base_txt(s)} vs " + ", ".join(parts) + ". This run " +
             ("agrees: at small d_k the scorings are within " if agrees else "does not show the scorings as similar: "
              "the largest change exceeds ") + f"{SIMILAR:.0%} of the baseline.")
    verdict = "agrees" if agrees else ("disagrees" if deltas else "inconclusive")
    return finding(SCORING, verdict, text, [_delta(s, v, v) for v in dot + add])


def _grouping(s: Summary, everyone: Summary) -> Finding:
    """Ainslie et al. 2023: GQA keeps MHA's quality, MQA loses a little (agrees: GQA within SIMILAR and no worse than MQA)."""
    groups = {v: _field(s, v, "n_kv_heads") for v, f in s.family.items() if f == "head grouping"}
    unmatched = {v for v in groups if (widening(_spec(s, v), s.base) or "").startswith("unmatched")}
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
    g, m = _cmp(s, gqa[0]), _cmp(s, mqa[0])
    agrees = not math.isnan(g[0]) and not math.isnan(m[0]) and g[0] <= m[0] and g[0] <= SIMILAR
    text += (f"Here {_base_txt(s)} (MHA), {gqa[0]} {g[1]} ({100 * g[0]:+.1f}%), {mqa[0]} {m[1]} ({100 * m[0]:+.1f}%): this run "
             + ("agrees (GQA at most " + f"{SIMILAR:.0%} worse than MHA, and no worse than MQA)." if agrees else
                "does not reproduce the ordering MHA ≈ GQA ≤ MQA in perplexity at this size."))
    missing = math.isnan(g[0]) or math.isnan(m[0])
    verdict = "agrees" if agrees else ("inconclusive" if missing else "disagrees")
    return finding(GROUPING, verdict, text, [_delta(s, gqa[0], gqa[0]), _delta(s, mqa[0], mqa[0])])


def _post_ln(s: Summary, everyone: Summary) -> Finding:
    """Xiong et al. 2020: Post-LN trains worse than Pre-LN without a long warm-up (agrees: it diverged or is worse)."""
    post = [v for v, f in s.family.items() if f == "norm placement" and _field(s, v, "norm_placement") == "post"]
    if not post:
        left = [v for v in _unlearned(s, everyone, "norm placement") if _field(everyone, v, "norm_placement") == "post"]
        if left:
            return finding(POST_LN, "inconclusive", "Xiong et al. 2020: Post-LN trains worse than Pre-LN without a long "
                           "warm-up; " + _left_out_text(left))
        return not_run(POST_LN)
    change, shown = _cmp(s, post[0])
    worse = s.status(post[0]) == "diverged" or (not math.isnan(change) and change > 0)
    text = (f"Xiong et al. 2020: Post-LN needs a learning-rate warm-up and trains worse than Pre-LN without a long one "
            f"(here {s.df.iloc[0].profile_settings['warmup_steps']} warm-up steps). {_base_txt(s)} (Pre-LN) vs {post[0]} {shown}"
            + ("" if math.isnan(change) else f" ({100 * change:+.1f}%)") + ": this run "
            + ("agrees (Post-LN is worse)." if worse else "does not show Post-LN worse at this size and warm-up."))
    verdict = "agrees" if worse else ("inconclusive" if math.isnan(change) else "disagrees")
    return finding(POST_LN, verdict, text, [_delta(s, post[0], post[0])])


def _spec(s: Summary, variant: str) -> Dict:
    rows = s.df[s.df.variant == variant]
    return rows.iloc[0].spec if len(rows) else {}


def _field(s: Summary, variant: str, key: str):
    rows = s.df[s.df.variant == variant]
    return rows.iloc[0].spec.get(key) if len(rows) else None
