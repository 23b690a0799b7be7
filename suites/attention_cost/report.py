"""The attention_cost report: setup, support, correctness, latency, memory, FLOP/s, slopes, figures."""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np
import pandas as pd
import torch

from harness.measure import MAX_OTHER_CPU, MAX_STALL, bootstrap_ratio
from harness.findings import Claim, Estimate, Finding, finding, sentences
from harness.report import fmt_mean_ci, markdown_table
from harness.groups import code_line
from suites.attention_cost.figures import latency_and_memory_figures
from variants.kernel import tolerance

PUBLISHED = (
    "FlashAttention (Dao et al. 2022, arXiv 2205.14135) is exact attention whose memory grows linearly in sequence "
    "length, where materialising the score matrix grows quadratically. On a 2-core CPU (REFERENCES.md) PyTorch's "
    "fused SDPA kernel reaches ~69% of the fp32 matmul peak non-causal and ~59% causal at 4096 tokens (forward, 8 "
    "heads, d 64), and at 2048 tokens causal forward takes ~51 ms and ~4 MB against ~367 ms and ~132 MB for the "
    "math path."
)

MEMORY = Claim(
    "fused_attention_linear_memory", "attention_cost", "Fused (flash) attention's memory grows linearly in length; "
    "naive attention's quadratically", "Dao et al. 2022 (arXiv 2205.14135)",
    "exact attention in memory linear in sequence length; the score matrix is quadratic", ("naive", "sdpa"))
PEAK = Claim(
    "sdpa_share_of_peak", "attention_cost", "PyTorch's fused SDPA reaches most of the matmul peak at 4096 tokens",
    "REFERENCES.md (2-core CPU, forward, 8 heads of 64)", "~69% of the fp32 matmul peak non-causal, ~59% causal",
    ("naive", "sdpa"))
CLAIMS = (MEMORY, PEAK)
NO_PAIRS = "These records lack the naive and SDPA pairs needed for a comparison."


def _grouping(heads: int, kv_heads: int) -> str:
    if kv_heads == heads:
        return "MHA"
    return "MQA" if kv_heads == 1 else f"GQA-{kv_heads}"


