"""A check of the arithmetic: a fully masked row is 0/0 with -inf unless the kernel special-cases it, -1e9
overflows float16 to -inf, and no fill leaks into a partly masked row (masking.py's probe, every kernel)."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from suites.attention_cost.claims._shared import Evidence
from suites.attention_cost.masking_table import SPENT_TOLERANCE, outcomes

CLAIM = declared(__file__)
#: a leak below this is rounding, not probability (this project's choice: bfloat16's unit roundoff is 2^-8 = 0.0039
#: of a value of 1, and a leak is exactly 0 where exp underflows)
LEAK_TOLERANCE = 1e-3


def judge(ev: Evidence) -> Finding:
    """Agrees when every case (kernel x dtype x fill) is what the arithmetic predicts (``_expected``)."""
    table = outcomes(ev.df)
    ran = table[table["padding row"] != "not run"] if len(table) else table
    if not len(ran):
        return not_run(CLAIM, "These records hold no masking probe (attention_cost from suite version 2 on).")
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
        CLAIM, verdict, sentence, [estimate], cause="; ".join(wrong[:2]) + "." if wrong else "", over_seeds=False
    )


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
