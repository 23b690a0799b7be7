"""The attention_cost report: memory growth against naive (the answer), latency, memory, FLOP/s, slopes, figures;
setup, support and correctness last."""

from __future__ import annotations

import statistics
from pathlib import Path

import pandas as pd
import torch

from harness.claims import judge_all
from harness.findings import sentences
from harness.measure import MAX_OTHER_CPU, MAX_STALL
from harness.report_kit import begin, code_line, first_ok, title
from harness.report_sections import BOOKKEEPING, FIGURE, Report, Section, section
from suites.attention_cost.claims._shared import NO_PAIRS, PUBLISHED
from suites.attention_cost.figures import latency_and_memory_figures, roofline
from suites.attention_cost.headline import section as headline_section
from suites.attention_cost.masking_table import masking_section
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
from suites.common.ceiling_notes import (
    accelerator_line,
    bandwidth_note,
    measured_peak,
    nominal_peak_note,
    with_nominal_share,
)
from suites.common.facts import fact
from variants.kernel import tolerance


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    df = with_cases(df)
    first, _, seeds = begin(df, out_dir)
    lengths, keys, reference = cases(df)
    slope_table, slopes = slope_rows(df, keys)
    figures = latency_and_memory_figures(df, out_dir / "figures")
    roof = roofline(df, out_dir / "figures")
    report = Report(title(suite, "Attention kernel cost", first), files=[*figures, roof])
    return report.add(
        headline_section(df, slopes, reference, lengths),
        *_timing_sections(df, lengths, keys, reference),
        _nominal_section(df, lengths, keys),
        section(
            "Growth with sequence length",
            [
                "Least-squares slope of log(value) on log(length) over the three longest lengths measured: 1 is "
                "linear, 2 quadratic.",
                "",
                slope_table,
                "",
            ],
        ),
        section("Figures", [f"![{p.stem}](figures/{p.name})" for p in figures] + [""], FIGURE),
        _roofline_section(df, roof),
        masking_section(df),
        _against_section(suite, df),
        _setup(df, first, seeds),
        support(df),
        correctness(df, keys),
    )


def _timing_sections(df, lengths, keys, reference) -> list[Section]:
    """Latency, the speed-up over naive, peak memory and the share of the measured matmul peak, by case and length."""
    return [
        section(
            "Latency (ms)",
            [
                "Median time of one call over the repeats kept; ± is half the interquartile range as a share of the "
                "median; `*` marks a cell where fewer than 3 repeats were free of other processes' CPU use (all "
                "repeats kept). `skipped` cells are over the profile's per-call budget (memory and FLOPs are still "
                "measured).",
                "",
                table(df, "latency", lengths, keys, noise=True),
                "",
            ],
        ),
        section(
            "Speed-up over naive attention of the same head grouping",
            [
                "median(naive) / median(kernel), with a 95% bootstrap interval over repeats in brackets (the noise "
                "figure).",
                "",
                speedups(df, lengths, keys, reference),
                "",
            ],
        ),
        section(
            "Peak memory (MiB)",
            [
                "Most bytes held at once during one call beyond its inputs (outputs, saved "
                "activations and gradients included).",
                "",
                table(df, "peak_memory", lengths, keys, digits=4),
                "",
                "Naive's memory over the kernel's:",
                "",
                memory_ratios(df, lengths, keys, reference),
                "",
            ],
        ),
        section(
            "Achieved FLOP/s as a share of the measured torch.mm peak (%)",
            [
                "Useful FLOPs (torch.utils.flop_counter on naive attention of the same shapes; causal cases count the "
                f"unmasked half) divided by the median latency, over {measured_peak(df)}." + over_peak(df),
                "",
                table(df, "peak_fraction", lengths, keys, digits=3),
                "",
            ],
        ),
    ]


def _nominal_section(df, lengths, keys) -> Section:
    """The same FLOP/s as a share of the device's nominal peak (harness/ceilings.py), or the sentence saying which
    devices have none."""
    with_nominal = with_nominal_share(df)
    lines = [nominal_peak_note(df), ""]
    if (with_nominal.metric == "nominal_fraction").any():
        lines += [table(with_nominal, "nominal_fraction", lengths, keys, digits=3), ""]
    return section("Achieved FLOP/s as a share of the nominal peak (%)", lines)


