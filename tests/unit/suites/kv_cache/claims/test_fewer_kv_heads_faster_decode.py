"""Fewer K/V heads make the decode step faster: a check judged on the step whose bytes dominate it."""

import pytest

from suites.kv_cache.claims import fewer_kv_heads_faster_decode as claim
from suites.kv_cache.claims._shared import NOISE
from tests.unit.suites.kv_cache.claims._records import OVERHEAD, attention, judged, kv_records, overhead_bound


def test_not_testable_where_the_step_is_overhead_bound():
    """Reading the bytes of the step at the copy bandwidth takes a third of its time or less: no verdict either way."""
    overhead_bound(claim)


@pytest.mark.parametrize(
    "steps, seeds, verdict",
    [
        (attention(15.0, 1.5), (0,), "agrees"),  # bytes dominate MHA's step (13.4 of 15 ms), MQA 10x faster
        (attention(15.0, 14.5), (0,), "inconclusive"),  # one seed, 3% faster: within the 10% timing margin
        (attention(15.0, 20.0), (0,), "disagrees"),  # MQA slower beyond the margin
        (attention(15.0, 1.5), (0, 1), "agrees"),  # two seeds: the paired t test decides, no margin
        (attention(60.0, 1.5), (0,), "not testable here"),  # the bytes' 13.4 ms are under half of 60: not dominated
    ],
)
def test_judged_where_bytes_dominate(steps, seeds, verdict):
    found = judged(claim, kv_records(model=OVERHEAD, attention=steps, seeds=seeds))
    assert claim.CLAIM.kind == "check"  # one attention op chosen because its bytes dominate it
    assert found.verdict == verdict
    assert (found.cause != "") == (verdict != "agrees")
    if verdict != "not testable here":
        assert "MHA / MQA model step time" not in " ".join(
            e.label for e in found.estimates
        )  # the model step is shown only
        assert "not judged where its bytes do not dominate" in found.sentence
        assert "whole model's step" in found.headline.label and found.boundary == NOISE


def test_not_run_without_steps():
    assert judged(claim, kv_records()).verdict == "not run"
