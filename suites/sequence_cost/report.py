"""The sequence_cost report: share of the measured matmul peak (the answer), latency, tokens/s, sequential work, figure, verdict;
setup, the check before timing and the cases not timed last."""

from __future__ import annotations

import statistics
from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.findings import sentences
from harness.measure import MAX_OTHER_CPU, MAX_STALL
from harness.report_kit import begin, code_line, title
from harness.report_sections import BODY, BOOKKEEPING, FIGURE, HEADLINE, Report, Section, section
from suites.common.ceiling_notes import accelerator_line, measured_peak, nominal_peak_note, with_nominal_share
from suites.common.facts import fact
from suites.sequence_cost.figures import cost_figure
from suites.sequence_cost.share_table import share_section
from suites.sequence_cost.speedups import speedup_section
from suites.sequence_cost.tables import (
    TABLES,
    _check,
    _frame,
    _not_timed,
    _order,
    _over_peak,
    _steps,
    _table,
    decode_section,
)

#: the per-length tables that are not body sections: the share of the peak answers the utilisation claim (the
#: headline); the operators dispatched say how a layer ran (bookkeeping)
KINDS = {"peak_fraction": HEADLINE, "dispatched_ops": BOOKKEEPING}


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    df = _frame(df)
    first, _, seeds = begin(df, out_dir)
    variants = _order(df)
    cases = df[df["pass"].notna()]
    lengths = sorted(cases.x.dropna().unique())
    passes = [p for p in ("fwd", "fwd+bwd") if p in set(cases["pass"].dropna())]
    figure = cost_figure(df[(df.status == "ok")], variants, out_dir / "figures" / f"{suite.name}.png")
    report = Report(title(suite, "Recurrence against attention on one device", first), files=[figure] if figure else [])
    # the share of the matmul peak is what the utilisation claim is about: its table, then the nominal one, come first
    for metric, heading, note in sorted(TABLES, key=lambda t: t[0] != "peak_fraction"):
        if metric == "peak_fraction":
            note = note.format(peak=measured_peak(df)) + _over_peak(df)
        table = _table(df, metric, variants, lengths, passes)
        report.add(section(heading, [note, "", table, ""], KINDS.get(metric, BODY)))
        if metric == "peak_fraction":
            report.add(_nominal_section(df, variants, lengths, passes))
    return report.add(
        _steps(df, variants, passes),
        speedup_section(df),
        _figure_section(figure),
        _against_section(suite, df),
        share_section(df),
        decode_section(df, variants),
        _setup(df, first, first.profile_settings, variants, seeds),
        _check(df, variants),
        _not_timed(df),
    )


def _figure_section(figure: Path | None) -> Section | None:
    if not figure:
        return None
    return section(
        "Figure",
        [f"![latency and share of the measured torch.mm peak against length](figures/{figure.name})", ""],
        FIGURE,
    )


def _against_section(suite, df) -> Section:
    """The quoted utilisation and its source, then one sentence per claim."""
    utilisation = next(c for c in suite.claims if c.key == "recurrence_idles_device")
    return section(
        "Against the quoted utilisation",
        [f"{utilisation.published}; {utilisation.source}.", ""]
        + [f"- {s}" for s in sentences(judge_all(suite, df))]
        + [""],
    )


def _nominal_section(df, variants, lengths, passes) -> Section:
    """The same FLOP/s as a share of the device's nominal peak (harness/ceilings.py), or the sentence saying which
    devices have none."""
    with_nominal = with_nominal_share(df)
    lines = [nominal_peak_note(df), ""]
    if (with_nominal.metric == "nominal_fraction").any():
        lines += [_table(with_nominal, "nominal_fraction", variants, lengths, passes), ""]
    return section("FLOP/s as a share of the nominal peak (%)", lines)


def _setup(df, first, settings, variants, seeds) -> Section:
    ok = df[df.status == "ok"]
    params = ok.groupby("variant").parameters.first() if "parameters" in ok else pd.Series(dtype=float)
    kinds = df.groupby("variant").layer.first()
    peaks = df[(df.metric == "matmul_peak") & (df.status == "ok")].value
    lat = df[(df.metric == "latency") & (df.status == "ok")]
    contaminated = sum(bool(e.get("contaminated")) for e in lat.extra)
    others = [e["other_cpu_median"] for e in lat.extra if e.get("other_cpu_median") is not None]
    lines = [
        f"- Layers, width d = {settings['d_model']} (input and hidden), batch {settings['batch']}: "
        + "; ".join(f"`{v}` {kinds[v]}, {int(params[v]):,} parameters" for v in variants if v in params.index)
        + f". The Transformer block is Pre-LN attention with {settings['n_heads']} heads, causal, no position encoding, "
        "then a 4d GELU feed-forward layer.",
        f"- Lengths {', '.join(str(x) for x in settings['lengths'])}; passes {', '.join(settings['passes'])} (fwd under "
        f"no_grad; fwd+bwd computes the gradients of the input and every weight); {first['dtype']}; profile "
        f"`{first.profile}`, seeds {seeds}.",
        f"- Timing: torch.utils.benchmark.Timer blocks, at least {settings['min_repeats']} repeats and "
        f"{settings['min_run_time']} s per case, after a warm-up call; calls over {settings['max_call_s']} s are not "
        f"timed. Repeats during which other processes used over {MAX_OTHER_CPU} cores or stalled a CPU over "
        f"{MAX_STALL:.0%} of the time are dropped; {contaminated} of {len(lat)} timed cases kept all repeats for lack "
        "of clean ones"
        + (f" (median other-process CPU {statistics.median(others):.2f} cores)" if others else "")
        + ".",
        f"- Device: {first.device} ({first.device_name}), torch {first.torch_version}, {fact(first, 'num_threads')} "
        f"threads, flush denormals {fact(first, 'flush_denormal')}; measured torch.mm peak {peaks.mean():.1f} GFLOP/s "
        f"({len(peaks)} jobs, min {peaks.min():.1f}, max {peaks.max():.1f}); {code_line(df)}.",
        accelerator_line(df),
        "",
    ]
    return section("Setup", lines, BOOKKEEPING)
