"""The attention_cost report: memory growth against naive (the answer), latency, memory, FLOP/s, slopes, figures;
setup, support and correctness last."""

from __future__ import annotations

import statistics
from pathlib import Path

import pandas as pd
import torch

from harness.findings import sentences
from harness.measure import MAX_OTHER_CPU, MAX_STALL
from harness.report_kit import code_line, first_ok, title, write_markdown
from harness.report_kit import seeds as seeds_of
from suites.attention_cost import headline
from suites.attention_cost.figures import latency_and_memory_figures, roofline
from suites.attention_cost.masking_verdict import masking_section
from suites.attention_cost.tables import (
    cases,
    correctness,
    dispatch_line,
    memory_ratios,
    method,
    over_peak,
    slope_rows,
    speedups,
    support,
    table,
    with_cases,
)
from suites.attention_cost.verdicts import CLAIMS, NO_PAIRS, PUBLISHED, findings, verdicts  # noqa: F401  (CLAIMS and findings: read through this module)
from suites.common.ceiling_notes import (
    accelerator_line,
    bandwidth_note,
    measured_peak,
    nominal_peak_note,
    with_nominal_share,
)
from suites.common.facts import fact
from variants.kernel import tolerance


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    df = with_cases(df)
    first = df.iloc[0]
    settings = first.profile_settings
    lengths, keys, reference = cases(df)
    seeds = seeds_of(df)
    peaks = df[(df.metric == "matmul_peak") & (df.status == "ok")].value
    dtype = str(first["dtype"])
    atol, rtol = tolerance(getattr(torch, dtype, None))
    lines = title(suite, "Attention kernel cost", first)
    slope_table, slopes = slope_rows(df, keys)
    lines += headline.section(df, slopes, reference, lengths)

    lines += [
        "## Latency (ms)",
        "",
        "Median time of one call over the repeats kept; ± is half the interquartile range as a share of the median; "
        "`*` marks a cell where fewer than 3 repeats were free of other processes' CPU use (all repeats kept). "
        "`skipped` cells are over the profile's per-call budget (memory and FLOPs are still measured).",
        "",
        table(df, "latency", lengths, keys, noise=True),
        "",
    ]
    lines += [
        "## Speed-up over naive attention of the same head grouping",
        "",
        "median(naive) / median(kernel), with a 95% bootstrap interval over repeats in brackets (the noise figure).",
        "",
        speedups(df, lengths, keys, reference),
        "",
    ]
    lines += [
        "## Peak memory (MiB)",
        "",
        "Most bytes held at once during one call beyond its inputs (outputs, saved "
        "activations and gradients included).",
        "",
        table(df, "peak_memory", lengths, keys, digits=4),
        "",
        "Naive's memory over the kernel's:",
        "",
        memory_ratios(df, lengths, keys, reference),
        "",
    ]
    lines += [
        "## Achieved FLOP/s as a share of the measured torch.mm peak (%)",
        "",
        "Useful FLOPs (torch.utils.flop_counter on naive attention of the same shapes; causal cases count the "
        f"unmasked half) divided by the median latency, over {measured_peak(df)}." + over_peak(df),
        "",
        table(df, "peak_fraction", lengths, keys, digits=3),
        "",
    ]
    lines += _nominal_section(df, lengths, keys)
    lines += [
        "## Growth with sequence length",
        "",
        "Least-squares slope of log(value) on log(length) over the three longest lengths measured: 1 is linear, 2 quadratic.",
        "",
        slope_table,
        "",
    ]
    figures = latency_and_memory_figures(df, out_dir / "figures")
    lines += ["## Figures", ""] + [f"![{p.stem}](figures/{p.name})" for p in figures] + [""]
    figures.append(roofline(df, out_dir / "figures"))
    lines += [
        "## Roofline",
        "",
        f"![attention kernels' roofline](figures/{figures[-1].name})",
        "",
        "Each timed case's useful FLOP/s against its arithmetic intensity: useful FLOPs over the case's compulsory "
        "bytes, each input and output read or written once (q and the output (B, H, T, Dh), k and v (B, Hkv, T, Dh); "
        "forward 2 (Q + KV) bytes, fwd+bwd 6 (Q + KV)); bytes are not recorded, so they come from the records' shapes, "
        "and a kernel that materialises the (T, T) scores moves more than this. The roof is the measured torch.mm peak "
        "and the slope the measured read bandwidth, solid; nominal ceilings dashed where the device is known. "
        + bandwidth_note(df, ("read_bandwidth",), unknown=False)
        + " "
        + nominal_peak_note(df),
        "",
    ]
    memory, peak = verdicts(df, slopes, reference, lengths)
    # the memory verdict's per-kernel sentences are the first table's rows; its verdict is said here once
    said = (
        [f"The linear-memory finding {_says(memory.verdict)} on the first table's fused kernels."]
        if memory.verdict != "not run"
        else []
    ) + sentences([peak])
    lines += masking_section(df)
    lines += ["## Against the published findings", "", PUBLISHED + " " + (" ".join(said) or NO_PAIRS), ""]
    lines += _setup(df, first_ok(df), settings, seeds, peaks, dtype, atol, rtol)
    lines += support(df)
    lines += correctness(df, keys)
    return [write_markdown(suite, lines, out_dir), *figures]


