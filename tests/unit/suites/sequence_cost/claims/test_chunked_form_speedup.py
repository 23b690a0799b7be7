"""Gated DeltaNet's chunked form against its token-by-token loop: tested as minGRU's scan is, on a GPU only; on a
CPU not testable whatever the ratio (the chunked form slower included)."""

import pytest

from suites.sequence_cost.claims import chunked_form_speedup as claim
from tests.unit.suites.sequence_cost.claims._records import chunked_records, judged


@pytest.mark.parametrize(
    "loop,chunked,verdict",
    [
        ({64: 30.0, 1024: 800.0}, {64: 10.0, 1024: 40.0}, "agrees"),  # 3x -> 20x
        ({64: 30.0, 1024: 100.0}, {64: 10.0, 1024: 40.0}, "disagrees"),  # 3x -> 2.5x: faster, the lead shrinks
        ({64: 10.0, 1024: 40.0}, {64: 30.0, 1024: 100.0}, "disagrees"),  # the chunked form slower
        ({64: 30.0, 1024: 100.0}, {64: 10.0, 1024: 33.0}, "inconclusive"),  # 3x -> 3.03x: growth within the repeats
    ],
)
def test_on_a_gpu_the_chunked_form_verdict_follows_the_ratio_and_its_growth(loop, chunked, verdict):
    found = judged(claim, chunked_records(loop, chunked))
    assert found.verdict == verdict and found.headline.label.endswith("at 1024 tokens")
    assert len(found.estimates) >= 2 and found.estimates[1].label.startswith("growth of that ratio")


@pytest.mark.parametrize(
    "loop,chunked",
    [
        ({64: 30.0, 1024: 800.0}, {64: 10.0, 1024: 40.0}),  # grows, but a CPU cannot show why
        ({64: 10.0, 1024: 40.0}, {64: 30.0, 1024: 100.0}),  # slower: a CPU cannot refute it either
    ],
)
def test_on_a_cpu_it_is_not_testable_whatever_the_ratio(loop, chunked, tmp_path):
    found = judged(claim, chunked_records(loop, chunked, device="cpu"), gpu_results=tmp_path)
    assert found.verdict == "not testable here" and found.headline.label.endswith("at 1024 tokens on this cpu")
    assert "device=cuda" in found.cause and "at 64 tokens" in found.cause
