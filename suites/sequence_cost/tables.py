"""The sequence_cost tables: each layer's kind and order, the per-length tables of latency, tokens/s, share of
the peak and dispatched operators, the check before timing, the sequential steps, the decode steps and the cases
not timed (each table a report section)."""

from __future__ import annotations

import math

import pandas as pd

from harness.report_kit import status_notes, table_section
from harness.report_sections import BOOKKEEPING, Section, section
from suites.common.narrow import narrow
from suites.common.peak_note import over_peak_note

TABLES = (
    (
        "latency",
        "Latency (ms)",
        "Median time of one call over the repeats kept; ± is half the interquartile range as a "
        "share of the median; `*` marks a case with fewer than 3 repeats free of other processes' CPU use.",
    ),
    ("tokens_per_s", "Tokens per second", "batch x length / median latency."),
    (
        "peak_fraction",
        "FLOP/s as a share of the measured torch.mm peak (%)",
        "Matmul FLOPs of the call (torch.utils.flop_counter; "
        "the causal half of attention's score and value products) / median latency / {peak}.",
    ),
    (
        "dispatched_ops",
        "ATen operators dispatched per call",
        "Counted with a TorchDispatchMode over one call: a fused "
        "kernel is one operator whatever the length; a loop dispatches its operators once per step. A fused module whose count "
        "grows with the length runs its steps as separate operators from a loop in C++ instead of Python.",
    ),
)


def _kind(spec: dict) -> str:
    if spec.get("family") == "recurrent_layer":
        return f"{spec['cell'].upper()} {'step loop' if spec['recurrence'] == 'loop' else 'fused'}"
    if _is_mixer(spec):
        return f"{spec['mixer']} {'step loop' if spec['recurrence'] == 'loop' else 'parallel form'}"
    return f"Transformer block ({spec.get('kernel')})"


def _is_recurrent(spec: dict) -> bool:
    return spec.get("family") == "recurrent_layer"


def _is_mixer(spec: dict) -> bool:
    """A minGRU or linear-attention layer (variants/models/mixer_layer.py): neither side of the utilisation claim."""
    return spec.get("family") == "mixer_layer"