def _frame(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    extra = df["extra"].apply(lambda e: e if isinstance(e, dict) else {})
    df["causal"] = extra.apply(lambda e: e.get("causal"))
    df["pass"] = extra.apply(lambda e: e.get("pass"))
    df["kernel"] = df["spec"].apply(lambda s: s["kernel"])
    df["grouping"] = df["spec"].apply(lambda s: _grouping(s["n_heads"], s["n_kv_heads"] or s["n_heads"]))
    # the figures' line style: head grouping, and the position encoding when it adds a score bias
    df["heads"] = df["grouping"] + df["spec"].apply(lambda s: "" if s["position"] == "none" else f" + {s['position']}")
    return df


def _cells(df: pd.DataFrame, metric: str) -> Dict[tuple, pd.DataFrame]:
    rows = df[(df.metric == metric)]
    return {key: g for key, g in rows.groupby(["variant", "causal", "pass", "x"], dropna=False)}


def _value_cell(group: Optional[pd.DataFrame], digits: int = 3, noise: bool = False) -> str:
    if group is None or not len(group):
        return "-"
    ok = group[group.status == "ok"]
    if not len(ok):
        return group.status.iloc[0]
    if len(ok) > 1:
        return fmt_mean_ci(ok.value, 2)
    value = float(ok.value.iloc[0])
    text = f"{value:.{digits}g}"
    if noise:
        e = ok.extra.iloc[0]
        text += f" ±{100 * e['noise'] / 2:.0f}%" + ("*" if e.get("contaminated") else "")
    return text


def _kept_times(group: Optional[pd.DataFrame]) -> Optional[List[float]]:
    if group is None:
        return None
    ok = group[group.status == "ok"]
    if len(ok) != 1:
        return None
    e = ok.extra.iloc[0]
    mask = e.get("kept_mask") or [True] * len(e["times"])
    kept = [t for t, k in zip(e["times"], mask) if k]
    return kept if len(kept) >= 3 else e["times"]


def _table(df, metric, lengths, keys, digits=3, noise=False, ratio_to=None) -> str:
    cells = _cells(df, metric)
    rows = []
    for variant, causal, pass_ in keys:
        row = {"variant": variant, "mask": "causal" if causal else "full", "pass": pass_}
        for x in lengths:
            row[str(int(x))] = _value_cell(cells.get((variant, causal, pass_, x)), digits, noise)
        rows.append(row)
    return markdown_table(pd.DataFrame(rows))


def _speedups(df, lengths, keys, reference: Dict[str, str]) -> str:
    """median(reference) / median(kernel) with a 95% bootstrap interval over repeats."""
    cells = _cells(df, "latency")
    rows = []
    for variant, causal, pass_ in keys:
        ref = reference.get(variant)
        if ref is None or ref == variant:
            continue
        row = {"variant": f"{variant} vs {ref}", "mask": "causal" if causal else "full", "pass": pass_}
        for x in lengths:
            a, b = _kept_times(cells.get((ref, causal, pass_, x))), _kept_times(cells.get((variant, causal, pass_, x)))
            if a and b:
                point, lo, hi = bootstrap_ratio(a, b)
                row[str(int(x))] = f"{point:.2f}x [{lo:.2f}-{hi:.2f}]"
            else:
                row[str(int(x))] = "-"
        rows.append(row)
    return markdown_table(pd.DataFrame(rows)) if rows else "No variant has a naive reference of the same grouping in these records."


def _memory_ratios(df, lengths, keys, reference: Dict[str, str]) -> str:
    cells = _cells(df, "peak_memory")
    rows = []
    for variant, causal, pass_ in keys:
        ref = reference.get(variant)
        if ref is None or ref == variant:
            continue
        row = {"variant": f"{ref} / {variant}", "mask": "causal" if causal else "full", "pass": pass_}
        for x in lengths:
            a, b = cells.get((ref, causal, pass_, x)), cells.get((variant, causal, pass_, x))
            ok = a is not None and b is not None and (a.status == "ok").all() and (b.status == "ok").all()
            row[str(int(x))] = f"{a.value.mean() / b.value.mean():.1f}x" if ok else "-"
        rows.append(row)
    return markdown_table(pd.DataFrame(rows)) if rows else ""


def slope(points: List[Tuple[float, float]]) -> Optional[float]:
    """Least-squares slope of log(value) on log(length) over the (up to) three longest lengths."""
    points = sorted(p for p in points if p[1] and p[1] > 0)[-3:]
    if len(points) < 2:
        return None
    x, y = np.log([p[0] for p in points]), np.log([p[1] for p in points])
    return float(np.polyfit(x, y, 1)[0])


def _slopes(df, keys) -> Tuple[str, Dict[tuple, Dict[str, Optional[float]]]]:
    found: Dict[tuple, Dict[str, Optional[float]]] = {}
    rows = []
    for variant, causal, pass_ in keys:
        entry = {}
        for metric in ("latency", "peak_memory"):
            sel = df[(df.metric == metric) & (df.status == "ok") & (df.variant == variant) & (df.causal == causal) & (df["pass"] == pass_)]
            pts = list(sel.groupby("x").value.mean().items())
            entry[metric] = slope(pts)
        found[(variant, causal, pass_)] = entry
        rows.append({"variant": variant, "mask": "causal" if causal else "full", "pass": pass_,
                     "latency slope": "-" if entry["latency"] is None else f"{entry['latency']:.2f}",
                     "memory slope": "-" if entry["peak_memory"] is None else f"{entry['peak_memory']:.2f}"})
    return markdown_table(pd.DataFrame(rows)), found


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> List[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    df = _frame(df)
    first = df.iloc[0]
    settings = first.profile_settings
    lengths, keys, reference = _cases(df)
    seeds = sorted(int(s) for s in df.seed.unique())
    peaks = df[(df.metric == "matmul_peak") & (df.status == "ok")].value
    dtype = str(first["dtype"])
    atol, rtol = tolerance(getattr(torch, dtype, None))
    lines = [f"# Attention kernel cost ({suite.name}, suite version {first.suite_version})", "",
             suite.description.strip().splitlines()[0], ""]
    lines += _setup(df, first, settings, seeds, peaks, dtype, atol, rtol)
    lines += _support(df)
    lines += _correctness(df, keys)

    timed = df[(df.metric == "latency") & (df.status == "ok")]
    lines += ["## Latency (ms)", "",
              "Median time of one call over the repeats kept; ± is half the interquartile range as a share of the median; "
              "`*` marks a cell where fewer than 3 repeats were free of other processes' CPU use (all repeats kept). "
              "`skipped` cells are over the profile's per-call budget (memory and FLOPs are still measured).", "",
              _table(df, "latency", lengths, keys, noise=True), ""]
    lines += ["## Speed-up over naive attention of the same head grouping", "",
              "median(naive) / median(kernel), with a 95% bootstrap interval over repeats in brackets (the noise figure).", "",
              _speedups(df, lengths, keys, reference), ""]
    lines += ["## Peak memory (MiB)", "", "Most bytes held at once during one call beyond its inputs (outputs, saved "
              "activations and gradients included).", "", _table(df, "peak_memory", lengths, keys, digits=4), "",
              "Naive's memory over the kernel's:", "", _memory_ratios(df, lengths, keys, reference), ""]
    lines += ["## Achieved FLOP/s as a share of the matmul peak (%)", "",
              "Useful FLOPs (torch.utils.flop_counter on naive attention of the same shapes; causal cases count the "
              "unmasked half) divided by the median latency, over the fastest square-matmul FLOP/s measured in the same job."
              + _over_peak(df), "", _table(df, "peak_fraction", lengths, keys, digits=3), ""]
    slope_table, slopes = _slopes(df, keys)
    lines += ["## Growth with sequence length", "",
              "Least-squares slope of log(value) on log(length) over the three longest lengths measured: 1 is linear, 2 quadratic.", "",
              slope_table, ""]
    figures = latency_and_memory_figures(df, out_dir / "figures")
    lines += ["## Figures", ""] + [f"![{p.stem}](figures/{p.name})" for p in figures] + [""]
    said = sentences(_findings(df, slopes, reference, lengths))
    lines += ["## Against the published findings", "", PUBLISHED + " " + (" ".join(said) or NO_PAIRS), ""]
    path = out_dir / f"{suite.name}.md"
    path.write_text("\n".join(lines))
    return [path, *figures]


def _setup(df, first, settings, seeds, peaks, dtype, atol, rtol) -> List[str]:
    lat = df[(df.metric == "latency") & (df.status == "ok")]
    repeats = sum(len(e["times"]) for e in lat.extra)
    kept = sum(sum(e.get("kept_mask") or []) for e in lat.extra)
    contaminated = sum(bool(e.get("contaminated")) for e in lat.extra)
    others = [e["other_cpu_median"] for e in lat.extra if e.get("other_cpu_median") is not None]
    stalls = [e["stall_median"] for e in lat.extra if e.get("stall_median") is not None]
    return [
        "## Setup", "",
        f"- Shapes: batch {settings['batch']}, {settings['n_heads']} query heads of dimension {settings['head_dim']}; "
        f"lengths {', '.join(str(x) for x in settings['lengths'])}; {dtype}; profile `{first.profile}`, seeds {seeds}.",
        f"- Timing: torch.utils.benchmark.Timer blocks (at least {settings['min_repeats']} repeats and "
        f"{settings['min_run_time']} s per case) after a warm-up call; calls over {settings['max_call_s']} s are not timed. "
        f"Peak memory: {_method(df)}. FLOPs: torch.utils.flop_counter.",
        f"- Check before timing: every case's output (and, for fwd+bwd, the gradients of q, k and v) against float64 "
        f"naive attention on {settings['check_rows']} sampled query rows; allowed error {atol:g} + {rtol:g} x max|reference| in {dtype}.",
        f"- Device: {first.device} ({first.device_name}), torch {first.torch_version}, {first.get('timing_threads')} threads "
        f"while measuring, flush denormals {first.get('flush_denormal')}, allocator {first.get('allocator')}; matmul peak "
        f"{peaks.mean():.1f} GFLOP/s ({len(peaks)} jobs, min {peaks.min():.1f}, max {peaks.max():.1f}); "
        f"{code_line(df)}.",
        f"- Contention: a repeat is dropped when other processes used over {MAX_OTHER_CPU} cores or kept a CPU "
        f"waiting over {MAX_STALL:.0%} of its time (Linux PSI). {kept} of {repeats} repeats were clean; {contaminated} of "
        f"{len(lat)} timed cases had fewer than 3 clean repeats and keep all of them. Median other-process CPU during "
        f"timing: {statistics.median(others) if others else float('nan'):.2f} cores; median CPU stall share "
        f"{statistics.median(stalls) if stalls else float('nan'):.0%}."
        + (" These latencies are contaminated by other processes: rerun on a quiet machine before quoting them."
           if lat.size and contaminated > len(lat) / 4 else ""),
        "",
    ]


def _over_peak(df) -> str:
    frac = df[(df.metric == "peak_fraction") & (df.status == "ok")]
    over = int((frac.value > 100).sum())
    return (f" {over} cells exceed 100%: the matmul peak and the kernel were timed at different moments of a machine "
            f"whose load changed, so these shares are not trustworthy." if over else "")


def _method(df) -> str:
    mem = df[(df.metric == "peak_memory") & (df.status == "ok")]
    return mem.extra.iloc[0].get("method", "?") if len(mem) else "none measured"


def _support(df) -> List[str]:
    rows = []
    for variant, g in df.groupby("variant"):
        statuses = g[g.metric != "matmul_peak"].status.value_counts().to_dict()
        job = g[g.metric == "job"]
        rows.append({"variant": variant, "kernel": g.kernel.iloc[0], "grouping": g.grouping.iloc[0],
                     "cases": ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())),
                     "why not run": "; ".join(sorted(set(job.reason.dropna()))) or ""})
    lines = ["## Support", "", "Records per variant by status (a case is one length x mask x pass x metric).", "",
             markdown_table(pd.DataFrame(rows)), ""]
    reasons = df[(df.status.isin(["failed", "oom", "unsupported"])) & (df.metric != "job")].drop_duplicates(["variant", "status", "reason"])
    if len(reasons):
        lines += ["Cases that did not run:", ""]
        lines += [f"- `{r.variant}` ({r.status}): {r.reason}" for r in reasons.itertuples()] + [""]
    return lines


