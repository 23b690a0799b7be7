"""The sequence_cost report: setup, check, latency, tokens/s, share of the matmul peak, sequential work, figure, verdict."""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run, sentences
from harness.groups import code_line
from harness.measure import MAX_OTHER_CPU, MAX_STALL
from harness.report import markdown_table

UTILISATION = Claim(
    "recurrence_idles_device", "sequence_cost", "Recurrence leaves most of the device idle; attention keeps it busy",
    "Vaswani et al. 2017 (arXiv 1706.03762, Table 1: O(n) vs O(1) sequential operations); the figure is folklore",
    "often quoted for GPUs: recurrent layers ~30% utilisation, attention 70%+ (a claim to measure, not a published constant)",
    ("lstm", "gru", "transformer"))
CLAIMS = (UTILISATION,)
#: the quoted figures (% of peak)
QUOTED_RECURRENT, QUOTED_ATTENTION = 30.0, 70.0
#: verdict: attention's share at least AGREE_RATIO x recurrence's agrees; below DISAGREE_RATIO x disagrees
AGREE_RATIO, DISAGREE_RATIO = 2.0, 1.25
TABLES = (
    ("latency", "Latency (ms)", "Median time of one call over the repeats kept; ± is half the interquartile range as a "
     "share of the median; `*` marks a case with fewer than 3 repeats free of other processes' CPU use."),
    ("tokens_per_s", "Tokens per second", "batch x length / median latency."),
    ("peak_fraction", "FLOP/s as a share of the matmul peak (%)", "Matmul FLOPs of the call (torch.utils.flop_counter; "
     "the causal half of attention's score and value products) / median latency / the fastest square matmul measured "
     "in the same job."),
    ("dispatched_ops", "ATen operators dispatched per call", "Counted with a TorchDispatchMode over one call: a fused "
     "kernel is one operator whatever the length; a loop dispatches its operators once per step. A fused module whose count "
     "grows with the length runs its steps as separate operators from a loop in C++ instead of Python."),
)


def _kind(spec: Dict) -> str:
    if spec.get("family") == "recurrent_layer":
        return f"{spec['cell'].upper()} {'step loop' if spec['recurrence'] == 'loop' else 'fused'}"
    return f"Transformer block ({spec.get('kernel')})"


def _is_recurrent(spec: Dict) -> bool:
    return spec.get("family") == "recurrent_layer"


