"""The scaling report: the per-rung multipliers first, the laws (or why none is fitted), the per-rung verdicts, the
ladder and its sweep, the figures."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from harness.claims import judge_all
from harness.report import markdown_table
from harness.report_kit import begin, code_line, title
from harness.report_sections import BODY, FIGURE, HEADLINE, Report, Section, section
from suites.scaling.figures import law_figure, multiplier_figure
from suites.scaling.fit import ALPHA_MAX, MIN_DECADES, MIN_RUNGS
from suites.scaling.ladder import BASELINE
from suites.scaling.laws import fitted, law_table, multiplier_table, multipliers
from suites.scaling.tables import ORDER, bases, rung_compute, rung_table, settings, sweep_flags, sweep_table


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    first, _, seeds = begin(df, out_dir, ORDER)
    order, laws = bases(df), fitted(df)
    rows = multipliers(df)
    head = title(suite, "Does the winner still win at scale?", first)
    flags = sweep_flags(df)
    if flags:
        head += ["**Confounds of this run:** " + " ".join(flags), ""]
    report = Report(head)
    found = judge_all(suite, df)
    return report.add(
        _multipliers_section(df, rows, order),
        _laws_section(df, laws, order, out_dir / "figures", report.files, bool(rows)),
        section(
            "Claims judged at every rung",
            [f"- **{f.claim.name}** ({f.claim.source}): {f.verdict}. {f.sentence}" for f in found] + [""],
        ),
        _ladder_section(df, first, seeds),
        _sweep_section(df, first),
    )


def _multipliers_section(df: pd.DataFrame, rows, order: list[str]) -> Section:
    return section(
        "Compute multipliers against the baseline, rung by rung",
        [
            f"At each rung, the compute `{order[0] if order else 'baseline'}` needs to reach the variant's final loss, "
            "over the baseline's compute at that rung (above 1x the variant is worth more compute than the rung's "
            "budget): the paired difference of final losses over seeds (the test the verdicts use) mapped through the "
            "local slope of the baseline's measured loss-compute curve (its mean loss per rung, joined rung to rung in "
            "log compute). The 95% interval is the paired interval mapped the same way, so it excludes 1 exactly when "
            "the paired test counts; on simulated null ladders of the reference's size (4 rungs, 3 seeds) it covers 1 about "
            "95% of the time "
            '(tests/unit/suites/scaling/test_scaling_multipliers.py). An interval marked "an end read past the ladder" '
            "reads the curve beyond the rungs along its end segment's slope (straight in log compute, so it may "
            "under-cover a large effect there). No multiplier is given past the last rung.",
            "",
            markdown_table(multiplier_table(df, rows))
            if rows
            else "No multiplier: the baseline or a variant lacks a rung.",
            "",
        ],
        HEADLINE if rows else BODY,
    )


def _laws_section(
    df: pd.DataFrame, laws, order: list[str], figures: Path, files: list[Path], multiplied: bool
) -> Section:
    """The fitted laws' table, or why none is fitted, then the figures (drawn here; their paths appended to ``files``)."""
    gates = {f.gate for f in laws.values()}
    lines = [
        "One point per run: its held-out loss at the end of training against its training FLOPs (the losses kept "
        "earlier in a run are drawn hollow in the figure and never fitted). A law is fitted only to a ladder of at "
        f"least {MIN_RUNGS} rungs spanning at least {MIN_DECADES:g} decades of compute (this project's choice: "
        "suites/scaling/fit.py gives the reasons), by least squares on log losses; E and α are printed with their "
        f"95% profile-likelihood intervals, or as not identified where the interval runs to the edge of the search "
        f"(E in [0, the lowest loss], α in [0, {ALPHA_MAX:g}]).",
        "",
    ]
    failing = sorted((g for g in gates if not g.passes), key=lambda g: (g.rungs, g.decades))
    if failing:
        lines += [f"**No law is fitted**: this ladder has {failing[0].why_not()}. {what_would_fit(df)}", ""]
    lines += [markdown_table(law_table(laws, order)), ""]
    files.append(law_figure(df, laws, order, figures / "scaling_laws.png"))
    lines += [f"![Loss against compute per variant](figures/{files[-1].name})", ""]
    made = multiplier_figure(df, order, figures / "scaling_multipliers.png")
    if made is not None:
        files.append(made)
        lines += [f"![Compute multiplier per rung](figures/{made.name})", ""]
    return section("Fitted laws L(C) = E + A C^-α", lines, FIGURE if multiplied else HEADLINE)


