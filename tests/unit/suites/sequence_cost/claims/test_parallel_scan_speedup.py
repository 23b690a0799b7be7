"""minGRU's parallel scan against the sequential GRU: the latency ratio at the longest length and its growth."""

import pytest

from suites.sequence_cost.claims import parallel_scan_speedup as claim
from tests.unit.suites.sequence_cost.claims._records import judged, scan_records


@pytest.mark.parametrize(
    "gru_loop,mingru,verdict",
    [
        ({64: 20.0, 512: 400.0}, {64: 10.0, 512: 40.0}, "agrees"),  # 2x -> 10x
        ({64: 20.0, 512: 400.0}, {64: 5.0, 512: 200.0}, "inconclusive"),  # 4x -> 2x: faster, but the lead shrinks
        ({64: 20.0, 512: 100.0}, {64: 10.0, 512: 150.0}, "disagrees"),  # slower at the longest length
    ],
)
def test_the_scan_verdict_reads_the_latency_ratio(gru_loop, mingru, verdict):
    found = judged(claim, scan_records(gru_loop, mingru))
    assert found.claim == claim.CLAIM and found.verdict == verdict
    assert "GPU figure" in found.sentence and (found.cause == "") == (verdict == "agrees")


def test_its_rule_is_declared_untested():
    assert claim.CLAIM.kind == "finding" and "1.1" in claim.CLAIM.untested_rule
