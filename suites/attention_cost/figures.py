"""Figures of the attention_cost report: latency and peak memory against sequence length, and the kernels' roofline,
log-log."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.figures import curves, finish, log_axes, panels
from suites.common.roofline import POINT_COLUMNS, ceilings, element_bytes, roofline_figure


def latency_and_memory_figures(df: pd.DataFrame, folder: Path) -> list[Path]:
    """Log-log latency and peak memory against length: a panel per (mask, pass), a line per kernel and heads."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for metric, label, name in (
        ("latency", "latency (ms)", "attention_cost_latency"),
        ("peak_memory", "peak memory (MiB)", "attention_cost_memory"),
    ):
        data = df[(df.metric == metric) & (df.status == "ok")].copy()
        if not len(data):
            continue
        data["mask"] = data.causal.map({True: "causal", False: "full"})
        masks, passes = sorted(data["mask"].unique(), reverse=True), sorted(data["pass"].unique())
        fig, axes = panels(len(masks), len(passes), (5.2 * len(passes), 3.8 * len(masks)))
        kernels, heads = sorted(data.kernel.unique()), sorted(data.heads.unique())
        for i, mask in enumerate(masks):
            for j, pass_ in enumerate(passes):
                ax = axes[i][j]
                part = data[(data["mask"] == mask) & (data["pass"] == pass_)]
                if len(part):
                    curves(
                        ax,
                        part,
                        "x",
                        "value",
                        "kernel",
                        interval=False,
                        hue_order=kernels,
                        style="heads",
                        style_order=heads,
                        marker="o",
                        legend=(i == 0 and j == 0),
                    )
                log_axes(ax, x=2, y=10)
                ax.set(xlabel="sequence length (tokens)", ylabel=label, title=f"{pass_}, {mask} mask")
        title = f"Attention {label} against sequence length (log-log, one line per kernel and head grouping)"
        paths.append(finish(fig, folder / f"{name}.png", title))
    return paths


def roofline_points(df: pd.DataFrame) -> pd.DataFrame:
    """One point per timed case: useful FLOP/s against useful FLOPs over the compulsory bytes of the case.

    Bytes are not recorded, so they come from the shapes in the records: every input and output read or written
    once, q and the output (B, H, T, Dh), k and v (B, Hkv, T, Dh); forward q, k, v read and the output written,
    2 (Q + KV) bytes; fwd+bwd adds q, k, v, the output and its gradient read and dq, dk, dv written, 6 (Q + KV) in
    all. A kernel that materialises the (T, T) scores moves more, so this intensity is its upper bound.
    """
    keys = ["variant", "seed", "x", "causal", "pass"]
    ok = df[df.status == "ok"]
    rate = ok[ok.metric == "throughput"]
    flops = ok[ok.metric == "flops"][keys + ["value"]].rename(columns={"value": "gflop"})
    both = rate.merge(flops, on=keys)
    if not len(both):
        return pd.DataFrame(columns=list(POINT_COLUMNS))

    def moved(r) -> float:
        s, b = r.spec, r.profile_settings["batch"]
        heads = s["n_heads"]
        per = b * int(r.x) * (s["d_model"] // heads) * element_bytes(r.dtype)  # bytes of one head's (B, T, Dh)
        q, kv = heads * per, (s.get("n_kv_heads") or heads) * per
        return (2 if r["pass"] == "fwd" else 6) * (q + kv)

    return pd.DataFrame(
        {
            "intensity": both.gflop * 1e9 / both.apply(moved, axis=1),
            "flops_per_s": both.value * 1e9,  # GFLOP/s
            "kernel": both.kernel,
            "kind": both["pass"] + ", " + both.causal.map({True: "causal", False: "full"}),
        }
    )


def roofline(df: pd.DataFrame, folder: Path) -> Path:
    """The attention kernels' roofline under the group's ceilings (suites/common/roofline.py)."""
    folder.mkdir(parents=True, exist_ok=True)
    return roofline_figure(
        roofline_points(df),
        ceilings(df),
        folder / "attention_cost_roofline.png",
        "Attention kernels: achieved FLOP/s against arithmetic intensity (log-log)",
    )
