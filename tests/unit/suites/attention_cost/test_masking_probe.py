"""The masking probe of attention_cost: what each CPU kernel does with a padding row and partly masked rows under
each fill and dtype (the check's verdict on it: claims/test_masking_fill_values.py)."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

from suites.attention_cost.masking import mask_bias
from suites.attention_cost.masking_table import outcomes
from tests.unit.suites.attention_cost.claims._records import probe_records


@pytest.fixture(scope="module")
def probed() -> pd.DataFrame:
    return probe_records("naive", "sdpa")


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