def _correctness(df, keys) -> List[str]:
    err = df[df.metric == "max_error"]
    rows = []
    for variant, g in err.groupby("variant"):
        ok = g[g.status == "ok"]
        rows.append({"variant": variant, "cases checked": len(g[g.status.isin(["ok", "failed"])]),
                     "mismatches": int((g.status == "failed").sum()),
                     "largest error": f"{ok.value.max():.2g}" if len(ok) else "-",
                     "allowed (at that case)": f"{ok.extra.loc[ok.value.idxmax()]['allowed_error']:.2g}" if len(ok) else "-"})
    return ["## Correctness against naive", "", markdown_table(pd.DataFrame(rows)) if rows else "No case was checked.", ""]


def _cases(df: pd.DataFrame):
    """(lengths, (variant, causal, pass) keys in table order, the naive reference of each variant).

    Each kernel is compared with naive attention of the same head grouping and position encoding.
    """
    cases = df[df["pass"].notna()]
    lengths = sorted(cases.x.dropna().unique())
    keys = sorted({(r.variant, r.causal, r["pass"]) for _, r in cases.iterrows()}, key=lambda k: (k[2], k[1], k[0]))
    spec_of = df.groupby("variant").spec.first()
    by_grouping = {(s["n_kv_heads"], s["position"]): v for v, s in spec_of.items() if s["kernel"] == "naive"}
    reference = {v: by_grouping.get((s["n_kv_heads"], s["position"])) for v, s in spec_of.items()}
    return lengths, keys, reference


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on FlashAttention's linear memory and the published SDPA share of the matmul peak."""
    df = _frame(df)
    lengths, keys, reference = _cases(df)
    return _findings(df, _slopes(df, keys)[1], reference, lengths)


