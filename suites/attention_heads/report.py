"""The attention_heads report: specialised heads, the layer x head grids, entropy across layers, per-layer
statistics, attention maps, the published findings with this run's verdicts, the setup and the learning checks."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.report_kit import begin, code_line, fmt_mean_ci, title
from harness.report_sections import BODY, BOOKKEEPING, FIGURE, Report, Section, section
from suites.attention_heads.figures import figure_names, grid_figure, maps_figure
from suites.attention_heads.tables import (
    ORDER,
    entropy_trends,
    heads_frame,
    job_values,
    layer_section,
    specialist_section,
    specialists,
    trend_section,
)
from suites.common.facts import parameter_counts
from suites.common.learning import learning_checks, learning_section

#: what the verdicts' bullets say of each verdict
SAYS = {"agrees": "**agrees**", "disagrees": "**disagrees**"}


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    first, variants, seeds = begin(df, out_dir, ORDER)
    heads = heads_frame(df)
    base, uniform = job_values(df, "delimiter_base"), job_values(df, "uniform_entropy")
    paths, grids, maps = _figures(df, heads, variants, out_dir / "figures", uniform, first.profile_settings)
    # the per-family counts and entropies the verdicts' sentences list are the two tables above them
    verdicts = [
        f"- {f.claim.name}: this run {SAYS.get(f.verdict, f'is **{f.verdict}**')}"
        + (f" ({f.cause.rstrip('.')})" if f.cause and f.verdict != "agrees" else "")
        + "."
        for f in judge_all(suite, df)
    ]
    published = [f"- {c.source}: {c.published}." for c in suite.claims]
    return Report(title(suite, "What attention heads attend to", first), files=paths).add(
        specialist_section(specialists(heads, base) if len(heads) else pd.DataFrame(), variants),
        trend_section(entropy_trends(heads) if len(heads) else pd.DataFrame(), variants),
        layer_section(heads, variants),
        grids,
        maps,
        section("Against the published findings", published + [""] + verdicts + [""]),
        _setup(df, first, variants, seeds, base, uniform),
        learning_section(learning_checks(df, "loss"), variants),
    )


def _figures(df, heads, variants, folder: Path, uniform, settings) -> tuple[list[Path], Section, Section]:
    """Each variant's layer x head grid and attention maps of its first seed: the files, and their two sections."""
    paths: list[Path] = []
    grid_lines, map_lines = [], []
    for v in variants:
        part = heads[heads.variant == v]
        if not len(part):
            continue
        seed = int(part.seed.min())
        grid_name, maps_name = figure_names(v)
        paths.append(grid_figure(part[part.seed == seed], v, seed, folder / grid_name, uniform.get((v, seed))))
        grid_lines += [f"![{v}: layer x head grid](figures/{grid_name})", ""]
        maps = df[(df.variant == v) & (df.seed == seed) & (df.metric == "attention_map") & (df.status == "ok")]
        if len(maps):
            paths.append(maps_figure(maps, v, seed, folder / maps_name))
            chosen = "; ".join(
                f"layer {r.extra['layer'] + 1} head {r.extra['head'] + 1}: {r.extra['criterion']} ({r.value:.2f})"
                for r in maps.itertuples()
            )
            map_lines += [f"`{v}` (seed {seed}): {chosen}.", "", f"![{v}: attention maps](figures/{maps_name})", ""]
    grids = section(
        "Layer x head grids",
        [
            "Each variant's first seed (heads are not comparable across seeds). Rows are layers (1 = nearest the "
            "input), columns heads; the last panel shows each head's most attended fixed offset d (1 = previous "
            "token, 0 = itself) coloured by the share it receives.",
            "",
            *grid_lines,
        ],
        FIGURE if grid_lines else BODY,
    )
    maps = section(
        "Typical attention maps of the most distinct heads",
        [
            "For each variant, the heads with the largest previous-token, first-token and delimiter share (delimiters "
            "ranked by their excess over even attention), the smallest entropy and the largest mean distance, each "
            f"head shown once, on the first {settings['map_len']} characters of the first held-out window (␣ space, "
            "↵ newline). Rows are queries, columns the keys they attend to.",
            "",
            *map_lines,
        ],
    )
    return paths, grids, maps


def _setup(df, first, variants, seeds, base, uniform) -> Section:
    settings, spec = first.profile_settings, first.spec
    train_len = int(settings["train_len"])
    base_text = fmt_mean_ci(list(base.values()), 3, "bounded", (0.0, 1.0)) if base else "-"  # a share
    uniform_text = fmt_mean_ci(list(uniform.values()), 3, "log") if uniform else "-"  # an entropy above 0
    reading = (
        f"- Reading: {int(first.get('eval_windows') or settings['eval_windows'])} non-overlapping held-out windows of "
        f"{train_len} characters from the start of the held-out split, each layer's attention probabilities computed "
        f"explicitly (the naive kernel's softmax). Every statistic is a mean over the queries at positions "
        f"1..{train_len - 1} of every window (position 0 can only attend to itself). Delimiters: space, newline, tab "
        f"and ASCII punctuation; a head attending evenly over the keys a query may see would put {base_text} of its "
        f"attention on them and have entropy {uniform_text} nats."
    )
    return section(
        "Setup",
        [
            f"- Models: position_extrapolation's decoder-only Transformer, {spec['n_layers']} layers, d_model "
            f"{spec['d_model']}, {spec['n_heads']} heads, Pre-LN, tied embeddings; parameters: "
            f"{parameter_counts(df[df.status == 'ok'], variants)}.",
            f"- Training: {settings['steps']} steps of {settings['batch_size']} x {train_len} characters, AdamW lr "
            f"{settings['lr']:g} (warm-up {settings['warmup_steps']} steps, cosine decay), weight decay "
            f"{settings['weight_decay']:g}, clipping {settings['grad_clip']:g}; profile `{first.profile}`; seeds {seeds}.",
            f"- Corpus: {first.get('corpus', '?')} (sha256 {str(first.data_checksum)[:16]}...), "
            f"{first.get('split') or '-'}; {int(first.get('train_chars') or 0):,} training characters, read "
            f"{float(first.get('train_passes') or 0):.2f} times. Weights: " + _weights(df) + ".",
            reading,
            f"- Device: {first.device} ({first.device_name}), {first['dtype']}, torch {first.torch_version}; "
            f"{code_line(df)}.",
            "",
        ],
        BOOKKEEPING,
    )


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
