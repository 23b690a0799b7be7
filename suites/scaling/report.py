"""The scaling report: the laws and multipliers first, the per-rung verdicts, the ladder and its sweep, the figures."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.report import markdown_table
from harness.report_kit import begin, code_line, title
from harness.report_sections import BODY, FIGURE, HEADLINE, Report, Section, section
from suites.scaling.figures import law_figure, multiplier_figure
from suites.scaling.fit import DRAWS, HUBER_DELTA, MIN_POINTS
from suites.scaling.laws import EXTRAPOLATE, fitted, law_table, multiplier_table, multipliers
from suites.scaling.tables import ORDER, bases, rung_table, settings, sweep_flags, sweep_table


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    first, _, seeds = begin(df, out_dir, ORDER)
    order, laws = bases(df), fitted(df)
    rows = multipliers(df, laws)
    head = title(suite, "Does the winner still win at scale?", first)
    flags = sweep_flags(df)
    if flags:
        head += ["**Confounds of this run:** " + " ".join(flags), ""]
    report = Report(head)
    # the multipliers lead when there are any; else the fitted laws (the first table) do, with their figures
    multiplied = _multipliers_section(rows, order, HEADLINE if rows else BODY)
    fitted_laws = _laws_section(df, laws, order, out_dir / "figures", FIGURE if rows else HEADLINE, report.files)
    found = judge_all(suite, df)
    return report.add(
        multiplied,
        fitted_laws,
        section(
            "Claims judged at every rung",
            [f"- **{f.claim.name}** ({f.claim.source}): {f.verdict}. {f.sentence}" for f in found] + [""],
        ),
        _ladder_section(df, first, seeds),
        _sweep_section(df, first),
    )


def _multipliers_section(rows, order: list[str], kind: str) -> Section:
    return section(
        "Compute multipliers against the baseline",
        [
            f"The compute `{order[0] if order else 'baseline'}`'s law needs to reach each variant's loss at the same "
            "compute, per unit spent (above 1x the variant is worth more compute than it spends), from the fitted laws "
            f"below; at each rung's compute and one decade ({EXTRAPOLATE:g}x) past the ladder. Interval: {DRAWS} "
            "bootstrap draws over seeds within rungs, the variant's and the baseline's resampled independently. A "
            "bootstrap over a few seeds per rung under-covers (two seeds give each rung three distinct resamples), so "
            "these intervals are narrower than the paired test's below, which is the one the verdicts use.",
            "",
            markdown_table(multiplier_table(rows, DRAWS))
            if rows
            else "No multiplier: the baseline or a variant has no law.",
            "",
        ],
        kind,
    )


def _laws_section(df: pd.DataFrame, laws, order: list[str], figures: Path, kind: str, files: list[Path]) -> Section:
    """The fitted laws' table, then the figures (drawn here; their paths appended to ``files``)."""
    s = settings(df)
    lines = [
        f"C in training FLOPs, L in nats per character; fitted with a Huber loss (δ = {HUBER_DELTA:g}) on log residuals "
        f"to each run's kept losses at or after {s.get('fit_from', 1.0):g} of its training (at least {MIN_POINTS} "
        "points); 95% interval over the bootstrap draws.",
        "",
        markdown_table(law_table(laws, order)),
        "",
    ]
    files.append(law_figure(df, laws, order, figures / "scaling_laws.png"))
    lines += [f"![Loss against compute per variant](figures/{files[-1].name})", ""]
    made = multiplier_figure(df, laws, order, figures / "scaling_multipliers.png")
    if made is not None:
        files.append(made)
        lines += [f"![Compute multiplier against compute](figures/{made.name})", ""]
    return section("Fitted laws L(C) = E + A C^-α", lines, kind)


def _ladder_section(df: pd.DataFrame, first, seeds: list[int]) -> Section:
    s = settings(df)
    table = rung_table(df)
    if len(table):
        table["loss per seed"] = table["loss per seed"].map(lambda xs: ", ".join(f"{x:.4f}" for x in xs))
        table["training FLOPs"] = table["training FLOPs"].map(lambda x: f"{x:.3g}")
    return section(
        "The ladder",
        [
            f"Widths {list(s['rungs'])} at {s['n_layers']} layers and heads of {s['head_dim']} (the width grows, depth "
            f"and head size stay), {s['tokens_per_parameter']:g} training tokens per non-embedding parameter in steps of "
            f"{s['batch_size']} x {s['train_len']} characters, AdamW at each of the peak rates "
            f"{list(s['learning_rates'])} (warm-up {s['warmup_fraction']:g} of the steps, cosine decay to 10%), the rate "
            f"kept per rung and seed on {s['eval_tokens']} validation characters; loss on {s['eval_tokens']} scored "
            f"characters in the alternate windows of the held-out split. Corpus {first.get('corpus', '?')}; seeds "
            f"{seeds}; profile `{first.profile}`.",
            "",
            markdown_table(table) if len(table) else "No run finished.",
            "",
        ],
    )


def _sweep_section(df: pd.DataFrame, first) -> Section:
    sweep = sweep_table(df)
    return section(
        "The learning-rate sweep",
        [
            "Validation loss (nats/char) at the end of training per peak rate, mean over seeds; the kept rate per rung "
            "and seed is the one whose loss is lowest (marked with the seeds that kept it). A rung whose kept rate is "
            "at an end of the sweep may do better beyond it (named at the top of the report when it happens).",
            "",
            markdown_table(sweep) if len(sweep) else "No sweep recorded.",
            "",
            f"- Device: {first.device} ({first.device_name}), {first['dtype']}, torch {first.torch_version}; "
            f"{code_line(df)}.",
            "",
        ],
    )