def _findings(df, slopes, reference, lengths) -> List[Finding]:
    return [_memory_finding(df, slopes, reference, lengths), _peak_finding(df)]


def _memory_finding(df, slopes, reference, lengths) -> Finding:
    """Fused kernels' forward memory grows about linearly (slope < 1.3) where naive's grows quadratically (> 1.7)."""
    parts, agree, estimates = [], [], []
    for (variant, causal, pass_), entry in sorted(slopes.items()):
        if causal or pass_ != "fwd":
            continue
        ref = reference.get(variant)
        if ref is None or ref == variant or (ref, causal, pass_) not in slopes:
            continue
        mine, theirs = entry["peak_memory"], slopes[(ref, causal, pass_)]["peak_memory"]
        if mine is None or theirs is None:
            continue
        agrees = mine < 1.3 and theirs > 1.7
        agree.append(agrees)
        estimates.append(Estimate(f"memory slope {variant} (vs {ref} {theirs:.2f})", mine, seeds=int(df.seed.nunique())))
        parts.append(f"`{variant}`'s forward peak memory grows with slope {mine:.2f} against {theirs:.2f} for `{ref}`"
                     + (" (linear against quadratic: agrees)." if agrees else " (does not show linear against quadratic growth)."))
    lat = df[(df.metric == "latency") & (df.status == "ok")]
    mem = df[(df.metric == "peak_memory") & (df.status == "ok")]
    for variant, ref in sorted(reference.items()):
        if ref is None or ref == variant:
            continue
        for causal in (False, True):
            both = [x for x in lengths if _has(lat, variant, causal, x) and _has(lat, ref, causal, x)]
            if both:
                x = max(both)
                a, b = _value(lat, ref, causal, x), _value(lat, variant, causal, x)
                ma, mb = _value(mem, ref, causal, x), _value(mem, variant, causal, x)
                parts.append(f"At {int(x)} tokens ({'causal' if causal else 'full'} forward, the longest both timed) "
                             f"`{variant}` takes {b:.1f} ms and {mb:.1f} MiB against {a:.1f} ms and {ma:.1f} MiB for `{ref}` "
                             f"({a / b:.1f}x faster, {ma / mb:.0f}x less memory).")
    verdict = "not run" if not agree else "agrees" if all(agree) else "disagrees" if not any(agree) else "inconclusive"
    return finding(MEMORY, verdict, " ".join(parts), estimates, int(df.seed.nunique()))


