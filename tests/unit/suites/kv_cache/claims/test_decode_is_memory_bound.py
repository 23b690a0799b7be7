"""A cached decode step is memory-bound: its latency grows no faster than its bytes, on steps they dominate."""

import pytest

from suites.kv_cache.claims import decode_is_memory_bound as claim
from suites.kv_cache.claims._shared import NOISE
from tests.unit.suites.kv_cache.claims._records import OVERHEAD, attention, judged, kv_records, overhead_bound


def test_its_rule_is_declared_untested():
    assert claim.CLAIM.kind == "finding" and "1.10" in claim.CLAIM.untested_rule


def test_not_testable_where_the_step_is_overhead_bound():
    """Reading the bytes of the step at the copy bandwidth takes a third of its time or less: no verdict either way."""
    overhead_bound(claim)


@pytest.mark.parametrize(
    "mha_16384, verdict",
    [
        (60.0, "agrees"),  # 4x the bytes, 4x the time (13.4 -> 53.7 ms of memory time)
        (64.0, "agrees"),  # 4.27x: within 1.1 x 4
        (75.0, "disagrees"),  # 5x for 4x the bytes: beyond the noise, as a step that copied its cache would grow
    ],
)
def test_judged_between_the_two_longest_dominated_contexts(mha_16384, verdict):
    found = judged(claim, kv_records(model=OVERHEAD, attention=attention(15.0, 1.5, mha_16384)))
    assert found.verdict == verdict
    assert "4096 -> 16384" in found.sentence  # not 1024, the shortest
    assert "Not judged" in found.sentence and "`rope+kv1`" in found.sentence  # MQA's 1.5 ms is not its bytes' time


def test_not_run_without_steps():
    assert judged(claim, kv_records()).verdict == "not run"


def test_the_tolerance_is_a_timing_margin_at_one_seed_and_an_interval_over_seeds():
    """Latency growth over bytes growth at most 1.1: one seed against the timing margin itself; several seeds on the
    95% interval of their ratios, so a mean inside 1.1 with an interval reaching past it does not agree."""
    within = claim._within
    assert NOISE == 1.10
    assert within([1.05]) == "agrees" and within([1.2]) == "disagrees"
    assert within([1.02, 1.03, 1.04]) == "agrees"
    assert within([0.95, 1.2]) == "inconclusive"  # mean 1.07, interval far past 1.1
    assert within([1.3, 1.31, 1.32]) == "disagrees"
