"""The sentences a cost report names its ceilings with: the measured ones (the job's fastest torch.mm, its copy and read
bandwidths) and, for a device in harness/ceilings.py, the nominal ones with their source; every number comes from the
records or from that table.

A share of the measured matmul peak reads higher than the same FLOP/s as a share of the device's nominal peak
(an H200's fastest bfloat16 torch.mm is 69% of its datasheet's dense peak), so a report says which it divides by,
and gives both where the device is known. A device not in the table (every CPU) is "unknown device: measured only".
Records stored before a ceiling was recorded say "not recorded".
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from harness.ceilings import Nominal, compute_ceiling, nominal

#: the words every report uses for a device without a nominal ceiling
UNKNOWN = "unknown device: measured only"


def _ok(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    return df[(df.metric == metric) & (df.status == "ok")] if len(df) and "metric" in df else df.iloc[0:0]


def _number(value: Any) -> float | None:
    """A finite number, or None for a missing, NaN or non-numeric value (pandas fills absent facts with NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def device_names(df: pd.DataFrame) -> list[str]:
    """The device names of the group's measured records, sorted."""
    ok = df[df.status == "ok"] if "status" in df else df
    names = ok["device_name"].dropna() if "device_name" in ok else pd.Series(dtype=object)
    return sorted({str(n) for n in names})


def _dtype(df: pd.DataFrame) -> str:
    dtypes = df["dtype"].dropna().astype(str).unique() if "dtype" in df else []
    return dtypes[0] if len(dtypes) else "float32"


def _precision(df: pd.DataFrame) -> str | None:
    """The float32 matmul precision the jobs recorded (harness/env.py), or None where none did."""
    facts = df["accelerator"].dropna() if "accelerator" in df else []
    found = {f.get("float32_matmul_precision") for f in facts if isinstance(f, dict)} - {None}
    return sorted(found)[0] if found else None


def nominal_compute(df: pd.DataFrame, device_name: str) -> tuple[Nominal, float, str] | None:
    """(entry, nominal FLOP/s, which figure) bounding the group's matmuls on ``device_name``, or None when the
    device is not in the table or its dtype has no figure there."""
    entry = nominal(device_name)
    if entry is None:
        return None
    try:
        tflops, which = compute_ceiling(entry, _dtype(df), _precision(df))
    except ValueError:
        return None
    return entry, tflops * 1e12, which


# --------------------------------------------------------------------------- compute: the matmul peak


def best_sizes(df: pd.DataFrame) -> list[int]:
    """The square-matmul sizes N whose fastest repeat set a job's measured peak, sorted."""
    found = set()
    for extra in _ok(df, "matmul_peak").extra:
        sizes = extra.get("sizes") if isinstance(extra, dict) else None
        if sizes:
            found.add(int(max(sizes, key=lambda n: sizes[n]["flops_per_s"])))
    return sorted(found)


def measured_peak(df: pd.DataFrame) -> str:
    """'the measured torch.mm peak (the fastest repeat of a 2048 x 2048 matmul in the job)': what a share of the
    matmul peak divides by."""
    sizes = best_sizes(df)
    which = " or ".join(f"{n} x {n}" for n in sizes) if sizes else "a square"
    return f"the measured torch.mm peak (the fastest repeat of a {which} matmul in the job)"


def _peak_flops(df: pd.DataFrame) -> float | None:
    """The mean measured matmul peak of the group's jobs in FLOP/s, or None."""
    peaks = _ok(df, "matmul_peak").value
    return float(peaks.mean()) * 1e9 if len(peaks) else None  # records hold GFLOP/s


def nominal_peak_note(df: pd.DataFrame, known_only: bool = False) -> str:
    """One sentence per device of the group: its nominal compute ceiling with the source, how much of it the measured
    matmul peak reached and so how a share of the measured peak converts; or (unless ``known_only``) that the device
    is unknown."""
    out = []
    for name in device_names(df):
        found = nominal_compute(df, name)
        if found is None and known_only:
            continue
        if found is None:
            out.append(f"No nominal peak for {name} ({UNKNOWN}; harness/ceilings.py lists the known devices).")
            continue
        entry, flops, which = found
        peak = _peak_flops(df[df.device_name == name])
        sentence = f"{name} ({entry.part}): nominal {which} {flops / 1e12:.4g} TFLOP/s ({entry.source})"
        if peak:
            sentence += (
                f"; the measured torch.mm peak, {peak / 1e12:.4g} TFLOP/s, is {peak / flops:.0%} of it, so a share of "
                f"the measured peak reads {flops / peak:.2f}x its share of the nominal one"
            )
        out.append(sentence + ".")
    return " ".join(out)


def with_nominal_share(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` plus a ``nominal_fraction`` record (%) for every measured ``peak_fraction`` of a device in the table:
    the same FLOP/s over the nominal peak, from the job's own measured peak (``matmul_peak_gflops``)."""
    rows = _ok(df, "peak_fraction")
    if not len(rows) or "matmul_peak_gflops" not in rows or "device_name" not in rows:
        return df
    extra = []
    for name, group in rows.groupby("device_name"):
        found = nominal_compute(df, str(name))
        if found is None:
            continue
        share = group.value * group.matmul_peak_gflops * 1e9 / found[1]  # % of measured x measured / nominal
        extra.append(group.assign(metric="nominal_fraction", value=share).dropna(subset=["value"]))
    return pd.concat([df, *extra], ignore_index=True) if extra else df


# --------------------------------------------------------------------------- memory: copy, read and nominal


def bandwidths(df: pd.DataFrame) -> dict[str, float | None]:
    """Median GB/s over the group's jobs of the copy (bytes read + written) and the read (bytes read only) probes;
    None where no job recorded one."""
    out = {}
    for metric in ("copy_bandwidth", "read_bandwidth"):
        values = _ok(df, metric).value
        out[metric] = float(values.median()) if len(values) else None
    return out


#: each memory probe: its name, and how its rate is described (what it does, which bytes it counts)
PROBES = {
    "copy_bandwidth": ("copy bandwidth", "{} GB/s (one large copy, bytes read + written)"),
    "read_bandwidth": ("read-only bandwidth", "{} GB/s (one large sum, bytes read only)"),
}


def fmt_gbs(value: float) -> str:
    """GB/s as a reader reads it: three figures below 1000 ('15.7'), whole numbers with commas above ('4,280')."""
    return f"{value:.3g}" if value < 1000 else f"{value:,.0f}"


def bandwidth_note(
    df: pd.DataFrame,
    probes: tuple[str, ...] = ("copy_bandwidth", "read_bandwidth"),
    unknown: bool = True,
    lead: str = "Memory ceilings",
) -> str:
    """The group's memory ceilings in one sentence: each of ``probes`` the jobs recorded (medians over jobs; 'not
    recorded' where none did) and the nominal bandwidth (with its source) of each known device; with ``unknown``,
    each device not in the table as 'unknown device: measured only'."""
    found = bandwidths(df)
    parts = [
        f"{PROBES[p][0]} " + (PROBES[p][1].format(fmt_gbs(found[p])) if found[p] else "not recorded in these jobs")
        for p in probes
    ]
    for name in device_names(df):
        entry = nominal(name)
        if entry:
            parts.append(f"nominal {fmt_gbs(entry.bandwidth_tbs * 1e3)} GB/s for {name} ({entry.source})")
        elif unknown:
            parts.append(f"no nominal bandwidth for {name} ({UNKNOWN})")
    return f"{lead}, medians over jobs: " + "; ".join(parts) + "."


# --------------------------------------------------------------------------- what ran beneath torch


def accelerator_line(df: pd.DataFrame) -> str:
    """The Setup line on the accelerator: driver, cuDNN, the SM clock after the matmul peak and at most, float32 matmul
    precision; 'none' for CPU jobs and 'not recorded' for facts the jobs did not store."""
    devices = set(df["device"].dropna().astype(str)) if "device" in df else set()
    if devices and all(not d.startswith("cuda") for d in devices):
        return "- Accelerator: none (the jobs ran on the CPU; no driver, cuDNN or GPU clock)."
    facts = next((f for f in (df["accelerator"].dropna() if "accelerator" in df else []) if isinstance(f, dict)), {})
    versions = next(
        (v for v in df.get("library_versions", pd.Series(dtype=object)).dropna() if isinstance(v, dict)), {}
    )
    clocks = [
        c
        for e in _ok(df, "matmul_peak").extra
        if isinstance(e, dict) and (c := _number(e.get("sm_clock_mhz"))) is not None
    ]

    def said(value: Any, unit: str = "") -> str:
        if isinstance(value, str) and value:
            return value + unit
        number = _number(value)
        return "not recorded" if number is None else f"{number:.0f}{unit}"

    span = sorted({f"{c:.0f}" for c in (min(clocks), max(clocks))}, key=float) if clocks else []
    max_clock = f"max {said(facts.get('sm_clock_max_mhz'), ' MHz')}"
    clock = (
        f"SM clock right after the matmul peak {'-'.join(span) + ' MHz' if clocks else 'not recorded'} ({max_clock})"
        if len(_ok(df, "matmul_peak"))
        else f"SM clock {max_clock}"  # a suite that times no matmul peak has no clock under load to report
    )
    return (
        f"- Accelerator: driver {said(facts.get('driver_version'))}, cuDNN {said(versions.get('cudnn'))}; {clock}; "
        f"float32 matmul precision "
        f"{said(facts.get('float32_matmul_precision'))}."
    )