def _peak_finding(df) -> Finding:
    """SDPA's forward FLOP/s share of the matmul peak at 4096 tokens is within 15 points of the published share."""
    parts, labels, estimates = [], [], []
    frac = df[(df.metric == "peak_fraction") & (df.status == "ok") & (df["pass"] == "fwd") & (df.kernel == "sdpa")
              & (df.grouping == "MHA")]
    if len(frac):
        x = frac.x.max()
        for causal, published in ((False, 69), (True, 59)):
            sel = frac[(frac.x == x) & (frac.causal == causal)]
            if len(sel):
                got = sel.value.mean()
                if got > 100:
                    verdict = "above 100%, so this run's peak is not trustworthy (the machine's load changed between the two)."
                    labels.append("inconclusive")
                elif x != 4096:
                    verdict = "measured at a different length, so not comparable."
                    labels.append("inconclusive")
                else:
                    close = abs(got - published) <= 15
                    verdict = "close to it." if close else "not the published share."
                    labels.append("agrees" if close else "disagrees")
                estimates.append(Estimate.of(f"SDPA share of matmul peak, {'causal' if causal else 'non-causal'}, "
                                             f"{int(x)} tokens", sel.groupby("seed").value.mean(), "%"))
                parts.append(f"SDPA reaches {got:.0f}% of the matmul peak at {int(x)} tokens {'causal' if causal else 'non-causal'} "
                             f"forward against ~{published}% published for 4096 tokens: {verdict}")
    verdict = ("not run" if not labels else labels[0] if len(set(labels)) == 1
               else "inconclusive" if "inconclusive" in labels else "disagrees")
    return finding(PEAK, verdict, " ".join(parts), estimates)


def _has(frame, variant, causal, x) -> bool:
    return bool(len(frame[(frame.variant == variant) & (frame.causal == causal) & (frame.x == x) & (frame["pass"] == "fwd")]))


def _value(frame, variant, causal, x) -> float:
    sel = frame[(frame.variant == variant) & (frame.causal == causal) & (frame.x == x) & (frame["pass"] == "fwd")]
    return float(sel.value.mean()) if len(sel) else math.nan
