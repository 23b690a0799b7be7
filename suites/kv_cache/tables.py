"""The kv_cache tables, each a report section: measured cache bytes against the formula, the Llama-2 calculator,
per-token latency, decode throughput and bandwidth, greedy generation with and without the cache, and the decode
paths over a grouped cache."""

from __future__ import annotations

import pandas as pd

from harness.ceilings import nominal
from harness.measure import bootstrap_ratio
from harness.report_kit import markdown_table, table_section
from harness.report_sections import BOOKKEEPING, Section, section
from suites.common.ceiling_notes import bandwidth_note, bandwidths, device_names, fmt_gbs
from variants.decode.cache_size import PUBLISHED, kv_cache_bytes

#: KV cache at 4096 tokens, fp16, batch 1, from Llama 2's shapes (Touvron et al. 2023, arXiv 2307.09288, table 1)
PUBLISHED_BYTES = {"Llama-2-7B": 2_147_483_648, "Llama-2-13B": 3_355_443_200, "Llama-2-70B": 1_342_177_280}


def _grouping(spec: dict) -> str:
    """'MHA', 'GQA-2', 'MQA'; 'MLA' for latent attention, ', window W' added for a sliding window (so no verdict
    on head grouping mistakes either for the grouped layer it is compared with)."""
    if spec.get("attention", "grouped") != "grouped":
        return spec["attention"].upper()
    kv = spec["n_kv_heads"] or spec["n_heads"]
    label = "MHA" if kv == spec["n_heads"] else ("MQA" if kv == 1 else f"GQA-{kv}")
    return label if spec.get("window") is None else f"{label}, window {spec['window']}"


def _kept(extra: dict) -> list[float]:
    mask = extra.get("kept_mask") or [True] * len(extra["times"])
    kept = [t for t, k in zip(extra["times"], mask) if k]
    return kept if len(kept) >= 3 else extra["times"]


def _cell(rows: pd.DataFrame) -> str:
    if not len(rows):
        return "-"
    ok = rows[rows.status == "ok"]
    if not len(ok):
        return rows.status.iloc[0]
    e = ok.extra.iloc[0]
    value = float(ok.value.iloc[0])
    return f"{value:.3g} ±{100 * e['noise'] / 2:.0f}%" + ("*" if e.get("contaminated") else "")


def _ratio(a: pd.DataFrame, b: pd.DataFrame) -> str:
    a, b = a[a.status == "ok"], b[b.status == "ok"]
    if len(a) != 1 or len(b) != 1:
        return "-"
    point, lo, hi = bootstrap_ratio(_kept(a.extra.iloc[0]), _kept(b.extra.iloc[0]))
    return f"{point:.3g}x [{lo:.3g}-{hi:.3g}]"


def calculator_table(
    shapes: dict[str, tuple] | None = None, tokens: int = 4096, bytes_per_element: int = 2
) -> pd.DataFrame:
    """KV bytes of the published models (and 70B as if it were MHA) from ``kv_cache_bytes``."""
    rows = []
    for name, s in PUBLISHED.items():
        got = kv_cache_bytes(s.layers, s.kv_heads, s.head_dim, tokens, 1, bytes_per_element)
        rows.append(
            {
                "model": name,
                "layers": s.layers,
                "heads / kv heads": f"{s.heads} / {s.kv_heads}",
                "head dim": s.head_dim,
                "KV bytes": f"{got:,}",
                "GiB": f"{got / 2**30:.2f}",
                "published": f"{PUBLISHED_BYTES[name]:,}" if name in PUBLISHED_BYTES else "",
                "agrees": "yes" if PUBLISHED_BYTES.get(name) == got else "no",
            }
        )
        if s.kv_heads != s.heads:
            mha = kv_cache_bytes(s.layers, s.heads, s.head_dim, tokens, 1, bytes_per_element)
            rows.append(
                {
                    "model": f"{name} if MHA",
                    "layers": s.layers,
                    "heads / kv heads": f"{s.heads} / {s.heads}",
                    "head dim": s.head_dim,
                    "KV bytes": f"{mha:,}",
                    "GiB": f"{mha / 2**30:.2f}",
                    "published": "",
                    "agrees": "",
                }
            )
    return pd.DataFrame(rows)


def _cached_heads(extra: dict) -> str:
    """What a layer caches per token: its K/V heads, 'latent' (MLA), or the heads and the window W."""
    if extra.get("attention", "grouped") != "grouped":
        return "latent"
    return str(extra["kv_heads"]) + (f", window {extra['window']}" if extra.get("window") is not None else "")


