"""Stacked sliding windows: a check that every window model's measured span is layers x (W - 1)."""

from suites.position_extrapolation.claims import stacked_window_span as claim
from tests.unit.suites.position_extrapolation.claims._records import evidence, spans


def test_it_is_a_check():
    assert claim.CLAIM.kind == "check" and claim.CLAIM.protocol


def test_the_check_agrees_only_when_every_seed_measures_the_formula():
    assert claim.judge(evidence(spans([9, 9, 9]))).verdict == "agrees"
    wrong = claim.judge(evidence(spans([9, 12, 9])))
    assert wrong.verdict == "disagrees" and "mask" in wrong.cause
    assert claim.judge(evidence(spans([]))).verdict == "not run"
