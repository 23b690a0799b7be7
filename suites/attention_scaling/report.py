"""The attention_scaling report: score statistics by d_k and scoring, the training comparison, the published finding."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Optional

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run, sentences
from harness.report import fmt_mean_ci, markdown_table, mean_ci
from harness.groups import code_line
from suites.common.learning import LearningCheck, learning_checks, learning_section, usable

PUBLISHED = (
    "Vaswani et al. 2017 (arXiv 1706.03762, section 3.2.1): for q and k with independent unit-variance components, "
    "q.k has variance d_k; unscaled, large d_k pushes the softmax toward one-hot weights with extremely small gradients, "
    "which 1/sqrt(d_k) prevents; additive attention outperforms unscaled dot-product attention at large d_k."
)
VARIANCE = Claim(
    "qk_variance_is_dk", "attention_scaling", "q.k of unit-variance vectors has variance d_k",
    "Vaswani et al. 2017 (arXiv 1706.03762, 3.2.1, footnote 4)", "var(q.k) = d_k", ("scaled_dot",))
SATURATION = Claim(
    "scaling_by_sqrt_dk", "attention_scaling", "Scaling by 1/sqrt(d_k) keeps the softmax from saturating at large d_k",
    "Vaswani et al. 2017 (arXiv 1706.03762, 3.2.1)",
    "unscaled dot products push the softmax into regions of extremely small gradients at large d_k",
    ("scaled_dot", "dot"))
ADDITIVE = Claim(
    "additive_beats_unscaled_dot", "attention_scaling", "Additive attention beats unscaled dot products at large d_k",
    "Vaswani et al. 2017 (arXiv 1706.03762, 3.2.1), after Britz et al. 2017",
    "additive outperforms dot product without scaling for larger d_k", ("scaled_dot", "dot", "additive+naive"))
CLAIMS = (VARIANCE, SATURATION, ADDITIVE)
ORDER = ("scaled_dot", "dot", "general", "additive+naive", "additive")
#: q.k variance within this relative error of d_k agrees with the theory
TOLERANCE = 0.1


def _order(variants) -> List[str]:
    return sorted(variants, key=lambda v: (ORDER.index(v) if v in ORDER else len(ORDER), v))


def _mean(ok: pd.DataFrame, variant: str, metric: str, x=None) -> float:
    part = ok[(ok.variant == variant) & (ok.metric == metric)]
    if x is not None:
        part = part[part.x == x]
    return mean_ci(part.value)[0]


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> List[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    ok = df[df.status == "ok"]
    first = df.iloc[0]
    s = first.profile_settings
    spec = first.spec
    variants = _order(df.variant.unique())
    seeds = sorted(int(v) for v in df.seed.unique())
    d_ks = sorted(ok[ok.metric == "qk_variance"].x.dropna().unique())
    lines = [f"# Why the dot product is scaled ({suite.name}, suite version {first.suite_version})", "",
             suite.description.strip().splitlines()[0], "",
             "## Setup", "",
             f"- Initialisation probe: {s['n_queries']} queries, each attending over its own {s['n_keys']} keys; q, k, v and "
             "the upstream gradient G have independent standard-normal components; L = <G, softmax(s(q, K)) V>. The "
             "scoring's own parameters (additive: W, U, v) use their default initialisation.",
             f"- Training comparison: decoder-only Transformer, {spec['n_layers']} layers, {spec['n_heads']} head(s) of "
             f"d_k = {spec['d_model'] // spec['n_heads']}, {spec['position']} positions, Pre-LN, Xavier-uniform projections; "
             f"{s['steps']} AdamW steps of {s['batch_size']} x {s['train_len']} characters, "
             f"lr {s['lr']:g} (warm-up {s['warmup_steps']}), clipping {s['grad_clip']:g}; held-out loss on "
             f"{int(first.get('eval_chars') or 0):,} characters.",
             f"- Corpus: {first.get('corpus', '?')} (sha256 {str(first.data_checksum)[:16]}...), "
             f"{first.get('split') or 'last ' + format(s['heldout_fraction'], '.0%') + ' held out'}; "
             f"{int(first.get('train_chars') or 0):,} training characters, read {float(first.get('train_passes') or 0):.2f} "
             "times by the training comparison.",
             f"- Profile `{first.profile}`, seeds {seeds}; device {first.device} ({first.device_name}), torch "
             f"{first.torch_version}; {code_line(df)}.", ""]
    rows = []
    for v in variants:
        for d in d_ks:
            cell = ok[(ok.variant == v) & (ok.x == d)]

            def col(metric, digits=2):
                return fmt_mean_ci(cell[cell.metric == metric].value, digits)

            rows.append({"scoring": v, "d_k": int(d), "var(q.k) (theory d_k)": col("qk_variance", 1),
                         "var(score)": col("score_variance", 3), "softmax entropy (nats)": col("softmax_entropy", 3),
                         "||softmax Jacobian||": col("softmax_jacobian_norm", 4),
                         "saturated queries": col("softmax_saturated_fraction", 3), "||dL/dq||": col("query_grad_norm", 4)})
    lines += ["## At initialisation, by d_k", "",
              f"Means over queries, then mean ± 95% interval over seeds. A uniform softmax over {s['n_keys']} keys has entropy "
              f"{math.log(s['n_keys']):.3f} nats and Jacobian norm {math.sqrt(s['n_keys'] - 1) / s['n_keys']:.4f}; a query is "
              "saturated when its Jacobian norm is below a tenth of that. ||dL/dq|| carries the score's own factor on q "
              "(1/sqrt(d_k) for scaled_dot), so it is the gradient a query receives, not the softmax's alone.", "",
              markdown_table(pd.DataFrame(rows)) if rows else "No measurements.", ""]
    train_rows = []
    for v in variants:
        curve = ok[(ok.variant == v) & (ok.metric == "train_loss_curve")]
        steps = sorted(curve.x.unique())
        bad = df[(df.variant == v) & (df.metric == "heldout_loss") & (df.status != "ok")]
        train_rows.append({
            "scoring": v,
            "held-out loss (nats/char)": fmt_mean_ci(ok[(ok.variant == v) & (ok.metric == "heldout_loss")].value, 3)
            if not len(bad) else f"{bad.status.iloc[0]}: {bad.reason.iloc[0]}",
            **({f"train loss at step {int(steps[len(steps) // 4])}": fmt_mean_ci(curve[curve.x == steps[len(steps) // 4]].value, 3),
                f"at step {int(steps[-1])}": fmt_mean_ci(curve[curve.x == steps[-1]].value, 3)} if steps else {}),
            "train time (s)": fmt_mean_ci(ok[(ok.variant == v) & (ok.metric == "train_time")].value, 1)})
    lines += [f"## Training at d_k = {spec['d_model'] // spec['n_heads']}", "",
              "Training loss is the mean over the window of steps ending at the step named.", "",
              markdown_table(pd.DataFrame(train_rows)), ""]
    checks = learning_checks(df, "heldout_loss", None, "train_loss")
    lines += learning_section(checks, variants, "scoring")
    figures = _figures(ok, variants, out_dir / "figures", suite.name)
    lines += ["## Figures", ""] + [f"![{name}](figures/{p.name})" for name, p in figures] + [""]
    lines += ["## Against the published finding", "", PUBLISHED, ""] + [f"- {t}" for t in sentences(findings(df))] + [""]
    path = out_dir / f"{suite.name}.md"
    path.write_text("\n".join(lines))
    return [path] + [p for _, p in figures]


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on Vaswani et al.'s section 3.2.1 from one group of records."""
    ok = df[df.status == "ok"]
    variants = _order(df.variant.unique())
    d_ks = sorted(ok[ok.metric == "qk_variance"].x.dropna().unique())
    checks = learning_checks(df, "heldout_loss", None, "train_loss")
    return [_variance(ok, d_ks), _saturation(ok, variants, d_ks), training_verdict(ok, variants, checks)]


