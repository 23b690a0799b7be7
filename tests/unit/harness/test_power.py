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


def test_an_inconclusive_finding_plans_seeds_from_its_smallest_effect_of_interest_never_its_estimate():
    claim = Claim("k", "s", "n", "src", "pub", smallest_effect=1.0, smallest_effect_source="the claim's margin")
    d = paired("x", {0: 1.0, 1: 3.0, 2: -0.5}, {0: 0.0, 1: 0.0, 2: 0.0})
    f = finding(claim, "inconclusive", "s", [d.estimate], cause="its interval includes 0.")
    need = seeds_to_resolve(sd_of(d.estimate), 1.0)
    assert f.cause.startswith("its interval includes 0. At 3 seeds")
    assert f"the smallest effect of interest, 1 (the claim's margin), needs about {need} seeds" in f.cause
    # a different estimate with the same spread plans the same seeds: the plan does not read the estimate
    shifted = paired("x", {0: 0.5, 1: 2.5, 2: -1.0}, {0: 0.0, 1: 0.0, 2: 0.0})
    assert f"needs about {need} seeds" in finding(claim, "inconclusive", "s", [shifted.estimate]).cause
    bare = finding(Claim("k", "s", "n", "src", "pub"), "inconclusive", "s", [d.estimate])
    assert "no smallest effect of interest is declared" in bare.cause and "cannot be expected" not in bare.cause
    assert "more than 200 seeds" in sentence(d.estimate, 0.0, smallest_effect=0.01)
    assert sentence(paired("x", {0: 1.0, 1: 1.1, 2: 0.9}, {0: 0.0, 1: 0.0, 2: 0.0}).estimate) == ""  # it clears 0
    assert finding(claim, "agrees", "s", [d.estimate]).cause == ""


def test_a_relative_change_plans_on_its_log_scale():
    r = paired("ppl", {0: 4.4, 1: 4.0, 2: 4.2}, {0: 4.0, 1: 4.1, 2: 4.0}, relative=True)
    text = sentence(r.estimate, 0.0, smallest_effect=5.0)
    need = seeds_to_resolve(sd_of(r.estimate), math.log(1.05))
    assert f"needs about {need} seeds" in text