def _frame(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    extra = df["extra"].apply(lambda e: e if isinstance(e, dict) else {})
    df["pass"] = extra.apply(lambda e: e.get("pass"))
    df["layer"] = df["spec"].apply(_kind)
    df["recurrent"] = df["spec"].apply(_is_recurrent)
    return df


def _order(df: pd.DataFrame) -> List[str]:
    """Variants: fused recurrent layers (LSTM first), their step loops, then attention."""
    spec_of = df.groupby("variant").spec.first()
    return sorted(spec_of.index, key=lambda v: (not _is_recurrent(spec_of[v]), spec_of[v].get("recurrence") == "loop",
                                                spec_of[v].get("cell") != "lstm", v))


def _cell(rows: pd.DataFrame, digits: int = 3, noise: bool = False) -> str:
    if not len(rows):
        return "-"
    ok = rows[rows.status == "ok"]
    if not len(ok):
        return rows.status.iloc[0]
    value = float(ok.value.mean())
    text = f"{value:,.0f}" if abs(value) >= 10 ** digits else f"{value:.{digits}g}"
    if noise and len(ok) == 1:
        e = ok.extra.iloc[0]
        text += f" ±{100 * e.get('noise', 0) / 2:.0f}%" + ("*" if e.get("contaminated") else "")
    elif len(ok) > 1:
        text += f" (n={len(ok)})"
    return text


def _table(df: pd.DataFrame, metric: str, variants: List[str], lengths: List[float], passes: List[str]) -> str:
    rows = []
    for pass_ in passes:
        for v in variants:
            part = df[(df.metric == metric) & (df.variant == v) & (df["pass"] == pass_)]
            row = {"layer": f"`{v}`", "pass": pass_}
            for x in lengths:
                row[str(int(x))] = _cell(part[part.x == x], noise=(metric == "latency"))
            rows.append(row)
    return markdown_table(pd.DataFrame(rows))


def shares(df: pd.DataFrame, pass_: str) -> Tuple[Optional[float], Dict[str, float], Dict[str, float]]:
    """(the longest length at which the attention layer and a recurrent layer were both timed in ``pass_``,
    recurrent variant -> its share of the peak there, attention variant -> its share there), means over seeds."""
    ok = df[(df.metric == "peak_fraction") & (df.status == "ok") & (df["pass"] == pass_)]
    rec, att = ok[ok.recurrent], ok[~ok.recurrent]
    common = sorted(set(rec.x) & set(att.x))
    if not common:
        return None, {}, {}
    x = common[-1]
    by = lambda part: {v: float(g.value.mean()) for v, g in part[part.x == x].groupby("variant")}  # noqa: E731
    return x, by(rec), by(att)


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> List[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    df = _frame(df)
    first = df.iloc[0]
    settings = first.profile_settings
    variants = _order(df)
    cases = df[df["pass"].notna()]
    lengths = sorted(cases.x.dropna().unique())
    passes = [p for p in ("fwd", "fwd+bwd") if p in set(cases["pass"].dropna())]
    lines = [f"# Recurrence against attention on one device ({suite.name}, suite version {first.suite_version})", "",
             suite.description.strip().splitlines()[0], ""]
    lines += _setup(df, first, settings, variants)
    lines += _check(df, variants)
    for metric, title, note in TABLES:
        if metric == "peak_fraction":
            note += _over_peak(df)
        lines += [f"## {title}", "", note, "", _table(df, metric, variants, lengths, passes), ""]
    lines += _steps(df, variants, passes)
    lines += _not_timed(df)
    figure = _figure(df[(df.status == "ok")], variants, out_dir / "figures" / f"{suite.name}.png")
    if figure:
        lines += ["## Figure", "", f"![latency and share of the matmul peak against length](figures/{figure.name})", ""]
    lines += ["## Against the quoted utilisation", "", f"{UTILISATION.published}; {UTILISATION.source}.", ""]
    lines += [f"- {s}" for s in sentences(findings(df))] + [""]
    path = out_dir / f"{suite.name}.md"
    path.write_text("\n".join(lines))
    return [path] + ([figure] if figure else [])


def _setup(df, first, settings, variants) -> List[str]:
    ok = df[df.status == "ok"]
    params = ok.groupby("variant").parameters.first() if "parameters" in ok else pd.Series(dtype=float)
    kinds = df.groupby("variant").layer.first()
    peaks = df[(df.metric == "matmul_peak") & (df.status == "ok")].value
    lat = df[(df.metric == "latency") & (df.status == "ok")]
    contaminated = sum(bool(e.get("contaminated")) for e in lat.extra)
    others = [e["other_cpu_median"] for e in lat.extra if e.get("other_cpu_median") is not None]
    return [
        "## Setup", "",
        f"- Layers, width d = {settings['d_model']} (input and hidden), batch {settings['batch']}: "
        + "; ".join(f"`{v}` {kinds[v]}, {int(params[v]):,} parameters" for v in variants if v in params.index)
        + f". The Transformer block is Pre-LN attention with {settings['n_heads']} heads, causal, no position encoding, "
        "then a 4d GELU feed-forward layer.",
        f"- Lengths {', '.join(str(x) for x in settings['lengths'])}; passes {', '.join(settings['passes'])} (fwd under "
        f"no_grad; fwd+bwd computes the gradients of the input and every weight); {first['dtype']}; profile "
        f"`{first.profile}`, seeds {sorted(int(s) for s in df.seed.unique())}.",
        f"- Timing: torch.utils.benchmark.Timer blocks, at least {settings['min_repeats']} repeats and "
        f"{settings['min_run_time']} s per case, after a warm-up call; calls over {settings['max_call_s']} s are not timed. "
        f"Repeats during which other processes used over {MAX_OTHER_CPU} cores or stalled a CPU over {MAX_STALL:.0%} of "
        f"the time are dropped; {contaminated} of {len(lat)} timed cases kept all repeats for lack of clean ones"
        + (f" (median other-process CPU {statistics.median(others):.2f} cores)" if others else "") + ".",
        f"- Device: {first.device} ({first.device_name}), torch {first.torch_version}, {first.get('num_threads')} threads, "
        f"flush denormals {first.get('flush_denormal')}; matmul peak {peaks.mean():.1f} GFLOP/s ({len(peaks)} jobs, min "
        f"{peaks.min():.1f}, max {peaks.max():.1f}); {code_line(df)}.",
        "",
    ]


def _check(df, variants) -> List[str]:
    rows = []
    for v in variants:
        err = df[(df.metric == "max_error") & (df.variant == v)]
        if not len(err):
            continue
        e = err.iloc[0]
        rows.append({"layer": f"`{v}`", "reference": "float64 step loop" if _is_recurrent(e.spec) else "float64, naive kernel",
                     "largest error": f"{float(e.value):.2g}" if e.value == e.value and e.value is not None else "-",
                     "allowed": f"{e.extra.get('allowed_error', math.nan):.2g}", "status": e.status})
    return ["## Check before timing", "", "Output and input gradient of each layer against the same weights in float64, "
            "at the profile's check length; a layer that disagrees is not timed.", "",
            markdown_table(pd.DataFrame(rows)) if rows else "No check recorded.", ""]


def _steps(df, variants, passes) -> List[str]:
    steps = df[(df.metric == "sequential_steps") & (df.status == "ok")]
    lat = df[(df.metric == "latency") & (df.status == "ok")]
    flops = df[(df.metric == "flops") & (df.status == "ok")]
    peaks = df[(df.metric == "matmul_peak") & (df.status == "ok")].groupby("variant").value.mean()  # GFLOP/s
    rows = []
    for pass_ in passes:
        for v in variants:
            s = steps[(steps.variant == v) & (steps["pass"] == pass_)]
            t = lat[(lat.variant == v) & (lat["pass"] == pass_)]
            if not len(s):
                continue
            row = {"layer": f"`{v}`", "pass": pass_,
                   "sequential steps at each length": ", ".join(f"{int(x)}: {int(val)}" for x, val in
                                                                s.groupby("x").value.first().items())}
            longest = t.x.max() if len(t) else None
            n = float(s[s.x == longest].value.mean()) if longest is not None else math.nan
            measured = float(t[t.x == longest].value.mean()) * 1e3 / n if longest is not None else math.nan  # µs
            f = flops[(flops.variant == v) & (flops["pass"] == pass_) & (flops.x == longest)].value
            at_peak = float(f.mean()) / n / float(peaks.get(v, math.nan)) * 1e6 if len(f) else math.nan  # µs
            row["length"] = "-" if longest is None else int(longest)
            row["µs per step, measured"] = "-" if math.isnan(measured) else f"{measured:,.1f}"
            row["µs per step at the matmul peak"] = "-" if math.isnan(at_peak) else f"{at_peak:,.1f}"
            rows.append(row)
    return ["## Sequential steps on the critical path", "",
            "A recurrent layer computes h_t from h_(t-1): one step per token, and the backward pass walks back through "
            "them again. Attention computes every position at once, so its chain of dependent steps does not grow with "
            "the length (Vaswani et al. 2017, Table 1). At the longest length timed: the time each step took (latency / "
            "steps), and the time its matmuls would take at the device's matmul peak; where the first is many times the "
            "second, each step's work is too small to fill the device and it idles.", "",
            markdown_table(pd.DataFrame(rows)) if rows else "No steps recorded.", ""]


def _over_peak(df) -> str:
    over = int(((df.metric == "peak_fraction") & (df.status == "ok") & (df.value > 100)).sum())
    return (f" {over} cells exceed 100%: the matmul peak and the layer were timed at different moments of a machine whose "
            "load changed, so these shares are not trustworthy." if over else "")


def _not_timed(df) -> List[str]:
    bad = df[df.status != "ok"].drop_duplicates(["variant", "status", "reason"])
    if not len(bad):
        return []
    return ["Cases not timed:", ""] + [f"- `{r.variant}` ({r.status}): {r.reason}" for r in bad.itertuples()] + [""]


def findings(df: pd.DataFrame) -> List[Finding]:
    """Agrees when the attention layer's share of the matmul peak is at least AGREE_RATIO x the best recurrent
    layer's at the longest length both were timed (forward+backward when measured, else forward); disagrees
    below DISAGREE_RATIO x; inconclusive between."""
    if "pass" not in df:
        df = _frame(df)
    device = str(df.iloc[0].device).split(":")[0] if len(df) else "?"
    measured = [p for p in ("fwd+bwd", "fwd") if shares(df, p)[0] is not None]
    if not measured:
        return [not_run(UTILISATION, "These records lack a recurrent and an attention layer timed at a common length.")]
    parts, verdicts, estimates = [], [], []
    for pass_ in measured:
        x, rec, att = shares(df, pass_)
        best_rec = max(rec, key=rec.get)
        best_att = max(att, key=att.get)
        ratio = att[best_att] / rec[best_rec] if rec[best_rec] > 0 else math.inf
        verdicts.append("agrees" if ratio >= AGREE_RATIO else "disagrees" if ratio < DISAGREE_RATIO else "inconclusive")
        estimates += [Estimate.of(f"{pass_} {best_att} % of peak", _seed_values(df, best_att, pass_, x), "%"),
                      Estimate.of(f"{pass_} {best_rec} % of peak", _seed_values(df, best_rec, pass_, x), "%")]
        parts.append(f"{pass_} at {int(x)} tokens: `{best_att}` {att[best_att]:.0f}% of the matmul peak against "
                     + ", ".join(f"`{v}` {s:.0f}%" for v, s in sorted(rec.items(), key=lambda kv: -kv[1]))
                     + f" ({ratio:.1f}x the busiest recurrent layer)")
    primary = verdicts[0]
    quoted = (f"the quoted ~{QUOTED_RECURRENT:.0f}% against {QUOTED_ATTENTION:.0f}%+ is for GPUs" if device == "cpu"
              else f"quoted: ~{QUOTED_RECURRENT:.0f}% against {QUOTED_ATTENTION:.0f}%+")
    word = {"agrees": "**agrees**: attention keeps the device at least "
                      f"{AGREE_RATIO:g}x as busy as recurrence",
            "disagrees": f"**disagrees**: recurrence keeps this {device} about as busy as attention or busier "
                         f"(attention's share is under {DISAGREE_RATIO:g}x the busiest recurrent layer's)",
            "inconclusive": f"is **inconclusive**: attention is busier, but by less than {AGREE_RATIO:g}x"}[primary]
    sentence = (f"On this {device} ({quoted}): " + "; ".join(parts) + f". Judged on {measured[0]}, this run {word}.")
    return [finding(UTILISATION, primary, sentence, estimates)]


def _seed_values(df: pd.DataFrame, variant: str, pass_: str, x: float) -> List[float]:
    rows = df[(df.metric == "peak_fraction") & (df.status == "ok") & (df.variant == variant) & (df["pass"] == pass_)
              & (df.x == x)]
    return [float(v) for v in rows.value]


def _figure(ok: pd.DataFrame, variants: List[str], path: Path) -> Optional[Path]:
    """Latency and share of the matmul peak against length, log-log: a column per pass, a line per layer."""
    data = ok[ok.metric.isin(["latency", "peak_fraction"])]
    if not len(data):
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    path.parent.mkdir(parents=True, exist_ok=True)
    passes = [p for p in ("fwd", "fwd+bwd") if p in set(data["pass"])]
    fig, axes = plt.subplots(2, len(passes), figsize=(6.2 * len(passes), 8.0), squeeze=False)
    for j, pass_ in enumerate(passes):
        for i, (metric, label) in enumerate((("latency", "latency (ms, log)"),
                                             ("peak_fraction", "FLOP/s as % of the matmul peak"))):
            ax = axes[i][j]
            part = data[(data.metric == metric) & (data["pass"] == pass_)]
            sns.lineplot(data=part, x="x", y="value", hue="variant", hue_order=variants, marker="o", errorbar=None,
                         ax=ax, legend=(i == 0 and j == len(passes) - 1))
            ax.set_xscale("log", base=2)
            lengths = sorted(data.x.unique())
            ax.set_xticks(lengths, [str(int(x)) for x in lengths])
            if metric == "latency":
                ax.set_yscale("log")
            else:
                ax.axhline(QUOTED_RECURRENT, color="grey", linestyle=":", linewidth=1)
                ax.axhline(QUOTED_ATTENTION, color="grey", linestyle="--", linewidth=1)
                ax.set_ylim(bottom=0)
            ax.set(xlabel="sequence length (tokens)", ylabel=label, title=f"{pass_}: {label.split(' (')[0]}")
    if axes[0][-1].get_legend() is not None:
        axes[0][-1].legend(title="layer", bbox_to_anchor=(1.02, 1), loc="upper left")
    fig.suptitle("One layer of the same width: latency and device utilisation against length "
                 f"(dotted {QUOTED_RECURRENT:.0f}%, dashed {QUOTED_ATTENTION:.0f}%: the figures quoted for GPUs)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
