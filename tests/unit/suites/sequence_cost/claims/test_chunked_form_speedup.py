"""Gated DeltaNet's chunked form against its token-by-token loop: judged on a GPU; on a CPU only a slower chunked form
can be told (the growth half is not testable there)."""

import pytest

from suites.sequence_cost.claims import chunked_form_speedup as claim
from tests.unit.suites.sequence_cost.claims._records import chunked_records, judged


@pytest.mark.parametrize(
    "loop,chunked,verdict",
    [
        ({64: 30.0, 1024: 800.0}, {64: 10.0, 1024: 40.0}, "agrees"),  # 3x -> 20x
        ({64: 30.0, 1024: 100.0}, {64: 10.0, 1024: 40.0}, "inconclusive"),  # 3x -> 2.5x: faster, not more so
        ({64: 10.0, 1024: 40.0}, {64: 30.0, 1024: 100.0}, "disagrees"),  # the chunked form slower
    ],
)
def test_the_chunked_form_verdict_follows_the_ratio_and_its_growth(loop, chunked, verdict):
    found = judged(claim, chunked_records(loop, chunked))
    assert found.verdict == verdict and found.headline.label.endswith("at 1024 tokens")


@pytest.mark.parametrize(
    "loop,chunked,verdict",
    [
        ({64: 30.0, 1024: 800.0}, {64: 10.0, 1024: 40.0}, "not testable here"),  # grows, but a CPU cannot show why
        ({64: 30.0, 1024: 100.0}, {64: 10.0, 1024: 40.0}, "not testable here"),  # faster, not more so
        ({64: 10.0, 1024: 40.0}, {64: 30.0, 1024: 100.0}, "disagrees"),  # slower: a CPU can show that
    ],
)
def test_on_a_cpu_the_growth_half_is_not_testable_whatever_the_ratio(loop, chunked, verdict):
    found = judged(claim, chunked_records(loop, chunked, device="cpu"))
    assert found.verdict == verdict and found.headline.label.endswith("at 1024 tokens")
    if verdict != "disagrees":
        assert "device=cuda" in found.cause and "3.00x at 64 tokens" in found.cause
