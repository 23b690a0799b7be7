"""The cached decode steps a kv_cache run timed, with the bytes each reads and whether those bytes dominate it.

Two kinds of step are timed: the whole model's cached step (``decode_bandwidth`` records: weights + the K/V of
the context + 1 tokens) and one layer's decode-step attention over a cache of random K/V (``decode_path_latency``
records of the grouped-queries path: K/V only, 32 query heads of 128 by default, Llama-2-7B's layer shape, filled
without a prefill). A step's *memory time* is its bytes over the device's copy bandwidth measured in the same
job. Its bytes *dominate* it when the memory time is at least DOMINANT of its measured latency: then the step's
time is mostly the time to read its bytes, and claims about memory-bound decoding can be tested on it; below
that the per-step overhead (Python, operator dispatch, a few small matmuls of a tiny model) sets the time, and
they cannot.

Each step also carries its log median latency with that log's variance from the step's own timing repeats
(``timing``, suites/common/timing_repeats.py): the timing checks test on them.
"""

from __future__ import annotations

import pandas as pd

from suites.common.timing_repeats import log_timing

#: a step's bytes dominate it when reading them at the copy bandwidth takes at least this share of its latency
DOMINANT = 0.5
#: the decode path whose steps the verdicts read: the one the suite's cached model step uses (use_grouped_decode)
PATH = "grouped"
COLUMNS = [
    "kind",
    "variant",
    "position",
    "grouping",
    "x",
    "seed",
    "ms",
    "bytes",
    "memory_ms",
    "share",
    "dominated",
    "timing",
]


def _element(dtype) -> int:
    return {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2}.get(str(dtype), 4)


def decode_steps(df: pd.DataFrame) -> pd.DataFrame:
    """One row per timed step (kind 'model' or 'attention'), variant, context and seed: its latency, bytes, memory
    time at the job's copy bandwidth, the share of its latency that memory time is, and whether it dominates."""
    ok = df[df.status == "ok"] if len(df) else df
    if not len(ok) or "metric" not in ok:
        return pd.DataFrame(columns=COLUMNS)
    copy = {(r.variant, int(r.seed)): float(r.value) for r in ok[ok.metric == "copy_bandwidth"].itertuples()}
    # the whole model's step is timed by its decode_latency record: its repeats are there
    repeats = {(r.variant, float(r.x), int(r.seed)): r.extra for r in ok[ok.metric == "decode_latency"].itertuples()}
    rows = []
    for r in ok[ok.metric.isin(["decode_bandwidth", "decode_path_latency"])].itertuples():
        bandwidth = copy.get((r.variant, int(r.seed)))
        if not bandwidth:
            continue
        e = r.extra
        if r.metric == "decode_bandwidth":
            kind, ms, read = "model", float(e["step_ms"]), e["weight_bytes"] + e["cache_bytes_read"]
            timing = log_timing(ms, repeats.get((r.variant, float(r.x), int(r.seed))))
        elif e.get("path") == PATH:
            kind, ms = "attention", float(r.value)
            timing = log_timing(ms, e)
            read = (
                2 * e["kv_heads"] * e["head_dim"] * int(r.x) * _element(r.dtype) * int(r.batch if "batch" in ok else 1)
            )
        else:
            continue
        memory_ms = read / (bandwidth * 1e9) * 1e3
        rows.append(
            {
                "kind": kind,
                "variant": r.variant,
                "position": r.spec["position"],
                "grouping": _grouping(r.spec, e, kind),
                "x": float(r.x),
                "seed": int(r.seed),
                "ms": ms,
                "bytes": float(read),
                "memory_ms": memory_ms,
                "share": memory_ms / ms,
                "dominated": memory_ms >= DOMINANT * ms,
                "timing": timing,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def _grouping(spec: dict, extra: dict, kind: str) -> str:
    if kind == "model" and (spec.get("attention", "grouped") != "grouped" or spec.get("window") is not None):
        from suites.kv_cache.tables import _grouping as grouping  # MLA, or the heads with their window

        return grouping(spec)
    if kind == "attention":
        kv, heads = extra["kv_heads"], extra["heads"]
    else:
        kv, heads = spec["n_kv_heads"] or spec["n_heads"], spec["n_heads"]
    return "MHA" if kv == heads else ("MQA" if kv == 1 else f"GQA-{kv}")


def describe(step: pd.DataFrame) -> str:
    """'29.7 MB, 1.6 ms at the copy bandwidth against 4.95 ms measured (33%)' for one step's rows (mean over seeds)."""
    return (
        f"{step.bytes.mean() / 1e6:.1f} MB, {step.memory_ms.mean():.2g} ms at the copy bandwidth against "
        f"{step.ms.mean():.3g} ms measured ({step.share.mean():.0%})"
    )


def dominance_rows(steps: pd.DataFrame) -> list:
    """Report rows: each timed step's bytes, memory time and measured latency (means over seeds), and whether its
    bytes dominate it."""
    rows = []
    for (kind, variant, x), sel in steps.groupby(["kind", "variant", "x"], sort=True):
        rows.append(
            {
                "step": "whole model" if kind == "model" else "attention, 1 layer",
                "variant": variant,
                "cached tokens": int(x),
                "MB read": f"{sel.bytes.mean() / 1e6:.1f}",
                "ms at copy bandwidth": f"{sel.memory_ms.mean():.3g}",
                "ms measured": f"{sel.ms.mean():.3g}",
                "of latency": f"{sel.share.mean():.0%}",
                "bytes dominate": "yes" if sel.dominated.all() else "no",
            }
        )
    return rows