def _frame(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    extra = df["extra"].apply(lambda e: e if isinstance(e, dict) else {})
    df["pass"] = extra.apply(lambda e: e.get("pass"))
    df["layer"] = df["spec"].apply(_kind)
    df["recurrent"] = df["spec"].apply(_is_recurrent)
    df["mixer"] = df["spec"].apply(_is_mixer)
    return df


def _order(df: pd.DataFrame) -> list[str]:
    """Variants: fused recurrent layers (LSTM first), their step loops, then attention."""
    spec_of = df.groupby("variant").spec.first()
    return sorted(
        spec_of.index,
        key=lambda v: (
            not _is_recurrent(spec_of[v]),
            spec_of[v].get("recurrence") == "loop",
            spec_of[v].get("cell") != "lstm",
            v,
        ),
    )


def _cell(rows: pd.DataFrame, digits: int = 3, noise: bool = False) -> str:
    if not len(rows):
        return "-"
    ok = rows[rows.status == "ok"]
    if not len(ok):
        return rows.status.iloc[0]
    value = float(ok.value.mean())
    text = f"{value:,.0f}" if abs(value) >= 10**digits else f"{value:.{digits}g}"
    if noise and len(ok) == 1:
        e = ok.extra.iloc[0]
        text += f" ±{100 * e.get('noise', 0) / 2:.0f}%" + ("*" if e.get("contaminated") else "")
    elif len(ok) > 1:
        text += f" (n={len(ok)})"
    return text


def _table(df: pd.DataFrame, metric: str, variants: list[str], lengths: list[float], passes: list[str]) -> str:
    rows = []
    for pass_ in passes:
        for v in variants:
            part = df[(df.metric == metric) & (df.variant == v) & (df["pass"] == pass_)]
            row = {"layer": f"`{v}`", "pass": pass_}
            for x in lengths:
                row[str(int(x))] = _cell(part[part.x == x], noise=(metric == "latency"))
            rows.append(row)
    return narrow(pd.DataFrame(rows), ["layer", "pass"])  # a table per pass where the lengths make it wide


def shares(df: pd.DataFrame, pass_: str) -> tuple[float | None, dict[str, float], dict[str, float]]:
    """(the longest length at which the attention layer and a recurrent layer were both timed in ``pass_``,
    recurrent variant -> its share of the peak there, attention variant -> its share there), means over seeds."""
    ok = df[(df.metric == "peak_fraction") & (df.status == "ok") & (df["pass"] == pass_)]
    rec, att = ok[ok.recurrent], ok[~ok.recurrent & ~ok.mixer]
    common = sorted(set(rec.x) & set(att.x))
    if not common:
        return None, {}, {}
    x = common[-1]
    by = lambda part: {v: float(g.value.mean()) for v, g in part[part.x == x].groupby("variant")}  # noqa: E731
    return x, by(rec), by(att)


def _check(df, variants) -> Section:
    rows = []
    for v in variants:
        err = df[(df.metric == "max_error") & (df.variant == v)]
        if not len(err):
            continue
        e = err.iloc[0]
        rows.append(
            {
                "layer": f"`{v}`",
                "reference": "float64 step loop"
                if _is_recurrent(e.spec) or _is_mixer(e.spec)
                else "float64, naive kernel",
                "largest error": f"{float(e.value):.2g}" if e.value == e.value and e.value is not None else "-",
                "allowed": f"{e.extra.get('allowed_error', math.nan):.2g}",
                "status": e.status,
            }
        )
    return table_section(
        "Check before timing",
        "Output and input gradient of each layer against the same weights in float64, "
        "at the profile's check length; a layer that disagrees is not timed.",
        rows,
        "No check recorded.",
        BOOKKEEPING,
    )


def _steps(df, variants, passes) -> Section:
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
            row = {
                "layer": f"`{v}`",
                "pass": pass_,
                "sequential steps at each length": ", ".join(
                    f"{int(x)}: {int(val)}" for x, val in s.groupby("x").value.first().items()
                ),
            }
            longest = t.x.max() if len(t) else None
            n = float(s[s.x == longest].value.mean()) if longest is not None else math.nan
            measured = float(t[t.x == longest].value.mean()) * 1e3 / n if longest is not None else math.nan  # µs
            f = flops[(flops.variant == v) & (flops["pass"] == pass_) & (flops.x == longest)].value
            at_peak = float(f.mean()) / n / float(peaks.get(v, math.nan)) * 1e6 if len(f) else math.nan  # µs
            row["length"] = "-" if longest is None else int(longest)
            row["µs per step, measured"] = "-" if math.isnan(measured) else f"{measured:,.1f}"
            row["µs per step at the measured matmul peak"] = "-" if math.isnan(at_peak) else f"{at_peak:,.1f}"
            rows.append(row)
    return table_section(
        "Sequential steps on the critical path",
        "A recurrent layer computes h_t from h_(t-1): one step per token, and the backward pass walks back through "
        "them again. Attention computes every position at once, so its chain of dependent steps does not grow with "
        "the length (Vaswani et al. 2017, Table 1). At the longest length timed: the time each step took (latency / "
        "steps), and the time its matmuls would take at the job's measured torch.mm peak; where the first is many times the "
        "second, each step's work is too small to fill the device and it idles.",
        rows,
        "No steps recorded.",
    )


def _over_peak(df) -> str:
    """The note on layers whose share of the measured matmul peak exceeds 100%."""
    return over_peak_note(df, "layer")


def _not_timed(df) -> Section | None:
    bad = status_notes(df, "- `{variant}` ({status}): {reason}")
    return section("Cells that are not numbers", ["Cases not timed:", ""] + bad + [""], BOOKKEEPING) if bad else None


def decode_section(df: pd.DataFrame, variants: list[str]) -> Section | None:
    """Per layer and context: one decoding step's latency and the state it reads per sequence (None where no decode
    step was timed)."""
    lat = df[(df.metric == "decode_latency") & (df.status == "ok")]
    size = df[(df.metric == "decode_state_bytes") & (df.status == "ok")]
    if not len(lat):
        return None
    contexts = sorted(lat.x.unique())
    rows = []
    for v in [v for v in variants if v in set(lat.variant)]:
        row = {"layer": f"`{v}`"}
        for x in contexts:
            t = lat[(lat.variant == v) & (lat.x == x)].value
            b = size[(size.variant == v) & (size.x == x)].value
            row[f"{int(x)} tokens"] = (f"{t.mean():.3g} ms" if len(t) else "-") + (
                f", {b.mean() / 1024:.3g} KiB" if len(b) else ""
            )
        rows.append(row)
    return table_section(
        "Decoding: one step against the context length",
        "Median time of one decoding step of one layer "
        "(batch as above, one new token per sequence) after the context, and the state it reads per "
        "sequence: a recurrent or mixer state stays the same size, the Transformer's KV cache grows by "
        "2 d values per token.",
        rows,
        "No decode steps timed.",
    )
