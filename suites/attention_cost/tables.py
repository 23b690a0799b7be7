"""The attention_cost tables and the per-case numbers its claims read: support, correctness, cells by length, speed-ups, memory ratios, growth slopes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.measure import bootstrap_ratio
from harness.report_kit import fmt_mean_ci, markdown_table
from harness.report_sections import BOOKKEEPING, Section, section
from suites.common.narrow import narrow
from suites.common.peak_note import over_peak_note

#: the device's ceilings, measured once per job: not cases
JOB_METRICS = ("matmul_peak", "read_bandwidth")


def grouping(heads: int, kv_heads: int) -> str:
    if kv_heads == heads:
        return "MHA"
    return "MQA" if kv_heads == 1 else f"GQA-{kv_heads}"


def with_cases(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    extra = df["extra"].apply(lambda e: e if isinstance(e, dict) else {})
    df["causal"] = extra.apply(lambda e: e.get("causal"))
    df["pass"] = extra.apply(lambda e: e.get("pass"))
    df["kernel"] = df["spec"].apply(lambda s: s["kernel"])
    df["grouping"] = df["spec"].apply(lambda s: grouping(s["n_heads"], s["n_kv_heads"] or s["n_heads"]))
    # the figures' line style: head grouping, and the position encoding when it adds a score bias
    df["heads"] = df["grouping"] + df["spec"].apply(lambda s: "" if s["position"] == "none" else f" + {s['position']}")
    return df


def cells_by_case(df: pd.DataFrame, metric: str) -> dict[tuple, pd.DataFrame]:
    rows = df[(df.metric == metric)]
    return {key: g for key, g in rows.groupby(["variant", "causal", "pass", "x"], dropna=False)}


def value_cell(group: pd.DataFrame | None, digits: int = 3, noise: bool = False) -> str:
    if group is None or not len(group):
        return "-"
    ok = group[group.status == "ok"]
    if not len(ok):
        return group.status.iloc[0]
    if len(ok) > 1:
        return fmt_mean_ci(ok.value, 2, "log")  # times, memory and rates are positive: a log-scale interval
    value = float(ok.value.iloc[0])
    text = f"{value:.{digits}g}"
    if noise:
        e = ok.extra.iloc[0]
        text += f" ±{100 * e['noise'] / 2:.0f}%" + ("*" if e.get("contaminated") else "")
    return text


def kept_times(group: pd.DataFrame | None) -> list[float] | None:
    if group is None:
        return None
    ok = group[group.status == "ok"]
    if len(ok) != 1:
        return None
    e = ok.extra.iloc[0]
    mask = e.get("kept_mask") or [True] * len(e["times"])
    kept = [t for t, k in zip(e["times"], mask) if k]
    return kept if len(kept) >= 3 else e["times"]


def table(df, metric, lengths, keys, digits=3, noise=False, ratio_to=None) -> str:
    cells = cells_by_case(df, metric)
    rows = []
    for variant, causal, pass_ in keys:
        row = {"variant": variant, "mask": "causal" if causal else "full", "pass": pass_}
        for x in lengths:
            row[str(int(x))] = value_cell(cells.get((variant, causal, pass_, x)), digits, noise)
        rows.append(row)
    return narrow(pd.DataFrame(rows), ["variant", "pass", "mask"])  # a table per pass where the lengths make it wide


def _against_reference(df, metric: str, lengths, keys, reference: dict[str, str], name, cell) -> list[dict[str, str]]:
    """One row per case key whose variant has a reference other than itself: ``name(variant, ref)``, its mask and
    pass, and per length ``cell(reference's records, variant's records)`` of ``metric``."""
    cells = cells_by_case(df, metric)
    rows = []
    for variant, causal, pass_ in keys:
        ref = reference.get(variant)
        if ref is None or ref == variant:
            continue
        row = {"variant": name(variant, ref), "mask": "causal" if causal else "full", "pass": pass_}
        for x in lengths:
            row[str(int(x))] = cell(cells.get((ref, causal, pass_, x)), cells.get((variant, causal, pass_, x)))
        rows.append(row)
    return rows


def speedups(df, lengths, keys, reference: dict[str, str]) -> str:
    """median(reference) / median(kernel) with a 95% bootstrap interval over repeats."""

    def cell(ref, kernel) -> str:
        a, b = kept_times(ref), kept_times(kernel)
        if not (a and b):
            return "-"
        point, lo, hi = bootstrap_ratio(a, b)
        return f"{point:.2f}x [{lo:.2f}-{hi:.2f}]"

    rows = _against_reference(df, "latency", lengths, keys, reference, lambda v, ref: f"{v} vs {ref}", cell)
    return (
        narrow(pd.DataFrame(rows), ["variant", "pass", "mask"])
        if rows
        else "No variant has a naive reference of the same grouping in these records."
    )


def memory_ratios(df, lengths, keys, reference: dict[str, str]) -> str:
    def cell(a, b) -> str:
        ok = a is not None and b is not None and (a.status == "ok").all() and (b.status == "ok").all()
        return f"{a.value.mean() / b.value.mean():.1f}x" if ok else "-"

    rows = _against_reference(df, "peak_memory", lengths, keys, reference, lambda v, ref: f"{ref} / {v}", cell)
    return narrow(pd.DataFrame(rows), ["variant", "pass", "mask"]) if rows else ""


def slope(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of log(value) on log(length) over the (up to) three longest lengths."""
    points = sorted(p for p in points if p[1] and p[1] > 0)[-3:]
    if len(points) < 2:
        return None
    x, y = np.log([p[0] for p in points]), np.log([p[1] for p in points])
    return float(np.polyfit(x, y, 1)[0])


