"""The outcomes of the masking probe (masking.py): per kernel variant, dtype and fill, what a padding row and a
partly masked row came to, and the report's table of them (the masking check reads the same outcomes)."""

from __future__ import annotations

import math

import pandas as pd

from harness.report_kit import markdown_table
from harness.report_sections import Section, section

#: a padding row under a finite fill spends all its probability: 1 within bfloat16's rounding (this project's
#: choice; below it the row reads 'zeros')
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


def masking_section(df: pd.DataFrame) -> Section | None:
    """The report's table: per kernel and dtype, each fill's padding row and partly masked rows (None without the
    probe's records)."""
    table = outcomes(df)
    if not len(table):
        return None
    table["cell"] = [
        r["padding row"] if r["padding row"] == "not run" else f"{r['padding row']}; {r['partial rows']}"
        for r in table.to_dict("records")
    ]
    wide = table.pivot_table(index=["variant", "dtype"], columns="fill", values="cell", aggfunc="first", sort=False)
    wide = wide.reset_index()[["variant", "dtype", *[f for f in ("-inf", "-1e9", "dtype_min", "-1e4") if f in wide]]]
    return section(
        "Masking: fills, dtypes and padding rows",
        [
            "Each cell: the fully masked (padding) row's output, then the largest probability a partly masked row puts "
            "on its masked keys (of 1). `0/0`: softmax of a row of -inf, not a number; `zeros`: the kernel "
            "special-cases the row; `1 on padding`: a finite fill spends the row's probability on the masked keys. The "
            "fill is written in float32 and cast: -1e9 is -inf in float16 (largest finite 65504).",
            "",
            markdown_table(wide),
            "",
        ],
    )
