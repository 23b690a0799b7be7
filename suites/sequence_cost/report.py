"""The sequence_cost report: share of the measured matmul peak (the answer), latency, tokens/s, sequential work, figure, verdict;
setup, the check before timing and the cases not timed last."""

from __future__ import annotations

import statistics
from pathlib import Path

import pandas as pd

from harness.findings import sentences
from harness.measure import MAX_OTHER_CPU, MAX_STALL
from harness.report_kit import code_line, title, write_markdown
from harness.report_kit import seeds as seeds_of
from suites.common.ceiling_notes import accelerator_line, measured_peak, nominal_peak_note, with_nominal_share
from suites.common.facts import fact
from suites.sequence_cost.chunked import speedup_section
from suites.sequence_cost.figures import cost_figure
from suites.sequence_cost.scan import decode_table
from suites.sequence_cost.share_verdict import share_section
from suites.sequence_cost.tables import TABLES, _check, _frame, _not_timed, _order, _over_peak, _steps, _table, shares  # noqa: F401
from suites.sequence_cost.verdicts import CLAIMS, UTILISATION, findings  # noqa: F401  (the suite's claims and verdicts, read through this module)


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    df = _frame(df)
    first = df.iloc[0]
    settings = first.profile_settings
    variants = _order(df)
    cases = df[df["pass"].notna()]
    lengths = sorted(cases.x.dropna().unique())
    passes = [p for p in ("fwd", "fwd+bwd") if p in set(cases["pass"].dropna())]
    lines = title(suite, "Recurrence against attention on one device", first)
    # the share of the matmul peak is what the utilisation claim is about: its table, then the nominal one, come first
    for metric, heading, note in sorted(TABLES, key=lambda t: t[0] != "peak_fraction"):
        if metric == "peak_fraction":
            note = note.format(peak=measured_peak(df)) + _over_peak(df)
        lines += [f"## {heading}", "", note, "", _table(df, metric, variants, lengths, passes), ""]
        if metric == "peak_fraction":
            lines += _nominal_section(df, variants, lengths, passes)
    lines += _steps(df, variants, passes)
    lines += speedup_section(df)
    figure = cost_figure(df[(df.status == "ok")], variants, out_dir / "figures" / f"{suite.name}.png")
    if figure:
        lines += [
            "## Figure",
            "",
            f"![latency and share of the measured torch.mm peak against length](figures/{figure.name})",
            "",
        ]
    lines += ["## Against the quoted utilisation", "", f"{UTILISATION.published}; {UTILISATION.source}.", ""]
    lines += [f"- {s}" for s in sentences(findings(df))] + [""]
    lines += share_section(df)
    lines += decode_table(df, variants)
    lines += _setup(df, first, settings, variants)
    lines += _check(df, variants)
    lines += _not_timed(df)
    return [write_markdown(suite, lines, out_dir)] + ([figure] if figure else [])


def _nominal_section(df, variants, lengths, passes) -> list[str]:
    """The same FLOP/s as a share of the device's nominal peak (harness/ceilings.py), or the sentence saying which
    devices have none."""
    with_nominal = with_nominal_share(df)
    lines = ["## FLOP/s as a share of the nominal peak (%)", "", nominal_peak_note(df), ""]
    if (with_nominal.metric == "nominal_fraction").any():
        lines += [_table(with_nominal, "nominal_fraction", variants, lengths, passes), ""]
    return lines


def _setup(df, first, settings, variants) -> list[str]:
    ok = df[df.status == "ok"]
    params = ok.groupby("variant").parameters.first() if "parameters" in ok else pd.Series(dtype=float)
    kinds = df.groupby("variant").layer.first()
    peaks = df[(df.metric == "matmul_peak") & (df.status == "ok")].value
    lat = df[(df.metric == "latency") & (df.status == "ok")]
    contaminated = sum(bool(e.get("contaminated")) for e in lat.extra)
    others = [e["other_cpu_median"] for e in lat.extra if e.get("other_cpu_median") is not None]
    return [
        "## Setup",
        "",
        f"- Layers, width d = {settings['d_model']} (input and hidden), batch {settings['batch']}: "
        + "; ".join(f"`{v}` {kinds[v]}, {int(params[v]):,} parameters" for v in variants if v in params.index)
        + f". The Transformer block is Pre-LN attention with {settings['n_heads']} heads, causal, no position encoding, "
        "then a 4d GELU feed-forward layer.",
        f"- Lengths {', '.join(str(x) for x in settings['lengths'])}; passes {', '.join(settings['passes'])} (fwd under "
        f"no_grad; fwd+bwd computes the gradients of the input and every weight); {first['dtype']}; profile "
        f"`{first.profile}`, seeds {seeds_of(df)}.",
        f"- Timing: torch.utils.benchmark.Timer blocks, at least {settings['min_repeats']} repeats and "
        f"{settings['min_run_time']} s per case, after a warm-up call; calls over {settings['max_call_s']} s are not timed. "
        f"Repeats during which other processes used over {MAX_OTHER_CPU} cores or stalled a CPU over {MAX_STALL:.0%} of "
        f"the time are dropped; {contaminated} of {len(lat)} timed cases kept all repeats for lack of clean ones"
        + (f" (median other-process CPU {statistics.median(others):.2f} cores)" if others else "")
        + ".",
        f"- Device: {first.device} ({first.device_name}), torch {first.torch_version}, {fact(first, 'num_threads')} threads, "
        f"flush denormals {fact(first, 'flush_denormal')}; measured torch.mm peak {peaks.mean():.1f} GFLOP/s ({len(peaks)} "
        f"jobs, min {peaks.min():.1f}, max {peaks.max():.1f}); {code_line(df)}.",
        accelerator_line(df),
        "",
    ]
