"""The position_extrapolation report: setup, perplexity by length, a figure and the published finding."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Dict, List

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, sentences
from harness.report import fmt_mean_ci, markdown_table, mean_ci
from suites.common.learning import learning_checks, learning_section, usable
from suites.position_extrapolation.rope_extension_report import section as rope_extension_section
from harness.groups import code_line

PUBLISHED = (
    "Press et al. 2022 (arXiv 2108.12409, WikiText-103, L=512, non-overlapping windows) report ALiBi flat or "
    "improving past the training length (perplexity 19.73 at L, 18.73 at ~2L, 18.40 at ~7L) while sinusoidal "
    "rises steeply (20.05, 43.54, 178.97) and rotary in between (20.07, 21.37, 35.54)."
)
EXTRAPOLATION = Claim(
    "alibi_extrapolates", "position_extrapolation", "ALiBi extrapolates past the training length; sinusoidal does not",
    "Press et al. 2022 (arXiv 2108.12409)",
    "ppl at L, ~2L, ~7L on WikiText-103 (L = 512): ALiBi 19.73, 18.73, 18.40; sinusoidal 20.05, 43.54, 178.97",
    ("sinusoidal", "alibi"))
CLAIMS = (EXTRAPOLATION,)
#: a variant whose perplexity at L is this much above the best variant's did not train comparably
NOT_COMPARABLE = 1.15
#: the published shape: ALiBi's ppl(8L)/ppl(L) at most FLAT, sinusoidal's at least RISES
FLAT, RISES = 1.15, 2.0


def _order(variants: List[str], preferred=("none", "sinusoidal", "learned", "rope", "alibi")) -> List[str]:
    return sorted(variants, key=lambda v: (preferred.index(v) if v in preferred else len(preferred), v))


def _per_seed(ok: pd.DataFrame, metric: str, x: float) -> Dict[str, Dict[int, float]]:
    rows = ok[(ok.metric == metric) & (ok.x == x)]
    out: Dict[str, Dict[int, float]] = {}
    for r in rows.itertuples():
        out.setdefault(r.variant, {})[int(r.seed)] = float(r.value)
    return out


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> List[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    ok = df[df.status == "ok"]
    variants = _order(list(df.variant.unique()))
    lengths = sorted(ok[ok.metric == "perplexity"].x.dropna().unique())
    first = df.iloc[0]
    settings = first.profile_settings
    train_len = int(settings["train_len"])
    lines = [f"# Length extrapolation ({suite.name}, suite version {first.suite_version})", "", suite.description.strip().splitlines()[0], ""]

    # --- setup, from the records themselves
    spec = first.spec
    params = ok.groupby("variant").parameters.first() if "parameters" in ok else pd.Series(dtype=float)
    seeds = sorted(int(s) for s in df.seed.unique())
    lines += [
        "## Setup", "",
        f"- Model: decoder-only Transformer, {spec['n_layers']} layers, d_model {spec['d_model']}, {spec['n_heads']} heads, "
        f"Pre-LN, tied embeddings, kernel {spec['kernel']}; parameters: "
        + ", ".join(f"{v} {int(params[v]):,}" for v in variants if v in params.index) + ".",
        f"- Training: {settings['steps']} steps of {settings['batch_size']} x {train_len} characters (L = {train_len}), "
        f"AdamW lr {settings['lr']:g} (warm-up {settings['warmup_steps']} steps, cosine decay), weight decay "
        f"{settings['weight_decay']:g}, gradient clipping {settings['grad_clip']:g}; profile `{first.profile}`; seeds {seeds}.",
        f"- Corpus: {first.get('corpus', '?')} (sha256 {str(first.data_checksum)[:16]}...), "
        f"{first.get('split') or 'last ' + format(settings['heldout_fraction'], '.0%') + ' held out'}; "
        f"{int(first.get('train_chars') or 0):,} training characters, read {float(first.get('train_passes') or 0):.2f} times; "
        f"{int(first.get('eval_chars', 0)):,} held-out characters scored at every length.",
        f"- Protocol: **{settings['protocol']}** windows"
        + (f" (stride {settings['stride'] or train_len})" if settings["protocol"] == "sliding" else "") + ".",
        f"- Device: {first.device} ({first.device_name}), {first['dtype']}, torch {first.torch_version}, "
        f"flush denormals {first.get('flush_denormal')}, {first.get('num_threads')} threads, allocator {first.get('allocator')}; "
        f"{code_line(df)}.",
        "",
    ]

    # --- perplexity by variant x length
    lines += [f"## Perplexity by evaluation length (mean ± 95% interval over seeds; L = {train_len})", ""]
    table = []
    for v in variants:
        row = {"variant": v}
        for x in lengths:
            vals = ok[(ok.variant == v) & (ok.metric == "perplexity") & (ok.x == x)].value
            bad = df[(df.variant == v) & (df.metric == "perplexity") & (df.x == x) & (df.status != "ok")]
            row[f"{int(x)} ({int(x) // train_len}L)"] = fmt_mean_ci(vals) if len(vals) else (bad.status.iloc[0] if len(bad) else "-")
        table.append(row)
    lines += [markdown_table(pd.DataFrame(table)), ""]
    reasons = df[(df.status != "ok")].drop_duplicates(["variant", "status", "reason"])
    if len(reasons):
        lines += ["Cells that are not numbers:", ""]
        lines += [f"- `{r.variant}`: {r.status}: {r.reason}" for r in reasons.itertuples()] + [""]

    # --- did each variant learn, and how flat is it
    shape = Shape(df)
    lines += learning_section(shape.checks, variants)
    summary = []
    for v in variants:
        l_vals = shape.at_l.get(v, {})
        flags = [name for name, on in (("did not learn", shape.checks[v].did_not_learn),
                                        ("memorised", shape.checks[v].memorised)) if on]
        comparable = not flags and bool(l_vals) and mean_ci(l_vals.values())[0] <= NOT_COMPARABLE * shape.best_l
        summary.append({
            "variant": v, "ppl at L": fmt_mean_ci(l_vals.values()),
            "ppl(8L) / ppl(L)": fmt_mean_ci(shape.ratios[v]) if shape.ratios[v] else "n/a",
            "comparable at L": "yes" if comparable else "no: " + (
                " and ".join(flags) if flags else f"ppl at L > {NOT_COMPARABLE:.2f} x best learned"),
        })
    lines += ["## Does it extrapolate?", "",
              "A flat curve from a model that never learned is not extrapolation, and a curve is compared with another only "
              f"when both start from a similar perplexity at L: a variant more than {NOT_COMPARABLE - 1:.0%} above the best "
              "variant that learned is marked as not comparable.", "",
              markdown_table(pd.DataFrame(summary)), ""]

    figure = _figure(ok, variants, train_len, out_dir / "figures" / f"{suite.name}.png")
    lines += ["## Figure", "", f"![perplexity against evaluation length](figures/{figure.name})", ""]
    lines += ["## Against the published finding", "", PUBLISHED + " " + " ".join(sentences(findings(df))), ""]
    lines += rope_extension_section(df, train_len)  # empty unless the run has rope+<scaling> variants
    path = out_dir / f"{suite.name}.md"
    path.write_text("\n".join(lines))
    return [path, figure]


class Shape:
    """What the verdict and the summary table share: per-seed perplexity at L and 8L, their ratio, the learning checks."""

    def __init__(self, df: pd.DataFrame):
        ok = df[df.status == "ok"]
        train_len = float(df.iloc[0].profile_settings["train_len"])
        self.checks = learning_checks(df, "loss", train_len)
        self.kept, self.left_out = usable(self.checks)
        self.at_l = _per_seed(ok, "perplexity", train_len)
        at_8l = _per_seed(ok, "perplexity", 8 * train_len)
        self.best_l = min((mean_ci(self.at_l[v].values())[0] for v in self.kept if v in self.at_l), default=math.nan)
        self.ratios = {v: [at_8l[v][s] / l_vals[s] for s in l_vals if s in at_8l.get(v, {})]
                       for v, l_vals in ((v, self.at_l.get(v, {})) for v in df.variant.unique())}
        self.comparable = {v for v in self.kept if v in self.at_l
                           and mean_ci(self.at_l[v].values())[0] <= NOT_COMPARABLE * self.best_l}


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdict on Press et al.'s finding from one group of records."""
    shape = Shape(df)
    found = verdict(shape.ratios, shape.comparable, set(shape.kept))
    if shape.left_out and found.sentence:
        found = replace(found, sentence=found.sentence + " " + shape.left_out)
    return [found]


