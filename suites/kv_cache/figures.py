"""The kv_cache figures: per-token latency with and without the cache, the decode paths over a grouped cache, and
the decode steps' roofline."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.figures import curves, finish, panels
from suites.common.roofline import POINT_COLUMNS, ceilings, element_bytes, roofline_figure


def latency_figure(df: pd.DataFrame, path: Path) -> Path:
    """Per-token latency against context with and without the cache, beside the decode paths over a grouped cache."""
    import seaborn as sns

    fig, axes = panels(1, 2, (14, 5))
    left, right = axes[0]
    names = {"decode_latency": "cached", "decode_latency_kernel": "cached, kernel", "uncached_latency": "uncached"}
    lat = df[df.metric.isin(list(names)) & (df.status == "ok")].copy()
    lat["mode"] = lat.metric.map(names)
    if len(lat):
        curves(left, lat, "x", "value", interval=False, style="mode", marker="o")
    left.set(
        yscale="log",
        xlabel="context length (tokens)",
        ylabel="latency (ms/token)",
        title="Per-token latency with and without the KV cache",
    )
    paths = df[(df.metric == "decode_path_latency") & (df.status == "ok")].copy()
    if len(paths):
        paths["path"] = paths.extra.apply(lambda e: e["path"])
        paths["K/V"] = paths.grouping + paths.spec.apply(lambda s: f" {s['position']}")
        curves(right, paths, "x", "value", "path", interval=False, style="K/V", marker="o")
    right.set(
        yscale="log",
        xlabel="cached tokens",
        ylabel="latency (ms)",
        title="Decode-step attention: four ways to read shared K/V",
    )
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        if ax.get_legend() is not None:
            sns.move_legend(ax, "upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False)
    return finish(fig, path)


def _path_point(r) -> dict:
    """One decode-step attention over a grouped cache: 4 B H Dh S FLOPs (q k^T and the weighted sum over S cached
    tokens) against its compulsory bytes, K and V read (2 B Hkv S Dh) and q read and the output written (2 B H Dh)."""
    e, b, s = r.extra, r.profile_settings["batch"], int(r.x)
    heads, kv, dim = e["heads"], e["kv_heads"], e["head_dim"]
    flops = 4 * b * heads * dim * s
    moved = (2 * b * kv * s * dim + 2 * b * heads * dim) * element_bytes(r.dtype)
    return {"intensity": flops / moved, "flops_per_s": flops / (r.value * 1e-3), "kernel": e["path"]}


def _model_point(r) -> dict | None:
    """The whole model's cached step: 2 FLOPs per parameter and token (each weight one multiply-add; the tied
    embedding is the output layer) and 4 L H Dh S for attention's two products, against the bytes it reads (the
    weights and the K/V of S = context + 1 tokens, or of the window's W; recorded). None for latent attention,
    whose absorbed products this formula does not count, or a job without its parameter count."""
    spec, e, b = r.spec, r.extra, r.profile_settings["batch"]
    params = r.get("parameters")
    if spec.get("attention", "grouped") != "grouped" or not isinstance(params, (int, float)) or params != params:
        return None
    tokens = int(r.x) + 1 if spec.get("window") is None else min(int(r.x) + 1, spec["window"])
    heads = spec["n_heads"]
    flops = 2 * params * b + 4 * spec["n_layers"] * heads * (spec["d_model"] // heads) * tokens * b
    kind = "model step, CUDA graph" if r.metric.endswith("_graph") else "model step"
    return {
        "intensity": flops / (e["weight_bytes"] + e["cache_bytes_read"]),
        "flops_per_s": flops / (e["step_ms"] * 1e-3),
        "kernel": kind,
    }


def roofline_points(df: pd.DataFrame) -> pd.DataFrame:
    """One point per timed decode step of the records: the four decode paths over a grouped cache and the whole
    model's cached step, each at its FLOP/s and intensity, marked by head grouping (``df`` has ``grouping``)."""
    ok = df[df.status == "ok"]
    rows = []
    for _, r in ok[ok.metric == "decode_path_latency"].iterrows():
        found = _path_point(r)
        kv, heads = r.extra["kv_heads"], r.extra["heads"]
        rows.append({**found, "kind": "MHA" if kv == heads else ("MQA" if kv == 1 else f"GQA-{kv}")})
    for _, r in ok[ok.metric.isin(["decode_bandwidth", "decode_bandwidth_graph"])].iterrows():
        found = _model_point(r)
        if found:
            rows.append({**found, "kind": r.grouping})
    return pd.DataFrame(rows, columns=list(POINT_COLUMNS))


def roofline(df: pd.DataFrame, path: Path) -> Path:
    """The decode steps' roofline under the group's ceilings (suites/common/roofline.py)."""
    return roofline_figure(
        roofline_points(df), ceilings(df), path, "Decode steps: achieved FLOP/s against arithmetic intensity (log-log)"
    )
