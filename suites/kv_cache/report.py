"""The kv_cache report: cache bytes against the formula, the Llama-2 calculator, latency, decode paths."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Dict, List, Optional

import pandas as pd
import torch

from harness.measure import bootstrap_ratio
from harness.findings import Claim, Estimate, Finding, finding, not_run, sentences
from harness.report import markdown_table
from harness.groups import code_line
from variants.kernel import tolerance
from variants.kv_cache import PUBLISHED, kv_cache_bytes

#: REFERENCES.md: KV cache at 4096 tokens, fp16, batch 1
PUBLISHED_BYTES = {"Llama-2-7B": 2_147_483_648, "Llama-2-13B": 3_355_443_200, "Llama-2-70B": 1_342_177_280}
KV_BYTES = Claim(
    "kv_cache_bytes", "kv_cache", "KV-cache bytes = 2 x layers x kv_heads x head_dim x tokens x batch x bytes",
    "Llama 2 (Touvron et al. 2023, arXiv 2307.09288) shapes; REFERENCES.md",
    "fp16, 4096 tokens, batch 1: 7B 2,147,483,648 B; 13B 3,355,443,200 B; 70B (GQA-8) 1,342,177,280 B", ("rope",))
DECODE = Claim(
    "fewer_kv_heads_faster_decode", "kv_cache", "Fewer key/value heads make the memory-bound decode step faster",
    "Ainslie et al. 2023 (arXiv 2305.13245)", "T5-XXL inference 1.51 s/sample MHA, 0.28 s GQA-8, 0.24 s MQA",
    ("rope", "rope+mqa"))
CLAIMS = (KV_BYTES, DECODE)
AINSLIE = ("Ainslie et al. 2023 (arXiv 2305.13245) report T5-XXL inference at 1.51 s per sample with MHA, 0.28 s with "
           "GQA-8 and 0.24 s with MQA: with fewer key/value heads the memory-bound decode step reads a smaller cache.")


def _grouping(spec: dict) -> str:
    kv = spec["n_kv_heads"] or spec["n_heads"]
    return "MHA" if kv == spec["n_heads"] else ("MQA" if kv == 1 else f"GQA-{kv}")


def _kept(extra: dict) -> List[float]:
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


def _tolerance_text(dtype: str, of: str) -> str:
    """'1e-05 + 0.0001 x max |logit|': the kernel layer's tolerance of the records' dtype (variants/kernel/_tolerance.py)."""
    atol, rtol = tolerance(getattr(torch, str(dtype), None))
    return f"{atol:g} + {rtol:g} x max |{of}|"


def calculator_table(shapes: Optional[Dict[str, tuple]] = None, tokens: int = 4096, bytes_per_element: int = 2) -> pd.DataFrame:
    """KV bytes of the published models (and 70B as if it were MHA) from ``kv_cache_bytes``."""
    rows = []
    for name, s in PUBLISHED.items():
        got = kv_cache_bytes(s.layers, s.kv_heads, s.head_dim, tokens, 1, bytes_per_element)
        rows.append({"model": name, "layers": s.layers, "heads": s.heads, "kv heads": s.kv_heads, "head dim": s.head_dim,
                     "KV bytes": f"{got:,}", "GiB": f"{got / 2**30:.2f}",
                     "published": f"{PUBLISHED_BYTES[name]:,}" if name in PUBLISHED_BYTES else "",
                     "agrees": "yes" if PUBLISHED_BYTES.get(name) == got else "no"})
        if s.kv_heads != s.heads:
            mha = kv_cache_bytes(s.layers, s.heads, s.head_dim, tokens, 1, bytes_per_element)
            rows.append({"model": f"{name} if MHA", "layers": s.layers, "heads": s.heads, "kv heads": s.heads,
                         "head dim": s.head_dim, "KV bytes": f"{mha:,}", "GiB": f"{mha / 2**30:.2f}", "published": "", "agrees": ""})
    return pd.DataFrame(rows)


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> List[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    df = df.copy()
    df["grouping"] = df.spec.apply(_grouping)
    first = df.iloc[0]
    settings = first.profile_settings
    variants = sorted(df.variant.unique(), key=lambda v: (df[df.variant == v].spec.iloc[0]["position"],
                                                           -(df[df.variant == v].spec.iloc[0]["n_kv_heads"] or 1e9), v))
    spec = first.spec
    lines = [f"# KV cache ({suite.name}, suite version {first.suite_version})", "", suite.description.strip().splitlines()[0], ""]
    lat = df[df.metric.isin(["decode_latency", "decode_latency_kernel", "uncached_latency", "decode_path_latency"]) & (df.status == "ok")]
    contaminated = sum(bool(e.get("contaminated")) for e in lat.extra)
    others = [e["other_cpu_median"] for e in lat.extra if e.get("other_cpu_median") is not None]
    lines += [
        "## Setup", "",
        f"- Model: decoder-only Transformer with random weights (cost does not depend on training), {spec['n_layers']} layers, "
        f"d_model {spec['d_model']}, {spec['n_heads']} heads of dimension {spec['d_model'] // spec['n_heads']}, kernel "
        f"{spec['kernel']}; batch {settings['batch']}; {first['dtype']}; profile `{first.profile}`, seeds "
        f"{sorted(int(s) for s in df.seed.unique())}.",
        f"- Per-token latency at context L: *cached* is one step of one token over a cache of L tokens (attention by "
        f"grouped queries); *cached, kernel* the same step through the spec's kernel; *uncached* one forward over the L + 1 "
        f"tokens. Each cached step is first checked against the full forward's last logits (max |error| within "
        f"{_tolerance_text(first['dtype'], 'logit')}).",
        f"- Decode paths: {settings['path_heads']} query heads of dimension {settings['path_head_dim']}, key/value heads "
        f"from the variant, each path checked against float64 before timing (within "
        f"{_tolerance_text(first['dtype'], 'output')}).",
        f"- Timing: torch.utils.benchmark.Timer, at least {settings['min_repeats']} repeats, median of the repeats free of "
        f"other processes' CPU use; ± is half the IQR over the median; `*` marks cells with fewer than 3 clean repeats "
        f"({contaminated} of {len(lat)}; median other-process CPU {statistics.median(others) if others else float('nan'):.2f} cores)."
        + (" These latencies are contaminated by other processes: rerun on a quiet machine before quoting them."
           if len(lat) and contaminated > len(lat) / 4 else ""),
        f"- Device: {first.device} ({first.device_name}), torch {first.torch_version}, {first.get('timing_threads')} threads, "
        f"flush denormals {first.get('flush_denormal')}, allocator {first.get('allocator')}; {code_line(df)}.", "",
    ]
    lines += _bytes_section(df, variants)
    lines += ["## Calculator: published models at 4096 tokens, fp16, batch 1", "",
              "From the same function that gives the analytic column above.", "", markdown_table(calculator_table()), ""]
    lines += _latency_section(df, variants)
    lines += _greedy_section(df, variants)
    lines += _paths_section(df, variants)
    figure = _figure(df, out_dir / "figures" / f"{suite.name}.png")
    lines += ["## Figure", "", f"![per-token latency and decode paths](figures/{figure.name})", ""]
    lines += ["## Against the published findings", "", " ".join([AINSLIE] + sentences(findings(df))), ""]
    path = out_dir / f"{suite.name}.md"
    path.write_text("\n".join(lines))
    return [path, figure]


def _bytes_section(df, variants) -> List[str]:
    rows = []
    for v in variants:
        for x in sorted(df[(df.variant == v) & (df.metric == "cache_bytes")].x.unique()):
            m = df[(df.variant == v) & (df.metric == "cache_bytes") & (df.x == x)].iloc[0]
            a = df[(df.variant == v) & (df.metric == "cache_bytes_analytic") & (df.x == x)].value.iloc[0]
            rows.append({"variant": v, "kv heads": m.extra["kv_heads"], "context": int(x), "measured (B)": f"{int(m.value):,}",
                         "analytic (B)": f"{int(a):,}", "equal": "yes" if int(m.value) == int(a) else "NO"})
    return ["## Cache bytes: measured against 2 x layers x kv_heads x head_dim x tokens x batch x bytes", "",
            "Measured: the bytes of the distinct storages behind every layer's K and V after prefilling the context.", "",
            markdown_table(pd.DataFrame(rows)) if rows else "No cache was measured.", ""]


def _latency_section(df, variants) -> List[str]:
    rows = []
    for v in variants:
        sel = df[df.variant == v]
        for x in sorted(sel[sel.metric == "uncached_latency"].x.unique()):
            at = sel[sel.x == x]
            c, k, u = (at[at.metric == m] for m in ("decode_latency", "decode_latency_kernel", "uncached_latency"))
            rows.append({"variant": v, "context": int(x), "cached": _cell(c), "cached, kernel": _cell(k),
                         "uncached": _cell(u), "uncached / cached": _ratio(u, c)})
    return ["## Per-token latency (ms/token)", "",
            "Speed-ups are median ratios with a 95% bootstrap interval over repeats in brackets.", "",
            markdown_table(pd.DataFrame(rows)) if rows else "No latency was measured.", ""]


def _greedy_section(df, variants) -> List[str]:
    rows = []
    for v in variants:
        g = df[(df.variant == v) & (df.metric == "greedy_match")]
        if len(g):
            r = g.iloc[0]
            rows.append({"variant": v, "tokens": r.extra["tokens"], "identical": "yes" if r.status == "ok" else f"NO: {r.reason}",
                         "smallest top-1/top-2 gap": f"{r.extra['min_margin']:.2e}"})
    return ["## Greedy generation with and without the cache", "",
            markdown_table(pd.DataFrame(rows)) if rows else "No generation was run.", ""]


def _paths_section(df, variants) -> List[str]:
    rows = []
    paths = df[df.metric == "decode_path_latency"]
    for v in variants:
        sel = paths[paths.variant == v]
        for x in sorted(sel.x.unique()):
            at = sel[sel.x == x]
            by = {p: at[at.extra.apply(lambda e: e.get("path")) == p] for p in ("repeat", "enable_gqa", "grouped")}
            kv = at.extra.iloc[0].get("kv_heads")
            rows.append({"variant": v, "kv heads": kv, "cached tokens": int(x), "repeat K/V": _cell(by["repeat"]),
                         "SDPA enable_gqa": _cell(by["enable_gqa"]), "grouped queries": _cell(by["grouped"]),
                         "enable_gqa / grouped": _ratio(by["enable_gqa"], by["grouped"]),
                         "repeat / grouped": _ratio(by["repeat"], by["grouped"])})
    return ["## Decode-step attention over a grouped cache (ms)", "",
            "Three exact ways for one query per head to read K/V shared by a group of heads; ALiBi variants add their "
            "score bias (a float mask for SDPA).", "", markdown_table(pd.DataFrame(rows)) if rows else "No path was timed.", ""]


def _figure(df: pd.DataFrame, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    path.parent.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 2, figsize=(14, 5))
    names = {"decode_latency": "cached", "decode_latency_kernel": "cached, kernel", "uncached_latency": "uncached"}
    lat = df[df.metric.isin(list(names)) & (df.status == "ok")].copy()
    lat["mode"] = lat.metric.map(names)
    if len(lat):
        sns.lineplot(data=lat, x="x", y="value", hue="variant", style="mode", marker="o", errorbar=None, ax=axes[0])
    axes[0].set(yscale="log", xlabel="context length (tokens)", ylabel="latency (ms/token)",
                title="Per-token latency with and without the KV cache")
    paths = df[(df.metric == "decode_path_latency") & (df.status == "ok")].copy()
    if len(paths):
        paths["path"] = paths.extra.apply(lambda e: e["path"])
        paths["K/V"] = paths.grouping + paths.spec.apply(lambda s: f" {s['position']}")
        sns.lineplot(data=paths, x="x", y="value", hue="path", style="K/V", marker="o", errorbar=None, ax=axes[1])
    axes[1].set(yscale="log", xlabel="cached tokens", ylabel="latency (ms)",
                title="Decode-step attention: three ways to read shared K/V")
    for ax in axes:
        ax.set_xscale("log", base=2)
        if ax.get_legend() is not None:
            sns.move_legend(ax, "upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on the published cache sizes and on Ainslie et al.'s decode speed-up."""
    df = df.copy()
    df["grouping"] = df.spec.apply(_grouping)
    return [_bytes_finding(df), _decode_finding(df)]


