"""The masking check: every kernel, dtype and fill as the arithmetic predicts, on the probe's records of CPU kernels."""

import pandas as pd
import pytest

from suites.attention_cost.claims import masking_fill_values as claim
from suites.attention_cost.masking_table import outcomes
from tests.unit.suites.attention_cost.claims._records import evidence, probe_records


@pytest.fixture(scope="module")
def probed() -> pd.DataFrame:
    return probe_records("naive", "sdpa")


def _judged(frame):
    return claim.judge(evidence(frame))


def test_no_fill_leaks_into_a_partly_masked_row_and_the_check_agrees(probed):
    table = outcomes(probed)
    assert set(table["partial rows"]) == {"leak 0"}
    found = _judged(probed)
    assert (
        found.verdict == "agrees" and "`naive`" in found.sentence and "-1e9 cast to float16 is -inf" in found.sentence
    )


def test_a_leak_or_a_nan_from_a_finite_fill_disagrees(probed):
    broken = probed.copy()
    leak = (broken.metric == "mask_leak") & (broken.variant == "sdpa")
    broken.loc[leak, "value"] = 0.2
    found = _judged(broken)
    assert found.verdict == "disagrees" and "leak 0.2" in found.cause
    nan = (broken.metric == "mask_full_row_nan") & broken.extra.map(lambda e: e["fill"] == "dtype_min")
    assert _judged(probed.assign(value=probed.value.where(~nan, 1.0))).verdict == "disagrees"


def test_not_run_without_the_probe():
    assert claim.CLAIM.kind == "check"
    assert (
        _judged(pd.DataFrame(columns=["variant", "metric", "value", "status", "reason", "extra"])).verdict == "not run"
    )
