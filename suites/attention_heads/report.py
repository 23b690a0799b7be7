"""The attention_heads report: setup, learning checks, per-layer statistics, specialised heads, figures, verdicts."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run, sentences
from harness.groups import code_line
from harness.report import fmt_mean_ci, markdown_table, mean_ci
from suites.attention_heads.figures import figure_names, grid_figure, maps_figure
from suites.common.learning import learning_checks, learning_section, usable

OFFSET_HEADS = Claim(
    "offset_heads", "attention_heads", "Some heads specialise in a fixed offset (the previous token)",
    "Clark et al. 2019 (arXiv 1906.04341)",
    "BERT-base: several heads put over 50% of their attention on the previous (or next) token")
DELIMITER_HEADS = Claim(
    "delimiter_heads", "attention_heads", "Some heads specialise in delimiters",
    "Clark et al. 2019 (arXiv 1906.04341)",
    "BERT-base: over half of the attention of layers 6-10 goes to [SEP]; some heads attend mostly to [SEP], periods or commas")
ENTROPY_BY_LAYER = Claim(
    "entropy_by_layer", "attention_heads", "Attention entropy changes systematically from lower to upper layers",
    "Clark et al. 2019 (arXiv 1906.04341)",
    "BERT-base: heads of one layer behave alike; the broadest (highest-entropy) heads are in the lower layers, and the "
    "last layer attends broadly again")
CLAIMS = (OFFSET_HEADS, DELIMITER_HEADS, ENTROPY_BY_LAYER)

#: a head specialises when at least this share of its attention goes to one fixed offset, to delimiters
#: (and at least DELIMITER_FACTOR x what even attention would put there) or to the first token
SPECIALIST = 0.5
DELIMITER_FACTOR = 2.0
#: an entropy trend across layers is systematic when Spearman's rank correlation of layer and head entropy
#: has p below this in every seed, with one sign
TREND_P = 0.05
STAT_COLUMNS = (
    ("entropy", "entropy (nats)", 2),
    ("mean_distance", "mean distance (tokens)", 1),
    ("previous_token_share", "previous token", 2),
    ("first_token_share", "first token", 2),
    ("delimiter_share", "delimiters", 2),
    ("offset_share", "best fixed offset", 2),
)


def _order(variants, preferred=("none", "sinusoidal", "learned", "rope", "alibi")) -> List[str]:
    return sorted(variants, key=lambda v: (preferred.index(v) if v in preferred else len(preferred), v))


def heads_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The per-head records (ok), with layer, head and offset as columns."""
    rows = df[(df.status == "ok") & df.metric.isin([m for m, _, _ in STAT_COLUMNS])].copy()
    extra = rows["extra"].apply(lambda e: e if isinstance(e, dict) else {})
    rows["layer"] = extra.apply(lambda e: e.get("layer")).astype(int)
    rows["head"] = extra.apply(lambda e: e.get("head")).astype(int)
    rows["offset"] = extra.apply(lambda e: e.get("offset"))
    return rows


def _job_value(df: pd.DataFrame, metric: str) -> Dict[Tuple[str, int], float]:
    rows = df[(df.status == "ok") & (df.metric == metric)]
    return {(r.variant, int(r.seed)): float(r.value) for r in rows.itertuples()}