def slope_rows(df, keys) -> tuple[str, dict[tuple, dict[str, float | None]]]:
    found: dict[tuple, dict[str, float | None]] = {}
    rows = []
    for variant, causal, pass_ in keys:
        entry = {}
        for metric in ("latency", "peak_memory"):
            sel = df[
                (df.metric == metric)
                & (df.status == "ok")
                & (df.variant == variant)
                & (df.causal == causal)
                & (df["pass"] == pass_)
            ]
            pts = list(sel.groupby("x").value.mean().items())
            entry[metric] = slope(pts)
        found[(variant, causal, pass_)] = entry
        rows.append(
            {
                "variant": variant,
                "mask": "causal" if causal else "full",
                "pass": pass_,
                "latency slope": "-" if entry["latency"] is None else f"{entry['latency']:.2f}",
                "memory slope": "-" if entry["peak_memory"] is None else f"{entry['peak_memory']:.2f}",
            }
        )
    return markdown_table(pd.DataFrame(rows)), found


def over_peak(df) -> str:
    """The note on kernels whose share of the measured matmul peak exceeds 100%."""
    return over_peak_note(df, "kernel")


def dispatch_line(df) -> str:
    """The Setup line on what ran: per kernel, the implementations its cases dispatched to (SDPA's backend as
    PyTorch's dispatcher picked it) with their case counts; 'not recorded' for jobs stored before it was."""
    lat = df[(df.metric == "latency") & (df.status == "ok")]
    said = lat.extra.apply(lambda e: e.get("dispatch") if isinstance(e, dict) else None)
    if not said.notna().any():
        return "- What ran: the SDPA backend was not recorded by these jobs (stored before it was)."
    parts = []
    for kernel, group in lat.assign(dispatch=said.fillna("not recorded")).groupby("kernel"):
        counts = group.dispatch.value_counts()
        parts.append(f"`{kernel}` " + ", ".join(f"{name} ({n})" for name, n in sorted(counts.items())))
    return "- What ran (timed cases per implementation, as PyTorch's dispatcher answered): " + "; ".join(parts) + "."


def method(df) -> str:
    mem = df[(df.metric == "peak_memory") & (df.status == "ok")]
    return mem.extra.iloc[0].get("method", "?") if len(mem) else "none measured"


def support(df) -> Section:
    """Records by status, one row per kernel whose variants (head groupings) share the same counts and reason."""
    per_variant = []
    for _variant, g in df.groupby("variant"):
        statuses = g[~g.metric.isin(JOB_METRICS)].status.value_counts().to_dict()
        job = g[g.metric == "job"]
        per_variant.append(
            {
                "kernel": g.kernel.iloc[0],
                "grouping": g.grouping.iloc[0],
                "cases per variant": ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())),
                "why not run": "; ".join(sorted(set(job.reason.dropna()))) or "",
            }
        )
    rows = []
    for (kernel, cases, why), g in pd.DataFrame(per_variant).groupby(
        ["kernel", "cases per variant", "why not run"], sort=True
    ):
        rows.append(
            {
                "kernel": kernel,
                "head groupings": ", ".join(sorted(g.grouping)),
                "cases per variant": cases,
                "why not run": why,
            }
        )
    lines = [
        "Records per variant by status (a case is one length x mask x pass x metric); variants of "
        "one kernel with the same counts share a row.",
        "",
        markdown_table(pd.DataFrame(rows)),
        "",
    ]
    reasons = df[(df.status.isin(["failed", "oom", "unsupported"])) & (df.metric != "job")].drop_duplicates(
        ["variant", "status", "reason"]
    )
    if len(reasons):
        lines += ["Cases that did not run:", ""]
        lines += [f"- `{r.variant}` ({r.status}): {r.reason}" for r in reasons.itertuples()] + [""]
    return section("Support", lines, BOOKKEEPING)


def correctness(df, keys) -> Section:
    err = df[df.metric == "max_error"]
    rows = []
    for variant, g in err.groupby("variant"):
        ok = g[g.status == "ok"]
        rows.append(
            {
                "variant": variant,
                "cases checked": len(g[g.status.isin(["ok", "failed"])]),
                "mismatches": int((g.status == "failed").sum()),
                "largest error": f"{ok.value.max():.2g}" if len(ok) else "-",
                "allowed (at that case)": f"{ok.extra.loc[ok.value.idxmax()]['allowed_error']:.2g}" if len(ok) else "-",
            }
        )
    return section(
        "Correctness against naive",
        [markdown_table(pd.DataFrame(rows)) if rows else "No case was checked.", ""],
        BOOKKEEPING,
    )


def cases(df: pd.DataFrame):
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