def bytes_section(df, variants) -> Section:
    rows = []
    for v in variants:
        for x in sorted(df[(df.variant == v) & (df.metric == "cache_bytes")].x.unique()):
            m = df[(df.variant == v) & (df.metric == "cache_bytes") & (df.x == x)].iloc[0]
            a = df[(df.variant == v) & (df.metric == "cache_bytes_analytic") & (df.x == x)].value.iloc[0]
            rows.append(
                {
                    "variant": v,
                    "kv heads": _cached_heads(m.extra),
                    "context": int(x),
                    "measured (B)": f"{int(m.value):,}",
                    "analytic (B)": f"{int(a):,}",
                    "equal": "yes" if int(m.value) == int(a) else "NO",
                }
            )
    return table_section(
        "Checks: cache bytes measured against 2 x layers x kv_heads x head_dim x tokens x batch x bytes",
        "Measured: the bytes of the distinct storages behind every layer's K and V after prefilling the context. "
        "Analytic: each attention layer's own formula: grouped heads 2 x layers x kv_heads x head_dim x tokens x "
        "batch x bytes, with a sliding window W min(tokens, W) tokens (a rolling buffer); latent attention (MLA) "
        "layers x (d_c + d_h^R) x tokens x batch x bytes (one latent and one RoPE key per token).",
        rows,
        "No cache was measured.",
        BOOKKEEPING,
    )


def latency_section(df, variants) -> Section:
    rows = []
    for v in variants:
        sel = df[df.variant == v]
        for x in sorted(sel[sel.metric == "uncached_latency"].x.unique()):
            at = sel[sel.x == x]
            c, k, u = (at[at.metric == m] for m in ("decode_latency", "decode_latency_kernel", "uncached_latency"))
            rows.append(
                {
                    "variant": v,
                    "context": int(x),
                    "cached": _cell(c),
                    "cached, kernel": _cell(k),
                    "uncached": _cell(u),
                    "uncached / cached": _ratio(u, c),
                }
            )
    return table_section(
        "Per-token latency (ms/token)",
        "Speed-ups are median ratios with a 95% bootstrap interval over repeats in brackets.",
        rows,
        "No latency was measured.",
    )


def bandwidth_section(df, variants) -> Section:
    rows, graphs = [], []
    copy = df[(df.metric == "copy_bandwidth") & (df.status == "ok")].value
    peak = float(copy.median()) if len(copy) else None
    for v in variants:
        sel = df[(df.variant == v) & (df.status == "ok")]
        for x in sorted(sel[sel.metric == "decode_bandwidth"].x.unique()):
            at = sel[sel.x == x]
            rate = at[at.metric == "decode_bandwidth"]
            e = rate.extra.iloc[0]
            gbs = float(rate.value.mean())
            row = {
                "variant": v,
                "context": int(x),
                "ms/token": f"{e['step_ms']:.3g}",
                "tokens/s": f"{at[at.metric == 'decode_tokens_per_s'].value.mean():,.0f}",
                "MB read per step": f"{(e['weight_bytes'] + e['cache_bytes_read']) / 1e6:.2f}",
                "of which K/V": f"{100 * e['cache_bytes_read'] / (e['weight_bytes'] + e['cache_bytes_read']):.0f}%",
                "GB/s": f"{gbs:.3g}",
                "of copy bandwidth": f"{100 * gbs / peak:.0f}%" if peak else "-",
            }
            graph = at[at.metric == "decode_bandwidth_graph"]
            if len(graph):  # CUDA: the same step replayed from a CUDA graph, in a table of its own (8 columns at most)
                g = float(graph.value.mean())
                graphs.append(
                    {
                        "variant": v,
                        "context": int(x),
                        "ms/token": f"{graph.extra.iloc[0]['step_ms']:.3g}",
                        "GB/s": f"{g:.3g}",
                        "of copy bandwidth": f"{100 * g / peak:.0f}%" if peak else "-",
                    }
                )
            rows.append(row)
    note = (
        "A cached step (grouped-query attention) reads every weight and the K/V of all cached tokens once; GB/s is "
        "those bytes over its median latency, against the device's copy bandwidth "
        + (
            f"of {fmt_gbs(peak)} GB/s (one large copy, bytes read + written, median over jobs: traffic both ways, where a "
            "decode step mostly reads)."
            if peak
            else "(not measured)."
        )
        + " "
        + bandwidth_note(df, ("read_bandwidth",), lead="Other memory ceilings")
    )
    after = _against_ceilings(df, variants)
    if graphs:
        after += [
            "The same step replayed from a CUDA graph (no per-kernel launch from Python):",
            "",
            markdown_table(pd.DataFrame(graphs)),
            "",
        ]
    return table_section(
        "Decode throughput and bandwidth of a cached step", note, rows, "No cached step was timed.", after=after
    )