def specialists(heads: pd.DataFrame, base: Dict[Tuple[str, int], float]) -> pd.DataFrame:
    """Per (variant, seed): how many heads are offset, delimiter and first-token specialists, and which."""
    rows = []
    for (variant, seed), part in heads.groupby(["variant", "seed"]):
        wide = part.pivot_table(index=["layer", "head"], columns="metric", values="value")
        offsets = part[part.metric == "offset_share"].set_index(["layer", "head"]).offset
        threshold = max(SPECIALIST, DELIMITER_FACTOR * base.get((variant, int(seed)), 0.0))
        offset_heads = wide.index[wide.get("offset_share", pd.Series(dtype=float)).reindex(wide.index).fillna(0) >= SPECIALIST]
        delimiter_heads = wide.index[wide.get("delimiter_share", pd.Series(dtype=float)).reindex(wide.index).fillna(0) >= threshold]
        sink_heads = wide.index[wide.get("first_token_share", pd.Series(dtype=float)).reindex(wide.index).fillna(0) >= SPECIALIST]
        rows.append({
            "variant": variant, "seed": int(seed), "heads": len(wide),
            "offset": len(offset_heads), "offsets": sorted(int(offsets.get(i, -1)) for i in offset_heads),
            "offset_names": [f"L{l + 1}H{h + 1} (d={int(offsets.get((l, h), -1))})" for l, h in offset_heads],
            "delimiter": len(delimiter_heads), "delimiter_threshold": threshold,
            "delimiter_names": [f"L{l + 1}H{h + 1}" for l, h in delimiter_heads],
            "sink": len(sink_heads), "sink_names": [f"L{l + 1}H{h + 1}" for l, h in sink_heads],
            "max_offset_share": float(wide["offset_share"].max()) if "offset_share" in wide else math.nan,
            "max_delimiter_share": float(wide["delimiter_share"].max()) if "delimiter_share" in wide else math.nan,
        })
    return pd.DataFrame(rows)


