"""The masking check (masking.py): every kernel's outcome for each dtype and fill against what the arithmetic
predicts, and the table of outcomes the report shows."""

from __future__ import annotations

import math

import pandas as pd

from harness.findings import Estimate, Finding, finding, not_run
from harness.suite_file import SuiteFile

(MASKING,) = SuiteFile.of(__file__).claims("masking_fill_values")
#: a leak below this is rounding, not probability (bfloat16's unit roundoff is 2^-8 = 0.0039 of a value of 1, and a
#: leak is exactly 0 where exp underflows)
LEAK_TOLERANCE = 1e-3
#: a padding row under a finite fill spends all its probability: 1 within bfloat16's rounding
SPENT_TOLERANCE = 1e-2


def outcomes(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (kernel variant, dtype, fill): the padding row's outcome ('0/0', not a number; 'zeros'; or the
    probability spent on padding), the largest leak of a partly masked row, whether the fill is -inf in the dtype."""
    rows = df[df.metric.isin(["mask_full_row_nan", "mask_full_row_mass", "mask_partial_nan", "mask_leak"])]
    if not len(rows):
        return pd.DataFrame()
    out = []
    for (variant, dtype, fill), g in rows.groupby(
        [rows.variant, rows.extra.map(lambda e: e.get("dtype")), rows.extra.map(lambda e: e.get("fill"))], sort=False
    ):
        ok = g[g.status == "ok"]
        if not len(ok):
            out.append(
                {"variant": variant, "dtype": dtype, "fill": fill, "padding row": "not run", "why": g.reason.iloc[0]}
            )
            continue
        value = {m: float(ok[ok.metric == m].value.iloc[0]) for m in ok.metric.unique()}
        cast = str(ok.extra.iloc[0].get("fill_in_dtype"))
        if value.get("mask_full_row_nan"):
            padding = "0/0"
        else:
            mass = value.get("mask_full_row_mass", math.nan)
            padding = "zeros" if abs(mass) <= SPENT_TOLERANCE else f"{mass:.3g} on padding"
        out.append(
            {
                "variant": variant,
                "dtype": dtype,
                "fill": fill,
                "fill in dtype": cast,
                "padding row": padding,
                "partial rows": "0/0"
                if value.get("mask_partial_nan")
                else f"leak {value.get('mask_leak', math.nan):.2g}",
                "infinite": cast in ("-inf", "inf"),
            }
        )
    return pd.DataFrame(out)


def _expected(row) -> str:
    """'' when the row is what the arithmetic predicts, else why not."""
    if row["padding row"] == "not run":
        return ""
    problems = []
    if row["partial rows"] == "0/0":
        problems.append("a partly masked row is 0/0")
    elif float(row["partial rows"].split()[1]) > LEAK_TOLERANCE:
        problems.append(f"a partly masked row {row['partial rows']}")
    if row["infinite"] and row["padding row"] not in ("0/0", "zeros"):
        problems.append(f"an infinite fill gives a padding row of {row['padding row']}")
    if not row["infinite"]:
        padding = row["padding row"]
        if padding in ("0/0", "zeros") or abs(float(padding.split()[0]) - 1) > SPENT_TOLERANCE:
            problems.append(f"a finite fill gives a padding row of {padding}")
    return "; ".join(problems)


def masking_finding(df: pd.DataFrame) -> Finding:
    table = outcomes(df)
    ran = table[table["padding row"] != "not run"] if len(table) else table
    if not len(ran):
        return not_run(MASKING, "These records hold no masking probe (attention_cost from suite version 2 on).")
    wrong = []
    for r in ran.to_dict("records"):
        why = _expected(r)
        if why:
            wrong.append(f"{r['variant']} {r['dtype']} fill {r['fill']}: {why}")
    nan_kernels = sorted({r["variant"] for r in ran.to_dict("records") if r["padding row"] == "0/0"})
    zero_kernels = sorted({r["variant"] for r in ran.to_dict("records") if r["padding row"] == "zeros"})
    f16 = ran[(ran.dtype == "float16") & (ran.fill == "-1e9")]
    overflow = bool(len(f16)) and all(f16.infinite)
    verdict = "disagrees" if wrong else "agrees"
    sentence = (
        f"{len(ran)} cases (kernel x dtype x fill) ran. With a fill that is -inf in its dtype a padding row is 0/0 (not a "
        f"number) in "
        f"{', '.join(f'`{k}`' for k in nan_kernels) or 'no kernel'} and zeros in "
        f"{', '.join(f'`{k}`' for k in zero_kernels) or 'no kernel'}; "
        + ("-1e9 cast to float16 is -inf, so it masks as -inf does; " if overflow else "")
        + "every finite fill keeps every row finite and spends a padding row's probability on its masked keys; "
        + (
            f"{len(wrong)} case(s) differ from the prediction: {'; '.join(wrong[:4])}."
            if wrong
            else "no partly masked row leaks."
        )
    )
    estimate = Estimate("cases off the prediction", float(len(wrong)), unit="", seeds=0, kind="count")
    return finding(
        MASKING, verdict, sentence, [estimate], cause="; ".join(wrong[:2]) + "." if wrong else "", over_seeds=False
    )


def masking_section(df: pd.DataFrame) -> list[str]:
    """The report's table: per kernel and dtype, each fill's padding row and partly masked rows."""
    from harness.report import markdown_table

    table = outcomes(df)
    if not len(table):
        return []
    table["cell"] = [
        r["padding row"] if r["padding row"] == "not run" else f"{r['padding row']}; {r['partial rows']}"
        for r in table.to_dict("records")
    ]
    wide = table.pivot_table(index=["variant", "dtype"], columns="fill", values="cell", aggfunc="first", sort=False)
    wide = wide.reset_index()[["variant", "dtype", *[f for f in ("-inf", "-1e9", "dtype_min", "-1e4") if f in wide]]]
    return [
        "## Masking: fills, dtypes and padding rows",
        "",
        "Each cell: the fully masked (padding) row's output, then the largest probability a partly masked row puts on "
        "its masked keys (of 1). `0/0`: softmax of a row of -inf, not a number; `zeros`: the kernel special-cases the row; "
        "`1 on padding`: a finite fill spends the row's probability on the masked keys. The fill is written in float32 "
        "and cast: -1e9 is -inf in float16 (largest finite 65504).",
        "",
        markdown_table(wide),
        "",
    ]
