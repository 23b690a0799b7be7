"""The masking probe of attention_cost: what each CPU kernel does with a padding row and partly masked rows under
each fill and dtype, and the check's verdict on it."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

from suites.attention_cost.masking import mask_bias, masking_measurements
from suites.attention_cost.masking_verdict import masking_finding, outcomes
from variants.kernel import kernels


def _records(*names: str) -> pd.DataFrame:
    rows = []
    for name in names:
        for m in masking_measurements(kernels.get(name), 4, 2, 16, "cpu", 0):
            rows.append({"variant": name, "metric": m.metric, "value": m.value, "status": m.status,
                         "reason": m.reason, "extra": m.extra})  # fmt: skip
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def probed() -> pd.DataFrame:
    return _records("naive", "sdpa")


def _cell(table, variant, dtype, fill):
    return table[(table.variant == variant) & (table.dtype == dtype) & (table.fill == fill)].iloc[0]


def test_minus_1e9_is_minus_inf_in_float16_and_finite_in_float32_and_bfloat16():
    assert torch.isneginf(mask_bias("-1e9", torch.float16, "cpu")[0, 0, 0]).all()
    assert torch.isfinite(mask_bias("-1e9", torch.bfloat16, "cpu")).all()
    assert mask_bias("dtype_min", torch.float16, "cpu").min() == torch.finfo(torch.float16).min


def test_a_padding_row_is_nan_in_naive_and_zeros_in_sdpa_under_an_infinite_fill(probed):
    table = outcomes(probed)
    for dtype in ("float32", "bfloat16", "float16"):
        assert _cell(table, "naive", dtype, "-inf")["padding row"] == "0/0"
        assert _cell(table, "sdpa", dtype, "-inf")["padding row"] == "zeros"
    assert _cell(table, "naive", "float16", "-1e9")["padding row"] == "0/0"  # -1e9 overflowed to -inf
    assert _cell(table, "naive", "float32", "-1e9")["padding row"] == "1 on padding"


def test_no_fill_leaks_into_a_partly_masked_row_and_the_check_agrees(probed):
    table = outcomes(probed)
    assert set(table["partial rows"]) == {"leak 0"}
    found = masking_finding(probed)
    assert (
        found.verdict == "agrees" and "`naive`" in found.sentence and "-1e9 cast to float16 is -inf" in found.sentence
    )


def test_a_leak_or_a_nan_from_a_finite_fill_disagrees(probed):
    broken = probed.copy()
    leak = (broken.metric == "mask_leak") & (broken.variant == "sdpa")
    broken.loc[leak, "value"] = 0.2
    found = masking_finding(broken)
    assert found.verdict == "disagrees" and "leak 0.2" in found.cause
    nan = (broken.metric == "mask_full_row_nan") & broken.extra.map(lambda e: e["fill"] == "dtype_min")
    assert masking_finding(probed.assign(value=probed.value.where(~nan, 1.0))).verdict == "disagrees"