def entropy_trends(heads: pd.DataFrame) -> pd.DataFrame:
    """Per (variant, seed): Spearman's rho of layer against head entropy (over every head), its p-value, and
    the mean entropy of the lowest and the highest layer."""
    from scipy import stats

    rows = []
    for (variant, seed), part in heads[heads.metric == "entropy"].groupby(["variant", "seed"]):
        by_layer = part.groupby("layer").value.mean()
        if part.layer.nunique() < 2:
            rho, p = math.nan, math.nan
        else:
            result = stats.spearmanr(part.layer, part.value)
            rho, p = float(result.statistic), float(result.pvalue)
        rows.append({"variant": variant, "seed": int(seed), "rho": rho, "p": p,
                     "lowest": float(by_layer.iloc[0]), "highest": float(by_layer.iloc[-1]),
                     "layers": [float(v) for v in by_layer]})
    return pd.DataFrame(rows)


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> List[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    first = df.iloc[0]
    settings = first.profile_settings
    variants = _order(list(df.variant.unique()))
    seeds = sorted(int(s) for s in df.seed.unique())
    heads = heads_frame(df)
    base = _job_value(df, "delimiter_base")
    uniform = _job_value(df, "uniform_entropy")
    lines = [f"# What attention heads attend to ({suite.name}, suite version {first.suite_version})", "",
             suite.description.strip().splitlines()[0], ""]
    lines += _setup(df, first, settings, variants, seeds, base, uniform)
    checks = learning_checks(df, "loss")
    lines += learning_section(checks, variants)
    lines += _layer_table(heads, variants)
    spec_table = specialists(heads, base) if len(heads) else pd.DataFrame()
    lines += _specialist_section(spec_table, variants)
    lines += _trend_section(entropy_trends(heads) if len(heads) else pd.DataFrame(), variants)

    paths: List[Path] = []
    figures = out_dir / "figures"
    grid_lines, map_lines = [], []
    for v in variants:
        part = heads[heads.variant == v]
        if not len(part):
            continue
        seed = int(part.seed.min())
        grid_name, maps_name = figure_names(v)
        paths.append(grid_figure(part[part.seed == seed], v, seed, figures / grid_name, uniform.get((v, seed))))
        grid_lines += [f"![{v}: layer x head grid](figures/{grid_name})", ""]
        maps = df[(df.variant == v) & (df.seed == seed) & (df.metric == "attention_map") & (df.status == "ok")]
        if len(maps):
            paths.append(maps_figure(maps, v, seed, figures / maps_name))
            chosen = "; ".join(f"layer {r.extra['layer'] + 1} head {r.extra['head'] + 1}: {r.extra['criterion']} "
                               f"({r.value:.2f})" for r in maps.itertuples())
            map_lines += [f"`{v}` (seed {seed}): {chosen}.", "", f"![{v}: attention maps](figures/{maps_name})", ""]
    lines += ["## Layer x head grids", "",
              f"Each variant's first seed (heads are not comparable across seeds). Rows are layers (1 = nearest the "
              f"input), columns heads; the last panel shows each head's most attended fixed offset d (1 = previous "
              f"token, 0 = itself) coloured by the share it receives.", ""] + grid_lines
    lines += ["## Typical attention maps of the most distinct heads", "",
              "For each variant, the heads with the largest previous-token, first-token and delimiter share (delimiters "
              "ranked by their excess over even attention), the smallest entropy and the largest mean distance, each "
              f"head shown once, on the first {settings['map_len']} characters of the first held-out window (␣ space, "
              "↵ newline). Rows are queries, columns the keys they attend to.", ""] + map_lines
    found = findings(df)
    lines += ["## Against the published findings", ""]
    lines += [f"- {c.source}: {c.published}." for c in CLAIMS[:2]] + [f"- {CLAIMS[2].source}: {CLAIMS[2].published}.", ""]
    lines += [f"- {sentence}" for sentence in sentences(found)] + [""]
    path = out_dir / f"{suite.name}.md"
    path.write_text("\n".join(lines))
    return [path, *paths]


def _setup(df, first, settings, variants, seeds, base, uniform) -> List[str]:
    spec = first.spec
    ok = df[df.status == "ok"]
    params = ok.groupby("variant").parameters.first() if "parameters" in ok else pd.Series(dtype=float)
    train_len = int(settings["train_len"])
    base_text = fmt_mean_ci(list(base.values()), 3) if base else "-"
    uniform_text = fmt_mean_ci(list(uniform.values()), 3) if uniform else "-"
    return [
        "## Setup", "",
        f"- Models: position_extrapolation's decoder-only Transformer, {spec['n_layers']} layers, d_model {spec['d_model']}, "
        f"{spec['n_heads']} heads, Pre-LN, tied embeddings; parameters: "
        + ", ".join(f"{v} {int(params[v]):,}" for v in variants if v in params.index) + ".",
        f"- Training: {settings['steps']} steps of {settings['batch_size']} x {train_len} characters, AdamW lr {settings['lr']:g} "
        f"(warm-up {settings['warmup_steps']} steps, cosine decay), weight decay {settings['weight_decay']:g}, clipping "
        f"{settings['grad_clip']:g}; profile `{first.profile}`; seeds {seeds}.",
        f"- Corpus: {first.get('corpus', '?')} (sha256 {str(first.data_checksum)[:16]}...), {first.get('split') or '-'}; "
        f"{int(first.get('train_chars') or 0):,} training characters, read {float(first.get('train_passes') or 0):.2f} times. "
        f"Weights: " + _weights(df) + ".",
        f"- Reading: {int(first.get('eval_windows') or settings['eval_windows'])} non-overlapping held-out windows of {train_len} "
        f"characters from the start of the held-out split, each layer's attention probabilities computed explicitly "
        f"(the naive kernel's softmax). Every statistic is a mean over the queries at positions 1..{train_len - 1} of every "
        f"window (position 0 can only attend to itself). Delimiters: space, newline, tab and ASCII punctuation; a head "
        f"attending evenly over the keys a query may see would put {base_text} of its attention on them and have entropy "
        f"{uniform_text} nats.",
        f"- Device: {first.device} ({first.device_name}), {first['dtype']}, torch {first.torch_version}; {code_line(df)}.",
        "",
    ]


def _weights(df: pd.DataFrame) -> str:
    """Where each job's weights came from: trained by the job, or position_extrapolation's checkpoint."""
    if "weights" not in df:
        return "-"
    def kind(source) -> str:
        if not isinstance(source, str):
            return "not recorded"
        if source.startswith("checkpoint of position_extrapolation"):
            return "loaded from position_extrapolation's checkpoints"
        return "loaded from this suite's checkpoints" if source.startswith("checkpoint") else source

    jobs = df.drop_duplicates(["variant", "seed"])
    counts = jobs.weights.map(kind).value_counts()
    return "; ".join(f"{source} ({n} of {len(jobs)} jobs)" for source, n in counts.items())


def _layer_table(heads: pd.DataFrame, variants: List[str]) -> List[str]:
    rows = []
    for v in variants:
        part = heads[heads.variant == v]
        for layer in sorted(part.layer.unique()):
            row = {"variant": v, "layer": int(layer) + 1}
            for metric, label, digits in STAT_COLUMNS:
                cell = part[(part.layer == layer) & (part.metric == metric)]
                per_seed = cell.groupby("seed").value.mean()  # the layer's mean over heads, per seed
                row[label] = fmt_mean_ci(per_seed, digits) if len(per_seed) else "-"
            rows.append(row)
    return ["## Per layer", "",
            "Each statistic averaged over the layer's heads, then mean ± 95% interval over seeds. Shares are fractions "
            "of a query's attention (0-1); \"best fixed offset\" is the share at each head's most attended offset.", "",
            markdown_table(pd.DataFrame(rows)) if rows else "No per-head records.", ""]


def _specialist_section(table: pd.DataFrame, variants: List[str]) -> List[str]:
    rows = []
    for v in variants:
        part = table[table.variant == v] if len(table) else table
        if not len(part):
            continue
        first = part.sort_values("seed").iloc[0]
        rows.append({
            "variant": v, "heads": int(first.heads),
            "offset heads": fmt_mean_ci(part.offset, 1),
            "their offsets (first seed)": ", ".join(first.offset_names) or "none",
            "delimiter heads": fmt_mean_ci(part.delimiter, 1),
            "which (first seed)": ", ".join(first.delimiter_names) or "none",
            "first-token heads": fmt_mean_ci(part.sink, 1),
            "largest offset share": fmt_mean_ci(part.max_offset_share, 2),
            "largest delimiter share": fmt_mean_ci(part.max_delimiter_share, 2),
        })
    threshold = (f"max({SPECIALIST:g}, {DELIMITER_FACTOR:g} x the even-attention share)")
    return ["## Specialised heads", "",
            f"A head is an *offset head* when at least {SPECIALIST:.0%} of its attention goes to one fixed offset, a "
            f"*delimiter head* when its delimiter share is at least {threshold}, a *first-token head* (sink) when at least "
            f"{SPECIALIST:.0%} goes to the window's first character. Counts per model: mean over seeds (n = seeds); heads "
            "are named L<layer>H<head> with offset d.", "",
            markdown_table(pd.DataFrame(rows)) if rows else "No per-head records.", ""]


def _trend_section(trends: pd.DataFrame, variants: List[str]) -> List[str]:
    rows = []
    for v in variants:
        part = trends[trends.variant == v] if len(trends) else trends
        if not len(part):
            continue
        layers = part.layers.tolist()
        means = [mean_ci([seed[i] for seed in layers])[0] for i in range(min(len(s) for s in layers))]
        rows.append({"variant": v, "mean entropy by layer (nats, 1 -> top)": " -> ".join(f"{m:.2f}" for m in means),
                     "Spearman rho (layer, head entropy)": fmt_mean_ci(part.rho, 2),
                     "largest p over seeds": f"{part.p.max():.2g}"})
    return ["## Entropy from lower to upper layers", "",
            f"Spearman's rank correlation of layer index and head entropy over every head of a model (per seed): negative "
            f"when entropy falls with depth. A trend counts as systematic when p < {TREND_P:g} in every seed, with one sign.", "",
            markdown_table(pd.DataFrame(rows)) if rows else "No per-head records.", ""]


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on Clark et al.'s findings, from the variants that learned and did not memorise."""
    checks = learning_checks(df, "loss")
    kept, left_out = usable(checks)
    heads = heads_frame(df)
    heads = heads[heads.variant.isin(kept)]
    if not len(heads):
        why = "No model that learned has per-head records" + (f" ({left_out})" if left_out else "") + "."
        return [not_run(c, why) for c in CLAIMS]
    note = f" {left_out}" if left_out else ""
    table = specialists(heads, _job_value(df, "delimiter_base"))
    out = [_specialist_finding(OFFSET_HEADS, table, "offset", "max_offset_share", "fixed-offset", note),
           _specialist_finding(DELIMITER_HEADS, table, "delimiter", "max_delimiter_share", "delimiter", note)]
    out.append(_trend_finding(entropy_trends(heads), note))
    return out


def _specialist_finding(claim: Claim, table: pd.DataFrame, column: str, largest: str, kind: str, note: str) -> Finding:
    """Agrees when at least half of the learned variants have such a head in every seed; disagrees when none
    has one in any seed; inconclusive in between."""
    variants = _order(table.variant.unique())
    every = [v for v in variants if (table[table.variant == v][column] > 0).all()]
    some = [v for v in variants if (table[table.variant == v][column] > 0).any()]
    estimates = [Estimate.of(f"{v} {kind} heads", table[table.variant == v][column]) for v in variants]
    shares = ", ".join(f"`{v}` {fmt_mean_ci(table[table.variant == v][largest], 2)}" for v in variants)
    counts = ", ".join(f"`{v}` {fmt_mean_ci(table[table.variant == v][column], 1)}" for v in variants)
    told = (f"{kind.capitalize()} heads per model (mean over seeds): {counts}; the largest {kind} share: {shares}.")
    if len(every) * 2 >= len(variants):
        return finding(claim, "agrees", f"{told} {len(every)} of {len(variants)} models have one in every seed: this run "
                       f"**agrees** with Clark et al. that some heads specialise in {kind.replace('-', ' ')}s." + note, estimates)
    if not some:
        return finding(claim, "disagrees", f"{told} No model has one: this run **disagrees** with Clark et al." + note,
                       estimates)
    return finding(claim, "inconclusive", f"{told} Only {len(every)} of {len(variants)} models have one in every seed "
                   f"({len(some)} in some seed): **inconclusive**." + note, estimates)


def _trend_finding(trends: pd.DataFrame, note: str) -> Finding:
    """Agrees when at least half of the learned variants show a systematic trend; disagrees when none does."""
    variants = _order(trends.variant.unique())
    direction: Dict[str, Optional[str]] = {}
    for v in variants:
        part = trends[trends.variant == v]
        signs = set(part.rho.apply(lambda r: math.copysign(1, r) if r == r and r != 0 else 0))
        systematic = bool(len(part)) and (part.p < TREND_P).all() and len(signs) == 1 and 0 not in signs
        direction[v] = ("falls" if signs == {-1.0} else "rises") if systematic else None
    estimates = [Estimate.of(f"{v} Spearman rho", trends[trends.variant == v].rho) for v in variants]
    described = "; ".join(
        f"`{v}` {trends[trends.variant == v].lowest.mean():.2f} -> {trends[trends.variant == v].highest.mean():.2f} nats, "
        f"rho {fmt_mean_ci(trends[trends.variant == v].rho, 2)}" + (f" ({direction[v]} with depth)" if direction[v] else
                                                                     " (no systematic trend)")
        for v in variants)
    told = f"Mean head entropy from the lowest to the highest layer: {described}."
    systematic = [v for v in variants if direction[v]]
    falling = [v for v in systematic if direction[v] == "falls"]
    clark = (f" Clark et al. found the broadest heads in the lower layers (entropy falling with depth); here it falls in "
             f"{len(falling)} and rises in {len(systematic) - len(falling)} of the {len(systematic)} models with a trend.")
    if len(systematic) * 2 >= len(variants) and systematic:
        return finding(ENTROPY_BY_LAYER, "agrees", f"{told} {len(systematic)} of {len(variants)} models change "
                       f"systematically: this run **agrees** that entropy changes from lower to upper layers.{clark}" + note,
                       estimates)
    if not systematic:
        return finding(ENTROPY_BY_LAYER, "disagrees", f"{told} No model shows a systematic trend: this run **disagrees**."
                       + note, estimates)
    return finding(ENTROPY_BY_LAYER, "inconclusive", f"{told} Only {len(systematic)} of {len(variants)} models change "
                   f"systematically: **inconclusive**.{clark}" + note, estimates)
