"""What kv_cache's claims read: the Transformer rows with their head grouping, the cached decode steps timed (the
bytes each reads and whether they dominate it), which of those steps the memory claims are judged on, and the
sources the report prints beside the verdicts.

The kinds of estimate (harness/intervals.py): cache bytes are exact; time ratios (MHA / MQA, latency growth over
bytes growth) are positive ("log"), each seed's value a ratio of medians over timing repeats. The timing checks are
tests on those repeats (suites/common/timing_repeats.py: a log ratio against NOISE on Student-t at its repeats' degrees of
freedom, its 95% interval printed "over timing repeats"), not on the spread over seeds, so a run of one seed (the
quick profile) is not marked indicative; with two seeds or more the per-seed ratios' t interval over seeds decides.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from suites.kv_cache.state_section import attention_rows
from suites.kv_cache.steps import decode_steps, describe
from suites.kv_cache.tables import _grouping

POPE = (
    "Pope et al. 2022 (arXiv 2211.05102) model a generation step at small batch as memory-bound: its time is the "
    "time to read the weights and the KV cache, so it grows with the cached tokens no faster than those bytes."
)
AINSLIE = (
    "Ainslie et al. 2023 (arXiv 2305.13245) report T5-XXL inference at 1.51 s per sample with MHA, 0.28 s with "
    "GQA-8 and 0.24 s with MQA: with fewer key/value heads the memory-bound decode step reads a smaller cache."
)
#: the bar of the timing checks (this project's choice): MHA must beat MQA by more than it
#: (fewer_kv_heads_faster_decode), and latency may outgrow the bytes read by at most it (decode_is_memory_bound);
#: within 10% two timings of one step differ from causes one job's repeats do not see (another job's load, the
#: clock), and a step does some work per cached token beyond reading it. Each is tested on the repeats against it.
NOISE = 1.10
#: what would test the memory claims where no step here is dominated by its bytes
WOULD_TEST = (
    "the decode-step attention at Llama-2-7B's layer shape over 4096 or more cached tokens "
    "(set.path_contexts=[4096,16384], the quick and standard profiles), or the gpu profile on a CUDA device"
)


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: the Transformer rows (a recurrent LM's state has its own table, state_section.py, and no claim), with their
    #: ``grouping`` ('MHA', 'GQA-2', 'MQA', 'MLA', ', window W' added for a sliding window)
    df: pd.DataFrame
    #: one row per timed cached step, variant, context and seed (steps.py ``decode_steps``)
    steps: pd.DataFrame


def prepare(records: pd.DataFrame) -> Evidence:
    df = attention_rows(records).copy()
    df["grouping"] = df.spec.apply(_grouping)
    return Evidence(df, decode_steps(df))


def judged_steps(steps: pd.DataFrame):
    """(kind, its steps) to judge the memory claims on: the whole model's step where its bytes dominate at the
    longest context, else one layer's decode-step attention where they do; (None, why not) when neither."""
    why = []
    for kind in ("model", "attention"):
        sel = steps[steps.kind == kind]
        if not len(sel):
            continue
        longest = sel[(sel.x == sel.x.max()) & (sel.grouping == "MHA")]
        if len(longest) and longest.groupby("variant").dominated.all().any():
            return kind, sel
        if len(longest):
            what = "the whole model's cached step" if kind == "model" else "one layer's decode-step attention"
            why.append(f"{what} at {int(sel.x.max())} cached tokens with MHA reads {describe(longest)}")
    return None, (
        "the bytes do not dominate any step timed here: " + "; ".join(why)
        if why
        else "these records have no timed cached step with its copy bandwidth"
    )


def attention_of(spec) -> str:
    """The spec's attention layer: 'grouped' (heads, with or without a window) or 'mla'."""
    return spec.get("attention", "grouped")


def cache_rows(df: pd.DataFrame, rows) -> pd.DataFrame:
    """One row per (variant, context) of the records ``rows`` selects: measured and analytic cache bytes and the
    layer's facts."""
    cache = df[(df.metric == "cache_bytes") & rows]
    analytic = df[(df.metric == "cache_bytes_analytic") & rows].set_index(["variant", "x"]).value
    out = [
        {
            "variant": r.variant,
            "x": int(r.x),
            "measured": float(r.value),
            "analytic": float(analytic.get((r.variant, r.x))),
            "ok": r.status == "ok",
            **r.extra,
        }
        for r in cache.itertuples()
    ]
    return pd.DataFrame(out)