def _roofline_section(df, roof: Path) -> Section:
    return section(
        "Roofline",
        [
            f"![attention kernels' roofline](figures/{roof.name})",
            "",
            "Each timed case's useful FLOP/s against its arithmetic intensity: useful FLOPs over the case's compulsory "
            "bytes, each input and output read or written once (q and the output (B, H, T, Dh), k and v (B, Hkv, T, "
            "Dh); forward 2 (Q + KV) bytes, fwd+bwd 6 (Q + KV)); bytes are not recorded, so they come from the "
            "records' shapes, and a kernel that materialises the (T, T) scores moves more than this. The roof is the "
            "measured torch.mm peak and the slope the measured read bandwidth, solid; nominal ceilings dashed where "
            "the device is known. "
            + bandwidth_note(df, ("read_bandwidth",), unknown=False)
            + " "
            + nominal_peak_note(df),
            "",
        ],
    )


def _against_section(suite, df) -> Section:
    """The sources, the linear-memory verdict in one sentence (its per-kernel sentences are the first table's rows)
    and the share-of-peak check's sentence."""
    found = {f.claim.key: f for f in judge_all(suite, df)}
    memory, peak = found["fused_attention_linear_memory"], found["sdpa_share_of_peak"]
    said = (
        [f"The linear-memory finding {_says(memory.verdict)} on the first table's fused kernels."]
        if memory.verdict != "not run"
        else []
    ) + sentences([peak])
    return section("Against the published findings", [PUBLISHED + " " + (" ".join(said) or NO_PAIRS), ""])


def _says(verdict: str) -> str:
    return {"agrees": "agrees", "disagrees": "disagrees", "inconclusive": "is inconclusive"}.get(
        verdict, f"is {verdict}"
    )


def _setup(df, head, seeds) -> Section:
    """Shapes, timing, the check before timing, the device, what ran and how contended the timings were; ``head``:
    the group's first record (its settings and dtype), the job facts from the first that ran."""
    first, settings = first_ok(df), head.profile_settings
    peaks = df[(df.metric == "matmul_peak") & (df.status == "ok")].value
    dtype = str(head["dtype"])
    atol, rtol = tolerance(getattr(torch, dtype, None))
    lat = df[(df.metric == "latency") & (df.status == "ok")]
    repeats = sum(len(e["times"]) for e in lat.extra)
    kept = sum(sum(e.get("kept_mask") or []) for e in lat.extra)
    contaminated = sum(bool(e.get("contaminated")) for e in lat.extra)
    others = [e["other_cpu_median"] for e in lat.extra if e.get("other_cpu_median") is not None]
    stalls = [e["stall_median"] for e in lat.extra if e.get("stall_median") is not None]
    lines = [
        f"- Shapes: batch {settings['batch']}, {settings['n_heads']} query heads of dimension {settings['head_dim']}; "
        f"lengths {', '.join(str(x) for x in settings['lengths'])}; {dtype}; profile `{first.profile}`, seeds {seeds}.",
        f"- Timing: torch.utils.benchmark.Timer blocks (at least {settings['min_repeats']} repeats and "
        f"{settings['min_run_time']} s per case) after a warm-up call; calls over {settings['max_call_s']} s are not "
        f"timed. Peak memory: {method(df)}. FLOPs: torch.utils.flop_counter.",
        f"- Check before timing: every case's output (and, for fwd+bwd, the gradients of q, k and v) against float64 "
        f"naive attention on {settings['check_rows']} sampled query rows; allowed error {atol:g} + {rtol:g} x "
        f"max|reference| in {dtype}.",
        f"- Device: {first.device} ({first.device_name}), torch {first.torch_version}, {fact(first, 'timing_threads')} "
        f"threads while measuring, flush denormals {fact(first, 'flush_denormal')}, allocator "
        f"{fact(first, 'allocator')}; measured torch.mm peak {peaks.mean():.1f} GFLOP/s ({len(peaks)} jobs, min "
        f"{peaks.min():.1f}, max {peaks.max():.1f}); {code_line(df)}.",
        accelerator_line(df),
        dispatch_line(df),
        f"- Contention: a repeat is dropped when other processes used over {MAX_OTHER_CPU} cores or kept a CPU "
        f"waiting over {MAX_STALL:.0%} of its time (Linux PSI). {kept} of {repeats} repeats were clean; {contaminated} "
        f"of {len(lat)} timed cases had fewer than 3 clean repeats and keep all of them. Median other-process CPU "
        f"during timing: {statistics.median(others) if others else float('nan'):.2f} cores; median CPU stall share "
        f"{statistics.median(stalls) if stalls else float('nan'):.0%}."
        + (
            " These latencies are contaminated by other processes: rerun on a quiet machine before quoting them."
            if lat.size and contaminated > len(lat) / 4
            else ""
        ),
        "",
    ]
    return section("Setup", lines, BOOKKEEPING)