def _bytes_finding(df: pd.DataFrame) -> Finding:
    """The calculator gives the published Llama-2 sizes, and measured cache bytes equal the formula."""
    calc = calculator_table()
    agree = bool((calc[calc.published != ""].agrees == "yes").all())
    parts = ["The calculator gives exactly the Llama-2 cache sizes of REFERENCES.md (7B 2 GiB, 13B 3,355,443,200 B, "
             "70B 1,342,177,280 B; 10 GiB if 70B were MHA)." if agree else "The calculator disagrees with the published Llama-2 sizes."]
    cache = df[df.metric == "cache_bytes"]
    equal = int((cache.status == "ok").sum())
    llama = PUBLISHED["Llama-2-7B"]
    estimates = [Estimate("Llama-2-7B at 4096 tokens, fp16", kv_cache_bytes(llama.layers, llama.kv_heads, llama.head_dim,
                                                                             4096, 1, 2), unit="B", seeds=0)]
    if len(cache):
        parts.append(f"Measured cache bytes equal the formula in {equal} of {len(cache)} cases.")
        estimates.append(Estimate("measured = formula", equal, unit=f"of {len(cache)} cases", seeds=0))
    verdict = "agrees" if agree and equal == len(cache) else "disagrees"
    return finding(KV_BYTES, verdict, " ".join(parts), estimates, int(df.seed.nunique()))


