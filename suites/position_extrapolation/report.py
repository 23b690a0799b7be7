"""The position_extrapolation report: setup, perplexity by length, a figure and the published finding."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report_kit import code_line, in_order, machines, title, write_markdown
from harness.report_kit import seeds as seeds_of
from suites.common.facts import fact
from suites.common.learning import learning_section
from suites.position_extrapolation.figures import perplexity_figure
from suites.position_extrapolation.probe_figures import PROBE_FIGURES  # noqa: F401  (the figures its claims cite)
from suites.position_extrapolation.rope_extension_report import section as rope_extension_section
from suites.position_extrapolation.tables import (  # noqa: F401
    NOT_COMPARABLE,
    ORDER,
    Shape,
    consecutive_section,
    extrapolation_section,
    perplexity_section,
)
from suites.position_extrapolation.verdicts import CLAIMS, PUBLISHED, extrapolation_finding, findings, verdict  # noqa: F401  (the suite's claims and verdicts, read through this module)
from suites.position_extrapolation.window_span import window_section


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    ok = df[df.status == "ok"]
    variants = in_order(df.variant.unique(), ORDER)
    lengths = sorted(ok[ok.metric == "perplexity"].x.dropna().unique())
    first = df.iloc[0]
    settings = first.profile_settings
    train_len = int(settings["train_len"])
    lines = title(suite, "Length extrapolation", first)

    # --- setup, from the records themselves
    spec = first.spec
    params = ok.groupby("variant").parameters.first() if "parameters" in ok else pd.Series(dtype=float)
    seeds = seeds_of(df)
    lines += [
        "## Setup",
        "",
        f"- Model: decoder-only Transformer, {spec['n_layers']} layers, d_model {spec['d_model']}, {spec['n_heads']} heads, "
        f"Pre-LN, tied embeddings, kernel {spec['kernel']}; parameters: "
        + ", ".join(f"{v} {int(params[v]):,}" for v in variants if v in params.index)
        + ".",
        f"- Training: {settings['steps']} steps of {settings['batch_size']} x {train_len} characters (L = {train_len}), "
        f"AdamW lr {settings['lr']:g} (warm-up {settings['warmup_steps']} steps, cosine decay), weight decay "
        f"{settings['weight_decay']:g}, gradient clipping {settings['grad_clip']:g}; profile `{first.profile}`; seeds {seeds}.",
        f"- Corpus: {first.get('corpus', '?')} (sha256 {str(first.data_checksum)[:16]}...), "
        f"{first.get('split') or 'last ' + format(settings['heldout_fraction'], '.0%') + ' held out'}; "
        f"{int(first.get('train_chars') or 0):,} training characters, read {float(first.get('train_passes') or 0):.2f} times; "
        f"{int(first.get('eval_chars', 0)):,} held-out characters scored at every length.",
        f"- Protocol: **{settings['protocol']}** windows"
        + (f" (stride {settings['stride'] or train_len})" if settings["protocol"] == "sliding" else "")
        + ".",
        f"- Device: {first.device} ({machines(df)}), {first['dtype']}, torch {first.torch_version}, "
        f"flush denormals {fact(first, 'flush_denormal')}, allocator {fact(first, 'allocator')}; "
        f"{code_line(df)}.",
        "",
    ]

    lines += perplexity_section(df, ok, variants, lengths, train_len)
    lines += consecutive_section(ok, lengths, train_len)  # empty unless the run has randomized positions

    # --- did each variant learn, and how flat is it
    shape = Shape(df)
    lines += learning_section(shape.checks, variants)
    lines += extrapolation_section(shape, variants)

    figure = perplexity_figure(ok, variants, train_len, out_dir / "figures" / f"{suite.name}.png")
    lines += ["## Figure", "", f"![perplexity against evaluation length](figures/{figure.name})", ""]
    lines += ["## Against the published finding", "", PUBLISHED + " " + extrapolation_finding(df).sentence, ""]
    lines += rope_extension_section(df, train_len)  # empty unless the run has rope+<scaling> variants
    lines += window_section(ok, variants, lengths, train_len)  # empty unless the run has rope+window<W> variants
    return [write_markdown(suite, lines, out_dir), figure]
