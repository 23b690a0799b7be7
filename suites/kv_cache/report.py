"""The kv_cache report: decode latency per variant (the answer), latency, bandwidth, decode paths; the cache-bytes
check, the Llama-2 calculator and the setup last."""

from __future__ import annotations

import statistics
from pathlib import Path

import pandas as pd
import torch

from harness.claims import judge_all
from harness.findings import sentences
from harness.report_kit import begin, code_line, first_ok, table_section, title
from harness.report_sections import BOOKKEEPING, FIGURE, Report, Section, section
from suites.common.ceiling_notes import accelerator_line, nominal_peak_note
from suites.common.facts import fact
from suites.kv_cache.claims._shared import AINSLIE, POPE
from suites.kv_cache.figures import latency_figure, roofline
from suites.kv_cache.headline import section as headline_section
from suites.kv_cache.state_section import attention_rows, state_section
from suites.kv_cache.steps import DOMINANT, decode_steps, dominance_rows
from suites.kv_cache.tables import (
    _grouping,
    bandwidth_section,
    bytes_section,
    calculator_section,
    greedy_section,
    latency_section,
    paths_section,
)
from variants.kernel import tolerance


def _tolerance_text(dtype: str, of: str) -> str:
    """'1e-05 + 0.0001 x max |logit|': the kernel layer's tolerance of the records' dtype (variants/kernel/_tolerance.py)."""
    atol, rtol = tolerance(getattr(torch, str(dtype), None))
    return f"{atol:g} + {rtol:g} x max |{of}|"


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    recurrent = state_section(df)  # the recurrent LMs' rows; everything below reads the Transformer rows
    df = attention_rows(df).copy()
    df["grouping"] = df.spec.apply(_grouping)
    first, _, seeds = begin(df, out_dir)
    variants = sorted(
        df.variant.unique(),
        key=lambda v: (
            df[df.variant == v].spec.iloc[0]["position"],
            -(df[df.variant == v].spec.iloc[0]["n_kv_heads"] or 1e9),
            v,
        ),
    )
    steps = decode_steps(df)
    figure = latency_figure(df, out_dir / "figures" / f"{suite.name}.png")
    roof = roofline(df, out_dir / "figures" / f"{suite.name}_roofline.png")
    report = Report(title(suite, "KV cache", first), files=[figure, roof])
    return report.add(
        headline_section(df, steps, variants),
        latency_section(df, variants),
        bandwidth_section(df, variants),
        greedy_section(df, variants),
        paths_section(df, variants),
        recurrent,
        section("Figure", [f"![per-token latency and decode paths](figures/{figure.name})", ""], FIGURE),
        _roofline_section(df, roof),
        table_section(
            "Which steps their bytes dominate",
            f"A step's bytes dominate it when reading them at the copy bandwidth measured in the job takes at "
            f"least {DOMINANT:.0%} of its measured latency; the memory-bound claims below are judged on those "
            f"steps only (where the per-step overhead sets the time, they cannot be tested).",
            dominance_rows(steps),
            "No cached step was timed.",
        ),
        section(
            "Against the published findings",
            [f"{AINSLIE} {POPE}", ""] + [f"- {t}" for t in sentences(judge_all(suite, df))] + [""],
        ),
        _setup_section(df, first, seeds),
        bytes_section(df, variants),
        calculator_section(),
    )


def _roofline_section(df: pd.DataFrame, roof: Path) -> Section:
    return section(
        "Roofline",
        [
            f"![decode steps' roofline](figures/{roof.name})",
            "",
            "Each timed decode step's FLOP/s against its arithmetic intensity, FLOPs over bytes moved. Decode-step "
            "attention over a grouped cache: 4 B H Dh S FLOPs (q k^T and the weighted sum) over K and V read "
            "(2 B Hkv S Dh elements) plus q read and the output written (2 B H Dh); the whole model's step: 2 FLOPs "
            "per parameter and token plus 4 L H Dh S for attention, over the bytes of weights and K/V it reads "
            "(recorded; latent attention left out, its absorbed products not counted by this formula). The slopes are "
            "the measured copy and read bandwidths, solid; no compute roof is measured in these jobs (attention_cost's "
            "measure one), so the flat roof is the nominal one, dashed, where the device is known (memory ceilings as "
            "in the decode-bandwidth section above). " + nominal_peak_note(df),
            "",
        ],
    )


def _setup_section(df: pd.DataFrame, first, seeds: list[int]) -> Section:
    """The model, what each latency is, how each step is checked and timed, and the device."""
    settings, spec, job = first.profile_settings, first.spec, first_ok(df)
    lat = df[
        df.metric.isin(["decode_latency", "decode_latency_kernel", "uncached_latency", "decode_path_latency"])
        & (df.status == "ok")
    ]
    contaminated = sum(bool(e.get("contaminated")) for e in lat.extra)
    others = [e["other_cpu_median"] for e in lat.extra if e.get("other_cpu_median") is not None]
    return section(
        "Setup",
        [
            f"- Model: decoder-only Transformer with random weights (cost does not depend on training), "
            f"{spec['n_layers']} layers, d_model {spec['d_model']}, {spec['n_heads']} heads of dimension "
            f"{spec['d_model'] // spec['n_heads']}, kernel {spec['kernel']}; batch {settings['batch']}; "
            f"{first['dtype']}; profile `{first.profile}`, seeds {seeds}.",
            f"- Per-token latency at context L: *cached* is one step of one token over a cache of L tokens (attention "
            f"by grouped queries); *cached, kernel* the same step through the spec's kernel; *uncached* one forward "
            f"over the L + 1 tokens. Each cached step is first checked against the full forward's last logits (max "
            f"|error| within {_tolerance_text(first['dtype'], 'logit')}).",
            f"- Decode paths: {settings['path_heads']} query heads of dimension {settings['path_head_dim']}, key/value "
            f"heads from the variant, each path checked against float64 before timing (within "
            f"{_tolerance_text(first['dtype'], 'output')}).",
            f"- Timing: torch.utils.benchmark.Timer, at least {settings['min_repeats']} repeats, median of the repeats "
            f"free of other processes' CPU use; ± is half the IQR over the median; `*` marks cells with fewer than 3 "
            f"clean repeats ({contaminated} of {len(lat)}; median other-process CPU "
            f"{statistics.median(others) if others else float('nan'):.2f} cores)."
            + (
                " These latencies are contaminated by other processes: rerun on a quiet machine before quoting them."
                if len(lat) and contaminated > len(lat) / 4
                else ""
            ),
            f"- Device: {job.device} ({job.device_name}), torch {job.torch_version}, {fact(job, 'timing_threads')} "
            f"threads, flush denormals {fact(job, 'flush_denormal')}, allocator {fact(job, 'allocator')}; "
            f"{code_line(df)}.",
            accelerator_line(df),
            "",
        ],
        BOOKKEEPING,
    )