def _decode_finding(df: pd.DataFrame) -> Finding:
    """A cached decode step is faster with MQA than with MHA at the longest context (per position encoding)."""
    step = df[(df.metric == "decode_latency") & (df.status == "ok")]
    if not len(step):
        return not_run(DECODE)
    x = step.x.max()
    at = step[step.x == x].groupby(["grouping", step.spec.apply(lambda s: s["position"])]).value.mean()
    parts, faster, estimates = [], [], []
    for position in sorted({p for _, p in at.index}):
        mha, mqa = at.get(("MHA", position)), at.get(("MQA", position))
        if mha is None or mqa is None:
            continue
        faster.append(mha > mqa)
        cells = step[(step.x == x) & (step.spec.apply(lambda s: s["position"]) == position)]
        per_seed = {g: cells[cells.grouping == g].groupby("seed").value.mean() for g in ("MHA", "MQA")}
        ratios = (per_seed["MHA"] / per_seed["MQA"]).dropna()  # paired by seed
        estimates.append(Estimate.of(f"MHA / MQA step time, {position}, {int(x)} tokens", ratios))
        parts.append(f"With {position} at {int(x)} cached tokens a cached step takes {mha:.2f} ms with MHA and "
                     f"{mqa:.2f} ms with MQA ({mha / mqa:.2f}x); " + (
                         "like Ainslie et al., fewer K/V heads make decoding faster." if mha > mqa else
                         "unlike Ainslie et al., MQA is not faster here: in this small model the cache read is not "
                         "what limits a step."))
    if not faster:
        return not_run(DECODE)
    verdict = "agrees" if all(faster) else ("disagrees" if not any(faster) else "inconclusive")
    return finding(DECODE, verdict, " ".join(parts), estimates)
