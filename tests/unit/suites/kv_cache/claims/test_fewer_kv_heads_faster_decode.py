"""Fewer K/V heads make the decode step faster: a check judged on the step whose bytes dominate it, MHA over MQA
tested against 1.1x on the timing repeats."""

import pytest

from suites.kv_cache.claims import fewer_kv_heads_faster_decode as claim
from suites.kv_cache.claims._shared import NOISE
from tests.unit.suites.kv_cache.claims._records import OVERHEAD, attention, judged, kv_records, overhead_bound


def test_not_testable_where_the_step_is_overhead_bound():
    """Reading the bytes of the step at the copy bandwidth takes a third of its time or less: no verdict either way."""
    overhead_bound(claim)


@pytest.mark.parametrize(
    "steps, seeds, sd, verdict",
    [
        (attention(15.0, 1.5), (0,), 0.02, "agrees"),  # bytes dominate MHA's step (13.4 of 15 ms), MQA 10x faster
        (attention(15.0, 14.5), (0,), 0.02, "disagrees"),  # one seed, 3% faster: clearly short of 10%
        (attention(15.0, 13.6), (0,), 0.2, "inconclusive"),  # 10% faster, the repeats too spread to tell
        (attention(15.0, 20.0), (0,), 0.02, "disagrees"),  # MQA slower
        (attention(15.0, 1.5), (0, 1), 0.02, "agrees"),  # two seeds: the per-seed ratios' interval over seeds
        (attention(60.0, 1.5), (0,), 0.02, "not testable here"),  # the bytes' 13.4 ms are under half of 60
    ],
)
def test_judged_where_bytes_dominate(steps, seeds, sd, verdict):
    found = judged(claim, kv_records(model=OVERHEAD, attention=steps, seeds=seeds, relative_sd=sd))
    assert claim.CLAIM.kind == "check"  # one attention op chosen because its bytes dominate it
    assert found.verdict == verdict
    assert (found.cause != "") == (verdict != "agrees")
    if verdict != "not testable here":
        assert "MHA / MQA model step time" not in " ".join(
            e.label for e in found.estimates
        )  # the model step is shown only
        assert "not judged where its bytes do not dominate" in found.sentence
        assert "whole model's step" in found.headline.label and found.boundary == NOISE
        assert found.p is not None and "tested against 1.1x" in found.sentence


def test_not_run_without_steps():
    assert judged(claim, kv_records()).verdict == "not run"
