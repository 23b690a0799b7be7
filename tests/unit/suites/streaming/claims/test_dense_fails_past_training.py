"""Dense attention fails past the training length: the full cache against recomputation from 2 L on, paired over the
trained models, failing beyond +10%."""

import math

import numpy as np
import pytest

from harness.paired import paired
from suites.streaming.claims import dense_fails_past_training as claim
from suites.streaming.claims._shared import fails
from tests.unit.suites.streaming.claims._records import SAME, judged, past_training, records


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


def test_dense_attention_fails_when_its_whole_interval_clears_the_margin():
    streamed = records(SAME, [0.01, 0.4, 0.6])
    found = judged(claim, streamed, past_training([30.0, 32.0, 31.0], [6.0, 6.1, 6.05]))
    assert found.verdict == "agrees" and found.boundary == claim.FAILS and found.seeds == 3
    found = judged(claim, streamed, past_training([6.1, 6.2, 6.15], [6.0, 6.1, 6.05]))
    assert found.verdict == "disagrees" and f"within +{claim.FAILS:g}%" in found.sentence and found.cause
    found = judged(claim, streamed, past_training([6.0, 9.0, 5.5], [6.0, 6.1, 6.05]))
    assert found.verdict == "inconclusive" and "not a failure that clears" in found.cause


def test_without_streams_or_both_policies_it_is_not_run():
    assert judged(claim, past_training([30.0, 32.0, 31.0], [6.0, 6.1, 6.05])).verdict == "not run"  # nothing streamed
    assert judged(claim, records(SAME, [0.01, 0.4, 0.6])).verdict == "not run"  # no dense records


def test_the_failure_is_a_one_sided_test_of_its_size_at_the_margin():
    # dense attention exactly +10% above recomputation in truth: "agrees" and "disagrees" at most 2.5% each
    rng = np.random.default_rng(10)
    draws, words = 2000, []
    for _ in range(draws):
        recompute = {s: 6.0 * math.exp(rng.normal(0, 0.05)) for s in range(3)}
        full = {s: p * 1.1 * math.exp(rng.normal(0, 0.03)) for s, p in recompute.items()}
        words.append(fails(paired("full vs recompute", full, recompute, relative=True), claim.FAILS))
    branch = 0.025 + 3 * (0.025 * 0.975 / draws) ** 0.5
    agree, disagree = words.count("agrees") / draws, words.count("disagrees") / draws
    assert agree <= branch and disagree <= branch, (agree, disagree)
    assert words[0].p_for + words[0].p_against == pytest.approx(1.0)  # it carries its one-sided p-values


def test_it_declares_its_smallest_effect():
    assert claim.CLAIM.smallest_effect == claim.FAILS and claim.CLAIM.smallest_effect_source