def _per_seed(ok: pd.DataFrame, variant: Optional[str], metric: str, x=None) -> List[float]:
    part = ok[ok.metric == metric]
    if variant is not None:
        part = part[part.variant == variant]
    if x is not None:
        part = part[part.x == x]
    return [float(v) for v in part.groupby("seed").value.mean()]


def _variance(ok: pd.DataFrame, d_ks: List[float]) -> Finding:
    """q.k of unit-variance vectors has variance d_k (agrees when within TOLERANCE at every d_k)."""
    if not d_ks:
        return not_run(VARIANCE)
    var = {d: mean_ci(ok[(ok.metric == "qk_variance") & (ok.x == d)].value)[0] for d in d_ks}
    agrees = all(abs(var[d] / d - 1) <= TOLERANCE for d in d_ks)
    hi = d_ks[-1]
    estimate = Estimate.of(f"var(q.k) / d_k at d_k {int(hi)}", [v / hi for v in _per_seed(ok, None, "qk_variance", hi)])
    text = ("var(q.k) against d_k: " + ", ".join(f"{var[d]:.1f} at {int(d)}" for d in d_ks) + "; this run "
            + ("agrees with the theory (within 10% of d_k)." if agrees else "departs from d_k by more than 10%."))
    return finding(VARIANCE, "agrees" if agrees else "disagrees", text, [estimate])