def _against_ceilings(df, variants) -> list[str]:
    """The cached step's GB/s as a share of each memory ceiling the records give: the copy (bytes read + written), the
    read-only sum and the device's nominal bandwidth (harness/ceilings.py); nothing when the copy is the only one."""
    found = bandwidths(df)
    names = device_names(df)
    entry = nominal(names[0]) if len(names) == 1 else None
    ceilings = {
        "% of copy (read + written)": found["copy_bandwidth"],
        "% of read-only (sum)": found["read_bandwidth"],
        "% of nominal": entry.bandwidth_tbs * 1e3 if entry else None,  # TB/s -> GB/s
    }
    if not found["read_bandwidth"] and not entry:
        return []
    rows = []
    for v in variants:
        sel = df[(df.variant == v) & (df.status == "ok") & (df.metric == "decode_bandwidth")]
        for x, at in sel.groupby("x"):
            gbs = float(at.value.mean())
            row = {"variant": v, "context": int(x), "GB/s": f"{gbs:.3g}"}
            row.update({k: f"{100 * gbs / c:.0f}%" if c else "not recorded" for k, c in ceilings.items()})
            rows.append(row)
    if not rows:
        return []
    return [
        "The cached step's GB/s against each memory ceiling (medians over jobs; nominal: "
        + (f"{entry.part}, {entry.source}" if entry else "unknown device: measured only")
        + "):",
        "",
        markdown_table(pd.DataFrame(rows)),
        "",
    ]


def greedy_section(df, variants) -> Section:
    rows = []
    for v in variants:
        g = df[(df.variant == v) & (df.metric == "greedy_match")]
        if len(g):
            r = g.iloc[0]
            rows.append(
                {
                    "variant": v,
                    "tokens": r.extra["tokens"],
                    "identical": "yes" if r.status == "ok" else f"NO: {r.reason}",
                    "smallest top-1/top-2 gap": f"{r.extra['min_margin']:.2e}",
                }
            )
    return table_section("Greedy generation with and without the cache", "", rows, "No generation was run.")


def paths_section(df, variants) -> Section:
    rows, ratios, untimed = [], [], []
    paths = df[df.metric == "decode_path_latency"]
    for v in variants:
        sel = paths[paths.variant == v]
        if len(sel) and not (sel.status == "ok").any():  # no path at any context: one line after the table, not rows
            untimed.append(f"`{v}` ({sel.reason.dropna().iloc[0] if sel.reason.notna().any() else sel.status.iloc[0]})")
            continue
        for x in sorted(sel.x.unique()):
            at = sel[sel.x == x]
            by = {
                p: at[at.extra.apply(lambda e: e.get("path")) == p]
                for p in ("repeat", "enable_gqa", "grouped", "split_kv")
            }
            kv = at.extra.iloc[0].get("kv_heads")
            kv = "-" if kv is None or kv != kv else int(kv)  # a path the variant cannot take records no head count
            rows.append(
                {
                    "variant": v,
                    "kv heads": kv,
                    "cached tokens": int(x),
                    "repeat K/V": _cell(by["repeat"]),
                    "SDPA enable_gqa": _cell(by["enable_gqa"]),
                    "grouped queries": _cell(by["grouped"]),
                    "split-KV": _cell(by["split_kv"]),
                }
            )
            ratios.append(
                {
                    "variant": v,
                    "kv heads": kv,
                    "cached tokens": int(x),
                    "enable_gqa / grouped": _ratio(by["enable_gqa"], by["grouped"]),
                    "repeat / grouped": _ratio(by["repeat"], by["grouped"]),
                    "split-KV / grouped": _ratio(by["split_kv"], by["grouped"]),
                }
            )
    after = []
    if untimed:
        after += ["Not timed here: " + "; ".join(untimed) + ".", ""]
    if ratios:
        after += [
            "Each path's time over grouped queries', median ratios with a 95% bootstrap interval over repeats:",
            "",
            markdown_table(pd.DataFrame(ratios)),
            "",
        ]
    return table_section(
        "Decode-step attention over a grouped cache (ms)",
        "Four exact ways for one query per head to read K/V shared by a group of heads; ALiBi variants add their "
        "score bias (a float mask for SDPA). Split-KV (flash-decoding) scores chunks of 512 cached tokens apart and "
        "merges them by log-sum-exp: it exists for GPUs, where the chunks occupy cores one softmax row would leave "
        "idle; on a CPU it only adds the merge.",
        rows,
        "No path was timed.",
        after=after,
    )


def calculator_section() -> Section:
    """The published models' caches at 4096 fp16 tokens, batch 1, from the formula the cache-bytes check reads."""
    return section(
        "Calculator: published models at 4096 tokens, fp16, batch 1",
        [
            "From the same function that gives the analytic column of the cache-bytes check.",
            "",
            markdown_table(calculator_table()),
            "",
        ],
        BOOKKEEPING,
    )
