"""MLA caches (d_c + d_h^R) values per token and layer, GQA's cache with 2.25 groups: a check of the measured bytes."""

import pandas as pd

from suites.kv_cache.claims import mla_kv_bytes as claim
from tests.unit.suites.kv_cache.claims._records import judged, sizes

LAYERS, HEAD_DIM, ELEMENT = 2, 32, 4
FACTS = {"layers": LAYERS, "head_dim": HEAD_DIM, "bytes_per_element": ELEMENT, "batch": 1}
MLA = {"position": "rope", "n_heads": 8, "n_kv_heads": None, "attention": "mla"}
GQA2 = {"position": "rope", "n_heads": 8, "n_kv_heads": 2}
CONTEXTS = (128, 512)


def _records(mla_per_token: float, gqa=True) -> pd.DataFrame:
    """MLA's cache at ``mla_per_token`` values per token and layer against its formula's 4.5 d_h, and GQA-2's."""
    formula = {x: LAYERS * 4.5 * HEAD_DIM * x * ELEMENT for x in CONTEXTS}
    measured = {x: LAYERS * mla_per_token * x * ELEMENT for x in CONTEXTS}
    rows = sizes("mla", MLA, measured, formula, {**FACTS, "values_per_token_layer": 4.5 * HEAD_DIM})
    if gqa:
        grouped = {x: 2 * LAYERS * 2 * HEAD_DIM * x * ELEMENT for x in CONTEXTS}
        rows += sizes("rope+gqa2", GQA2, grouped, grouped, {**FACTS, "kv_heads": 2})
    return pd.DataFrame(rows)


def test_it_is_a_check():
    assert claim.CLAIM.kind == "check" and claim.CLAIM.protocol


def test_the_latent_cache_is_gqa_with_two_and_a_quarter_groups():
    found = judged(claim, _records(4.5 * HEAD_DIM))
    assert found.verdict == "agrees" and found.boundary == claim.GQA_GROUPS == 2.25
    assert "2.25 GQA groups' worth" in found.sentence and "1.125x" in found.sentence
    assert found.headline.value == 2.25
    alone = judged(claim, _records(4.5 * HEAD_DIM, gqa=False))  # no GQA-2 run: the formula alone
    assert alone.verdict == "agrees" and "GQA-2" not in alone.sentence


def test_a_cache_that_holds_more_than_the_latent_disagrees():
    found = judged(claim, _records(2 * 4 * HEAD_DIM))  # full K and V of 4 heads
    assert found.verdict == "disagrees" and found.cause


def test_not_run_without_latent_attention():
    assert judged(claim, _records(4.5 * HEAD_DIM).query("variant != 'mla'")).verdict == "not run"