def _saturation(ok: pd.DataFrame, variants: List[str], d_ks: List[float]) -> Finding:
    """Unscaled scores saturate the softmax at large d_k and shrink its gradient; 1/sqrt(d_k) keeps it spread."""
    lo, hi = (d_ks[0], d_ks[-1]) if d_ks else (None, None)
    if not ("dot" in variants and "scaled_dot" in variants and lo != hi):
        return not_run(SATURATION)
    ent = {v: (_mean(ok, v, "softmax_entropy", lo), _mean(ok, v, "softmax_entropy", hi)) for v in ("dot", "scaled_dot")}
    sat = {v: (_mean(ok, v, "softmax_saturated_fraction", lo), _mean(ok, v, "softmax_saturated_fraction", hi))
           for v in ("dot", "scaled_dot")}
    jac = {v: _mean(ok, v, "softmax_jacobian_norm", hi) for v in ("dot", "scaled_dot")}
    grad = {v: _mean(ok, v, "query_grad_norm", hi) for v in ("dot", "scaled_dot")}
    saturates = (ent["dot"][1] < 0.5 * ent["scaled_dot"][1] and sat["dot"][1] > sat["dot"][0]
                 and sat["dot"][1] > sat["scaled_dot"][1] and jac["dot"] < jac["scaled_dot"])
    estimates = [Estimate.of(f"softmax entropy at d_k {int(hi)}, {name}", _per_seed(ok, v, "softmax_entropy", hi), "nats")
                 for v, name in (("dot", "unscaled"), ("scaled_dot", "scaled"))]
    text = (f"From d_k {int(lo)} to {int(hi)} the unscaled softmax's entropy falls {ent['dot'][0]:.2f} -> "
            f"{ent['dot'][1]:.2f} nats and its saturated share rises {sat['dot'][0]:.0%} -> {sat['dot'][1]:.0%}, while the "
            f"scaled one stays at {ent['scaled_dot'][1]:.2f} nats and {sat['scaled_dot'][1]:.0%}; mean softmax Jacobian "
            f"norm at {int(hi)}: unscaled {jac['dot']:.3g}, scaled {jac['scaled_dot']:.3g}. This run "
            + ("agrees: unscaled scores saturate the softmax and shrink its gradient, scaling keeps it spread."
            if saturates else "does not show the unscaled softmax saturating with a smaller gradient.")
            + f" (The gradient reaching the query, ||dL/dq||, is still {grad['dot'] / grad['scaled_dot']:.1f}x larger "
            "unscaled at this d_k: the unscaled score lacks the 1/sqrt(d_k) factor on q, which outweighs the "
            "saturation for the queries that are not saturated.)")
    return finding(SATURATION, "agrees" if saturates else "disagrees", text, estimates)


def training_verdict(ok: pd.DataFrame, variants: List[str], checks: Dict[str, LearningCheck]) -> Finding:
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
        return finding(ADDITIVE, "inconclusive", "Training at large d_k: no verdict, as "
                       + " and ".join(f"`{v}` {_short_reason(checks.get(v))}" for v in missing) + "." + note)
    held = {v: _mean(ok, v, "heldout_loss") for v in kept}
    estimates = [Estimate.of(f"held-out loss {v}", _per_seed(ok, v, "heldout_loss"), "nats/char") for v in (add, "dot")]
    return finding(ADDITIVE, "agrees" if held[add] < held["dot"] else "disagrees", f"Training at large d_k: held-out loss {add} {held[add]:.3f} vs unscaled dot {held['dot']:.3f}"
            + (f" (scaled dot {held['scaled_dot']:.3f})" if "scaled_dot" in held else "") + "; this run "
            + ("agrees that additive attention beats the unscaled dot product at large d_k."
               if held[add] < held["dot"] else "does not show additive attention beating the unscaled dot product.")
            + note, estimates)


def _short_reason(check) -> str:
    if check is None or not check.heldout:
        return "has no held-out loss"
    return " and ".join(why for why, flag in (("did not learn", check.did_not_learn), ("memorised", check.memorised)) if flag)


def _figures(ok: pd.DataFrame, variants: List[str], folder: Path, name: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    folder.mkdir(parents=True, exist_ok=True)
    made = []
    probe = ok[ok.metric.isin(["score_variance", "softmax_entropy", "softmax_saturated_fraction"])]
    if len(probe):
        panels = [("score_variance", "variance of the score", True), ("softmax_entropy", "softmax entropy (nats)", False),
                  ("softmax_saturated_fraction", "share of saturated queries", False)]
        fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
        for ax, (metric, label, log) in zip(axes, panels):
            part = probe[probe.metric == metric].rename(columns={"x": "d_k", "value": label})
            sns.lineplot(data=part, x="d_k", y=label, hue="variant", marker="o", errorbar=("ci", 95), ax=ax,
                         hue_order=[v for v in variants if v in set(part.variant)])
            ax.set_xscale("log", base=2)
            if log:
                ax.set_yscale("log")
            if metric == "score_variance":
                d = sorted(part.d_k.unique())
                ax.plot(d, d, color="grey", linestyle="--", linewidth=1, label="d_k (theory for q.k)")
                ax.legend(fontsize=8)
        fig.suptitle("Scores of unit-variance queries and keys at initialisation")
        fig.tight_layout()
        made.append(("score statistics against d_k", _save(fig, folder / f"{name}_init.png")))
    curve = ok[ok.metric == "train_loss_curve"].rename(columns={"x": "step", "value": "training loss (nats/char)"})
    if len(curve):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        sns.lineplot(data=curve, x="step", y="training loss (nats/char)", hue="variant", errorbar=("ci", 95), ax=ax,
                     hue_order=[v for v in variants if v in set(curve.variant)])
        ax.set_title("Training loss at large d_k")
        fig.tight_layout()
        made.append(("training loss at large d_k", _save(fig, folder / f"{name}_training.png")))
    return made


def _save(fig, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