def what_would_fit(df: pd.DataFrame) -> str:
    """The rungs that would give this ladder a law: widths added past its largest until it spans MIN_RUNGS rungs and
    MIN_DECADES decades, their compute extrapolated from the measured rungs' (a power of the width fitted to them)."""
    s = settings(df)
    widths = [int(w) for w in s.get("rungs") or []]
    compute = rung_compute(df)
    measured = {r: c for (v, r), c in compute.items() if v == BASELINE}
    if len(measured) < 2 or not widths:
        return f"Give set.rungs at least {MIN_RUNGS} widths spanning {MIN_DECADES:g} decades of compute."
    rungs = sorted(measured)
    logw = np.log([widths[r] for r in rungs])
    logc = np.log([measured[r] for r in rungs])
    power, offset = np.polyfit(logw, logc, 1)
    step = int(s.get("head_dim", 8))
    target = math.log(min(measured.values())) + MIN_DECADES * math.log(10)
    needed = math.ceil(math.exp((target - offset) / power) / step) * step
    more = max(MIN_RUNGS - len(widths), 1 if widths[-1] < needed else 0)
    last = max(needed, widths[-1] + more * step)
    added = [int(math.ceil(x / step) * step) for x in np.geomspace(widths[-1], last, more + 1)[1:]]
    new = widths + added
    largest = math.exp(offset + power * math.log(new[-1]))
    return (
        f"A law would be fitted from `set.rungs=[{','.join(str(w) for w in new)}]`: its largest rung at about "
        f"{largest:.2g} training FLOPs (compute grows as width^{power:.2f} over the measured rungs), "
        f"{math.log10(largest / min(measured.values())):.2f} decades above the smallest."
        + _ladder_cost(df, [math.exp(offset + power * math.log(w)) for w in added])
    )


def _ladder_cost(df: pd.DataFrame, added_compute: list[float]) -> str:
    """' Every job runs again ...: about N CPU-hours' for the ladder with rungs of ``added_compute`` FLOPs added, from
    the records' wall times (a new rung's job at the largest measured rung's seconds per FLOP), or ''."""
    flops = df[(df.metric == "train_flops") & (df.status == "ok")]
    if "wall_time_s" not in flops or not len(flops):
        return ""
    flops = flops.drop_duplicates("job_hash") if "job_hash" in flops else flops
    top = flops[flops.value == flops.value.max()]
    rate = float((top.wall_time_s.astype(float) / top.value.astype(float)).mean())
    per_rung = flops.groupby(flops.variant.map(lambda v: v.split("+rung")[0])).seed.nunique().sum()
    seconds = float(flops.wall_time_s.astype(float).sum()) + per_rung * rate * sum(added_compute)
    if not math.isfinite(seconds) or seconds <= 0:
        return ""
    return (
        f" Every job runs again (the rungs are part of each job's identity): about {seconds / 3600:.0f} CPU-hours at "
        "one worker, from these records' wall times."
    )


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
            "and seed is the one whose loss is lowest (marked with the seeds that kept it). A variant-rung where some "
            "seed kept an end of its sweep is not bracketed: a rate beyond it may do better (named at the top of the "
            "report, with the run that would bracket it, and beside its verdicts and multipliers).",
            "",
            markdown_table(sweep) if len(sweep) else "No sweep recorded.",
            "",
            f"- Device: {first.device} ({first.device_name}), {first['dtype']}, torch {first.torch_version}; "
            f"{code_line(df)}.",
            "",
        ],
    )
