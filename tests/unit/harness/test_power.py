"""Planning seeds (harness/power.py): the minimum detectable effect and the seeds that would resolve a comparison."""

import math

import pytest

from harness.findings import Claim, finding
from harness.paired import paired
from harness.power import MOST_SEEDS, mde, sd_of, seeds_to_resolve, sentence


def test_the_sd_behind_an_interval_is_recovered_on_the_tests_scale():
    d = paired("x", {0: 1.0, 1: 2.0, 2: 3.5}, {0: 0.0, 1: 0.0, 2: 0.0})
    diffs = [1.0, 2.0, 3.5]
    mean = sum(diffs) / 3
    sd = math.sqrt(sum((v - mean) ** 2 for v in diffs) / 2)
    assert sd_of(d.estimate) == pytest.approx(sd)
    r = paired("ppl", {0: 4.4, 1: 4.0, 2: 4.2}, {0: 4.0, 1: 4.1, 2: 4.0}, relative=True)
    logs = [math.log(4.4 / 4.0), math.log(4.0 / 4.1), math.log(4.2 / 4.0)]
    m = sum(logs) / 3
    assert sd_of(r.estimate) == pytest.approx(math.sqrt(sum((v - m) ** 2 for v in logs) / 2))


def test_more_seeds_detect_smaller_effects_and_a_null_estimate_needs_too_many():
    assert mde(1.0, 10) < mde(1.0, 3) < mde(1.0, 2)
    need = seeds_to_resolve(1.0, 1.0)
    assert need is not None and mde(1.0, need) <= 1.0 < mde(1.0, need - 1)
    assert seeds_to_resolve(1.0, 0.01) is None  # an effect 1% of the spread: beyond MOST_SEEDS
    assert MOST_SEEDS >= 100


def test_an_inconclusive_finding_says_how_many_seeds_would_decide_it():
    claim = Claim("k", "s", "n", "src", "pub")
    d = paired("x", {0: 1.0, 1: 3.0, 2: -0.5}, {0: 0.0, 1: 0.0, 2: 0.0})
    f = finding(claim, "inconclusive", "s", [d.estimate], cause="its interval includes 0.")
    assert "seeds would resolve it" in f.cause and f.cause.startswith("its interval includes 0. At 3 seeds")
    null = paired("x", {0: 1.0, 1: -1.0, 2: 0.01}, {0: 0.0, 1: 0.0, 2: 0.0})
    assert "cannot be expected to decide" in finding(claim, "inconclusive", "s", [null.estimate]).cause
    assert sentence(paired("x", {0: 1.0, 1: 1.1, 2: 0.9}, {0: 0.0, 1: 0.0, 2: 0.0}).estimate) == ""  # it clears 0
    assert finding(claim, "agrees", "s", [d.estimate]).cause == ""