def _nominal_section(df, lengths, keys) -> list[str]:
    """The same FLOP/s as a share of the device's nominal peak (harness/ceilings.py), or the sentence saying which
    devices have none."""
    with_nominal = with_nominal_share(df)
    lines = ["## Achieved FLOP/s as a share of the nominal peak (%)", "", nominal_peak_note(df), ""]
    if (with_nominal.metric == "nominal_fraction").any():
        lines += [table(with_nominal, "nominal_fraction", lengths, keys, digits=3), ""]
    return lines


def _says(verdict: str) -> str:
    return {"agrees": "agrees", "disagrees": "disagrees", "inconclusive": "is inconclusive"}.get(
        verdict, f"is {verdict}"
    )


def _setup(df, first, settings, seeds, peaks, dtype, atol, rtol) -> list[str]:
    lat = df[(df.metric == "latency") & (df.status == "ok")]
    repeats = sum(len(e["times"]) for e in lat.extra)
    kept = sum(sum(e.get("kept_mask") or []) for e in lat.extra)
    contaminated = sum(bool(e.get("contaminated")) for e in lat.extra)
    others = [e["other_cpu_median"] for e in lat.extra if e.get("other_cpu_median") is not None]
    stalls = [e["stall_median"] for e in lat.extra if e.get("stall_median") is not None]
    return [
        "## Setup",
        "",
        f"- Shapes: batch {settings['batch']}, {settings['n_heads']} query heads of dimension {settings['head_dim']}; "
        f"lengths {', '.join(str(x) for x in settings['lengths'])}; {dtype}; profile `{first.profile}`, seeds {seeds}.",
        f"- Timing: torch.utils.benchmark.Timer blocks (at least {settings['min_repeats']} repeats and "
        f"{settings['min_run_time']} s per case) after a warm-up call; calls over {settings['max_call_s']} s are not timed. "
        f"Peak memory: {method(df)}. FLOPs: torch.utils.flop_counter.",
        f"- Check before timing: every case's output (and, for fwd+bwd, the gradients of q, k and v) against float64 "
        f"naive attention on {settings['check_rows']} sampled query rows; allowed error {atol:g} + {rtol:g} x max|reference| in {dtype}.",
        f"- Device: {first.device} ({first.device_name}), torch {first.torch_version}, {fact(first, 'timing_threads')} threads "
        f"while measuring, flush denormals {fact(first, 'flush_denormal')}, allocator {fact(first, 'allocator')}; measured "
        f"torch.mm peak {peaks.mean():.1f} GFLOP/s ({len(peaks)} jobs, min {peaks.min():.1f}, max {peaks.max():.1f}); "
        f"{code_line(df)}.",
        accelerator_line(df),
        dispatch_line(df),
        f"- Contention: a repeat is dropped when other processes used over {MAX_OTHER_CPU} cores or kept a CPU "
        f"waiting over {MAX_STALL:.0%} of its time (Linux PSI). {kept} of {repeats} repeats were clean; {contaminated} of "
        f"{len(lat)} timed cases had fewer than 3 clean repeats and keep all of them. Median other-process CPU during "
        f"timing: {statistics.median(others) if others else float('nan'):.2f} cores; median CPU stall share "
        f"{statistics.median(stalls) if stalls else float('nan'):.0%}."
        + (
            " These latencies are contaminated by other processes: rerun on a quiet machine before quoting them."
            if lat.size and contaminated > len(lat) / 4
            else ""
        ),
        "",
    ]
