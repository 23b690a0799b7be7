"""KV-cache bytes = the formula: a check of the calculator (Llama 2's sizes) and of every measured cache."""

from suites.kv_cache.claims import kv_cache_bytes as claim
from tests.unit.suites.kv_cache.claims._records import cache, of_frame


def test_kv_cache_bytes_is_a_check():
    assert claim.CLAIM.kind == "check" and "REFERENCES" not in claim.CLAIM.source
    assert claim.judge(of_frame(cache(["ok", "ok"]))).verdict == "agrees"
    differs = claim.judge(of_frame(cache(["ok", "failed"])))  # a measured size differs from the formula
    assert differs.verdict == "disagrees" and differs.cause
