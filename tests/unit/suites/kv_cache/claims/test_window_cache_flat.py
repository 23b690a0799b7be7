"""A sliding window's rolling cache stops growing at W tokens: a check of the measured bytes."""

import pandas as pd

from suites.kv_cache.claims import window_cache_flat as claim
from tests.unit.suites.kv_cache.claims._records import judged, sizes

W, PER_TOKEN = 64, 4096  # 2 x 2 layers x 8 K/V heads x 32 x 4 B
FACTS = {"layers": 2, "kv_heads": 8, "head_dim": 32, "bytes_per_element": 4, "batch": 1}
FULL = {"position": "rope", "n_heads": 8, "n_kv_heads": None}
CONTEXTS = (32, 128, 512)


def _records(windowed_grows: bool) -> pd.DataFrame:
    formula = {x: PER_TOKEN * min(x, W) for x in CONTEXTS}
    measured = {x: PER_TOKEN * x for x in CONTEXTS} if windowed_grows else formula
    rows = sizes("rope+window64", {**FULL, "window": W}, measured, formula, {**FACTS, "window": W})
    full = {x: PER_TOKEN * x for x in CONTEXTS}
    rows += sizes("rope", FULL, full, full, {**FACTS, "window": None})
    return pd.DataFrame(rows)


def test_it_is_a_check():
    assert claim.CLAIM.kind == "check" and claim.CLAIM.protocol


def test_a_cache_flat_past_w_agrees():
    found = judged(claim, _records(windowed_grows=False))
    assert found.verdict == "agrees" and found.boundary == claim.FLAT
    assert "measured = formula at min(tokens, W) in 3 of 3 contexts" in found.sentence
    assert "The full cache of `rope` grows 4x over the same contexts." in found.sentence
    assert found.headline.value == 1.0


def test_a_cache_that_grows_past_w_disagrees():
    found = judged(claim, _records(windowed_grows=True))
    assert found.verdict == "disagrees" and found.cause


def test_not_run_without_a_window():
    assert judged(claim, _records(False).query("variant == 'rope'")).verdict == "not run"
