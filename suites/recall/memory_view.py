"""The index's memory view: recall against the bytes each trained model keeps, beside the decode step's latency.

Arora et al. 2024 (Based, arXiv 2402.18668, Figure 1) put every architecture on one axis: recall accuracy against
the memory a model keeps to decode the next token. The left panel is the recall suite's trained models (MQAR at
the most pairs, mean over seeds with a 95% interval, bytes counted from each spec). The right panel is the
kv_cache suite's measured decode step against the context: a KV cache's step reads more bytes as the context
grows, a recurrence's state stays the same size. The two panels come from two suites' records, each the group its
own report covers; the kv_cache models are that suite's width, not the recall models', and the caption says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from harness.figures import curves, finish, panels, styles

FIGURE = "index_recall_memory.png"


def index_section(frames: Mapping[str, pd.DataFrame], reports_dir: Path) -> list[str]:
    """The index's "Recall against memory" section with its two-panel figure; [] without MQAR records to plot."""
    from harness.report_kit import in_order
    from suites.recall.figures import draw_memory_points, memory_points
    from suites.recall.tables import ORDER, with_task
    from suites.recall.tasks import mqar_of

    recall = frames.get("recall")
    if recall is None or not len(recall):
        return []
    data = with_task(recall)
    mqar = data[(data.status == "ok") & (data.metric == "token_accuracy") & (data.task == "mqar")]
    if not len(mqar):
        return []
    tokens = mqar_of(recall.iloc[0].profile_settings).length(max(recall.iloc[0].profile_settings["mqar_kv"]))
    points = memory_points(mqar, in_order(recall.variant.unique(), ORDER), tokens)
    if len(points) < 2:
        return []
    steps = _decode_steps(frames.get("kv_cache"))
    shared = steps[steps.variant.isin(set(recall.variant))] if len(steps) else steps
    if (
        len(shared) and shared.variant.nunique() >= 2
    ):  # the variants of both panels, where the two suites share enough of them
        steps = shared
    fig, axes = panels(1, 2, (14, 4.8))
    draw_memory_points(axes[0][0], points, tokens, int(mqar.x.max()), styles([v for v, _, _ in points]))
    _draw_steps(axes[0][1], steps)
    path = finish(fig, reports_dir / "figures" / FIGURE)
    width = ""
    if len(steps):
        k = steps.iloc[0].profile_settings
        width = (
            f" The right panel's models are the kv_cache suite's ({k.get('n_layers', '?')} layers, d_model "
            f"{k.get('d_model', '?')}, on {steps.iloc[0].device_name or steps.iloc[0].device}), not the recall "
            "models: the same mixer families at another size."
        )
    return [
        "## Recall against memory",
        "",
        f"![recall against bytes kept, and decode latency against context](figures/{path.name})",
        "",
        f"Left: MQAR token accuracy at {int(mqar.x.max())} pairs against the bytes each trained recall model keeps "
        f"per sequence to decode after {tokens} tokens (mean over seeds, 95% interval; recall report). Right: the "
        "median latency of one cached decode step against the context it follows, a KV cache beside a fixed "
        "recurrent state (kv_cache report)." + width,
        "",
    ]


def _draw_steps(right, steps: pd.DataFrame) -> None:
    """The right panel: the kv_cache suite's decode step against context, or what would fill it."""
    if len(steps):
        curves(right, steps, "x", "value", style="memory", marker="o")
        right.set_xscale("log", base=2)
        right.legend(fontsize=7)
    else:
        right.text(
            0.5,
            0.5,
            "no kv_cache records: `bench run suite=kv_cache`",
            ha="center",
            va="center",
            transform=right.transAxes,
        )
    right.set(
        xlabel="context already decoded (tokens, log scale)",
        ylabel="one decode step's latency (ms)",
        title="Decode step against context (kv_cache suite)",
    )


def _decode_steps(kv: pd.DataFrame | None) -> pd.DataFrame:
    """The kv_cache group's decode-step latencies, each row marked by what the model keeps (KV cache or state)."""
    if kv is None or not len(kv) or "metric" not in kv:
        return pd.DataFrame()
    rows = kv[(kv.metric == "decode_latency") & (kv.status == "ok")].copy()
    if not len(rows):
        return rows
    rows["memory"] = rows.spec.apply(_memory_kind)
    return rows


def _memory_kind(spec) -> str:
    """What a kv_cache model keeps per sequence, read from its spec: a KV cache, a recurrent state, or both."""
    if not (isinstance(spec, dict) and spec.get("family") == "mixer"):
        return "KV cache"
    return "state + KV cache (hybrid)" if spec.get("attention_every") else "recurrent state"
