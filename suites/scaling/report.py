"""The scaling report: the laws and multipliers first, the per-rung verdicts, the ladder and its sweep, the figures."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report import markdown_table
from harness.report_kit import begin, code_line, title, write_markdown
from suites.scaling.figures import law_figure, multiplier_figure
from suites.scaling.fit import DRAWS, HUBER_DELTA, MIN_POINTS
from suites.scaling.laws import EXTRAPOLATE, fitted, law_table, multiplier_table, multipliers
from suites.scaling.tables import ORDER, bases, rung_table, settings, sweep_flags, sweep_table
from suites.scaling.verdicts import CLAIMS, findings  # noqa: F401  (the suite's claims and verdicts, read through this module)


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> list[Path]:
    first, _, seeds = begin(df, out_dir, ORDER)
    s = settings(df)
    order = bases(df)
    laws = fitted(df)
    lines = title(suite, "Does the winner still win at scale?", first)
    flags, sweep = sweep_flags(df), sweep_table(df)
    if flags:
        lines += ["**Confounds of this run:** " + " ".join(flags), ""]
    rows = multipliers(df, laws)
    lines += [
        "## Compute multipliers against the baseline",
        "",
        f"The compute `{order[0] if order else 'baseline'}`'s law needs to reach each variant's loss at the same "
        "compute, per unit spent (above 1x the variant is worth more compute than it spends), from the fitted laws below; "
        f"at each rung's compute and one decade ({EXTRAPOLATE:g}x) past the ladder. Interval: {DRAWS} bootstrap draws "
        "over seeds within rungs, the variant's and the baseline's resampled independently. A bootstrap over a few seeds "
        "per rung under-covers (two seeds give each rung three distinct resamples), so these intervals are narrower than "
        "the paired test's below, which is the one the verdicts use.",
        "",
        markdown_table(multiplier_table(rows, DRAWS))
        if rows
        else "No multiplier: the baseline or a variant has no law.",
        "",
        "## Fitted laws L(C) = E + A C^-α",
        "",
        f"C in training FLOPs, L in nats per character; fitted with a Huber loss (δ = {HUBER_DELTA:g}) on log residuals "
        f"to each run's kept losses at or after {s.get('fit_from', 1.0):g} of its training (at least {MIN_POINTS} "
        "points); 95% interval over the bootstrap draws.",
        "",
        markdown_table(law_table(laws, order)),
        "",
    ]
    paths = []
    figures = out_dir / "figures"
    paths.append(law_figure(df, laws, order, figures / "scaling_laws.png"))
    lines += [f"![Loss against compute per variant](figures/{paths[-1].name})", ""]
    made = multiplier_figure(df, laws, order, figures / "scaling_multipliers.png")
    if made is not None:
        paths.append(made)
        lines += [f"![Compute multiplier against compute](figures/{made.name})", ""]
    found = findings(df)
    lines += ["## Claims judged at every rung", ""]
    lines += [f"- **{f.claim.name}** ({f.claim.source}): {f.verdict}. {f.sentence}" for f in found] + [""]
    table = rung_table(df)
    if len(table):
        table["loss per seed"] = table["loss per seed"].map(lambda xs: ", ".join(f"{x:.4f}" for x in xs))
        table["training FLOPs"] = table["training FLOPs"].map(lambda x: f"{x:.3g}")
    lines += [
        "## The ladder",
        "",
        f"Widths {list(s['rungs'])} at {s['n_layers']} layers and heads of {s['head_dim']} (the width grows, depth and head "
        f"size stay), {s['tokens_per_parameter']:g} training tokens per non-embedding parameter in steps of "
        f"{s['batch_size']} x {s['train_len']} characters, AdamW at each of the peak rates {list(s['learning_rates'])} "
        f"(warm-up {s['warmup_fraction']:g} of the steps, cosine decay to 10%), the rate kept per rung and seed on "
        f"{s['eval_tokens']} validation characters; loss on {s['eval_tokens']} scored characters in the alternate windows "
        f"of the held-out split. Corpus {first.get('corpus', '?')}; seeds {seeds}; profile `{first.profile}`.",
        "",
        markdown_table(table) if len(table) else "No run finished.",
        "",
        "## The learning-rate sweep",
        "",
        "Validation loss (nats/char) at the end of training per peak rate, mean over seeds; the kept rate per rung and "
        "seed is the one whose loss is lowest (marked with the seeds that kept it). A rung whose kept rate is at an end of the sweep may "
        "do better beyond it (named at the top of the report when it happens).",
        "",
        markdown_table(sweep) if len(sweep) else "No sweep recorded.",
        "",
        f"- Device: {first.device} ({first.device_name}), {first['dtype']}, torch {first.torch_version}; {code_line(df)}.",
        "",
    ]
    return [write_markdown(suite, lines, out_dir), *paths]