def verdict(ratios: Dict[str, List[float]], comparable: set, learned: set) -> Finding:
    """Agrees when ALiBi's ppl(8L)/ppl(L) is at most FLAT and sinusoidal's at least RISES; disagrees when ALiBi
    rises past FLAT or does not stay below sinusoidal.

    Both must come from models that learned and did not memorise; ALiBi must also be comparable at L (within
    NOT_COMPARABLE of the best), since a flat curve from a weaker model is not extrapolation. A rising curve
    needs no such condition: a weaker model would flatten it, not steepen it.
    """
    estimates = [Estimate.of(f"{name} ppl(8L)/ppl(L)", ratios[v]) for v, name in (("alibi", "ALiBi"), ("sinusoidal", "sinusoidal"))
                 if ratios.get(v)]
    absent = [v for v in ("alibi", "sinusoidal") if not ratios.get(v)]
    missing = [f"`{v}` {why}" for v, ok, why in (
        ("alibi", "alibi" in comparable, "did not learn, memorised or is not comparable at L"),
        ("sinusoidal", "sinusoidal" in learned, "did not learn or memorised")) if not ok]
    missing += [f"`{v}` lacks results at L and 8L" for v in absent]
    if missing:
        return finding(EXTRAPOLATION, "not run" if absent else "inconclusive",
                       "This run cannot be compared: " + "; ".join(missing) + " (see above).", estimates)
    a, s = (mean_ci(ratios[v]) for v in ("alibi", "sinusoidal"))
    shown = (f"Here ppl(8L)/ppl(L) is {fmt_mean_ci(ratios['alibi'])} for ALiBi and {fmt_mean_ci(ratios['sinusoidal'])} "
             f"for sinusoidal")
    if a[0] <= FLAT and s[0] >= RISES:
        return finding(EXTRAPOLATION, "agrees", shown + f": this run **agrees** (ALiBi within {FLAT - 1:.0%} of flat, "
                       f"sinusoidal at least {RISES:g}x).", estimates)
    if a[0] > FLAT or s[0] <= a[0]:
        return finding(EXTRAPOLATION, "disagrees", shown + ": this run **disagrees** (" + (
            f"ALiBi rises more than {FLAT - 1:.0%}." if a[0] > FLAT else "sinusoidal does not rise more than ALiBi.") + ")",
            estimates)
    return finding(EXTRAPOLATION, "inconclusive", shown + (
        f": **inconclusive** (ALiBi stays flat, but sinusoidal rises less than {RISES:g}x, short of the published blow-up)."),
        estimates)


def _figure(ok: pd.DataFrame, variants: List[str], train_len: int, path: Path) -> Path:
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    path.parent.mkdir(parents=True, exist_ok=True)
    data = ok[ok.metric == "perplexity"].rename(columns={"x": "evaluation length (characters)", "value": "perplexity"})
    fig, ax = plt.subplots(figsize=(8.5, 4.5))
    sns.lineplot(data=data, x="evaluation length (characters)", y="perplexity", hue="variant", hue_order=variants,
                 marker="o", errorbar=("ci", 95), ax=ax)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    lengths = sorted(data["evaluation length (characters)"].unique())
    ax.set_xticks(lengths, [str(int(x)) for x in lengths])
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.axvline(train_len, color="grey", linestyle="--", linewidth=1, label=f"training length L = {train_len}")
    ax.set_ylabel("perplexity per character (log scale)")
    ax.legend(title="variant", bbox_to_anchor=(1.02, 1), loc="upper left")
    ax.set_title("Held-out perplexity against evaluation length")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
