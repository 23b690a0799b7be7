"""A check of the selector: on steps their bytes dominate, a cached decode step's latency grows no faster than its
bytes (within 1.1x), tested on the timing repeats."""

import math

import numpy as np
import pytest

from harness.paired import all_hold
from suites.common import timing_repeats as repeats
from suites.kv_cache.claims import decode_is_memory_bound as claim
from suites.kv_cache.claims._shared import NOISE
from tests.unit.suites.kv_cache.claims._records import OVERHEAD, attention, judged, kv_records, overhead_bound


def test_it_is_a_check_of_its_selector_answering_no_question():
    assert claim.CLAIM.kind == "check" and claim.CLAIM.answers == "none"
    assert "selector" in claim.CLAIM.protocol


def test_not_testable_where_the_step_is_overhead_bound():
    """Reading the bytes of the step at the copy bandwidth takes a third of its time or less: no verdict either way."""
    overhead_bound(claim)


@pytest.mark.parametrize(
    "mha_16384, seeds, sd, verdict",
    [
        (60.0, (0,), 0.02, "agrees"),  # 4x the bytes, 4x the time (13.4 -> 53.7 ms of memory time)
        (64.0, (0,), 0.02, "agrees"),  # 4.27x: 1.07 of the bytes' growth, its interval below 1.1
        (64.0, (0,), 0.2, "inconclusive"),  # the same, but the repeats spread too widely to tell
        (75.0, (0,), 0.02, "disagrees"),  # 5x for 4x the bytes, as a step that copied its cache would grow
        (60.0, (0, 1), 0.02, "agrees"),  # two seeds: the per-seed ratios' interval over seeds
    ],
)
def test_judged_between_the_two_longest_dominated_contexts(mha_16384, seeds, sd, verdict):
    records = kv_records(model=OVERHEAD, attention=attention(15.0, 1.5, mha_16384), seeds=seeds, relative_sd=sd)
    found = judged(claim, records)
    assert found.verdict == verdict and found.boundary == NOISE
    assert "4096 -> 16384" in found.sentence  # not 1024, the shortest
    assert "Not judged" in found.sentence and "`rope+kv1`" in found.sentence  # MQA's 1.5 ms is not its bytes' time
    over = "seeds" if len(seeds) > 1 else "timing repeats"
    assert over in found.sentence and (found.cause == "") == (verdict == "agrees")
    assert found.headline.interval_text().endswith("over timing repeats") == (over == "timing repeats")


def test_not_run_without_steps():
    assert judged(claim, kv_records()).verdict == "not run"


def test_at_a_latency_growth_of_exactly_1_1_the_bytes_two_variants_say_a_verdict_at_most_2_5_percent_each_way():
    """The rule's size: two variants whose latency grows exactly 1.1x their bytes between two contexts, 9 repeats
    per step with a log sd of 0.05; "disagrees" Holm-controlled across the variants."""
    rng = np.random.default_rng(2)
    sims, n, sd, bytes_growth = 4000, 9, 0.05, 4.0
    contrasts = []
    for _ in range(2):
        short = repeats.log_medians(np.exp(sd * rng.standard_normal((sims, n))))
        long = repeats.log_medians(np.exp(math.log(1.1 * bytes_growth) + sd * rng.standard_normal((sims, n))))
        c, se, df = repeats.combine([1, -1], *(np.stack([long[i], short[i]], -1) for i in range(3)))
        contrasts.append((c - math.log(bytes_growth), se, df))
    parts = zip(*(repeats.verdicts(c, se, df, math.log(NOISE), above=False) for c, se, df in contrasts))
    words = np.array([str(all_hold(list(p))) for p in parts])
    assert (words == "disagrees").mean() <= 0.03 and (words == "agrees").mean() <= 0.03
