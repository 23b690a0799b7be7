"""The attention_heads report: setup, learning checks, per-layer statistics, specialised heads, figures, verdicts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report_kit import begin, code_line, fmt_mean_ci, title, write_markdown
from suites.attention_heads.figures import figure_names, grid_figure, maps_figure
from suites.attention_heads.tables import (  # noqa: F401
    ORDER,
    STAT_COLUMNS,
    _job_value,
    _layer_table,
    _specialist_section,
    _trend_section,
    entropy_trends,
    heads_frame,
    specialists,
)
from suites.attention_heads.verdicts import CLAIMS, findings  # noqa: F401  (the suite's claims and verdicts, read through this module)
from suites.common.learning import learning_checks, learning_section


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> list[Path]:
    first, variants, seeds = begin(df, out_dir, ORDER)
    settings = first.profile_settings
    heads = heads_frame(df)
    base = _job_value(df, "delimiter_base")
    uniform = _job_value(df, "uniform_entropy")
    lines = title(suite, "What attention heads attend to", first)
    spec_table = specialists(heads, base) if len(heads) else pd.DataFrame()
    lines += _specialist_section(spec_table, variants)
    lines += _trend_section(entropy_trends(heads) if len(heads) else pd.DataFrame(), variants)
    lines += _layer_table(heads, variants)

    paths: list[Path] = []
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
            chosen = "; ".join(
                f"layer {r.extra['layer'] + 1} head {r.extra['head'] + 1}: {r.extra['criterion']} ({r.value:.2f})"
                for r in maps.itertuples()
            )
            map_lines += [f"`{v}` (seed {seed}): {chosen}.", "", f"![{v}: attention maps](figures/{maps_name})", ""]
    lines += [
        "## Layer x head grids",
        "",
        "Each variant's first seed (heads are not comparable across seeds). Rows are layers (1 = nearest the "
        "input), columns heads; the last panel shows each head's most attended fixed offset d (1 = previous "
        "token, 0 = itself) coloured by the share it receives.",
        "",
    ] + grid_lines
    lines += [
        "## Typical attention maps of the most distinct heads",
        "",
        "For each variant, the heads with the largest previous-token, first-token and delimiter share (delimiters "
        "ranked by their excess over even attention), the smallest entropy and the largest mean distance, each "
        f"head shown once, on the first {settings['map_len']} characters of the first held-out window (␣ space, "
        "↵ newline). Rows are queries, columns the keys they attend to.",
        "",
    ] + map_lines
    found = findings(df)
    lines += ["## Against the published findings", ""]
    lines += [f"- {c.source}: {c.published}." for c in CLAIMS[:2]] + [
        f"- {CLAIMS[2].source}: {CLAIMS[2].published}.",
        "",
    ]
    # the per-family counts and entropies the verdicts' sentences list are the two tables above
    says = {"agrees": "**agrees**", "disagrees": "**disagrees**"}
    lines += [
        f"- {f.claim.name}: this run {says.get(f.verdict, f'is **{f.verdict}**')}"
        + (f" ({f.cause.rstrip('.')})" if f.cause and f.verdict != "agrees" else "")
        + "."
        for f in found
    ] + [""]
    lines += _setup(df, first, settings, variants, seeds, base, uniform)
    lines += learning_section(learning_checks(df, "loss"), variants)
    return [write_markdown(suite, lines, out_dir), *paths]


def _setup(df, first, settings, variants, seeds, base, uniform) -> list[str]:
    spec = first.spec
    ok = df[df.status == "ok"]
    params = ok.groupby("variant").parameters.first() if "parameters" in ok else pd.Series(dtype=float)
    train_len = int(settings["train_len"])
    base_text = fmt_mean_ci(list(base.values()), 3, "bounded", (0.0, 1.0)) if base else "-"  # a share
    uniform_text = fmt_mean_ci(list(uniform.values()), 3, "log") if uniform else "-"  # an entropy above 0
    return [
        "## Setup",
        "",
        f"- Models: position_extrapolation's decoder-only Transformer, {spec['n_layers']} layers, d_model {spec['d_model']}, "
        f"{spec['n_heads']} heads, Pre-LN, tied embeddings; parameters: "
        + ", ".join(f"{v} {int(params[v]):,}" for v in variants if v in params.index)
        + ".",
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
