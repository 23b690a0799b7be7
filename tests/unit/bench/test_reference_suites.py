"""The suites `make reference` runs are the registry's (bench/reference.py): cost suites, then training suites."""

import pytest

import bench.reference
from bench.reference import ORDER, reference_suites
from harness.contract import TimesOnly, suites


def test_every_suite_runs_once_the_cost_suites_being_those_that_only_time():
    cost, training = reference_suites("cost"), reference_suites("training")
    assert sorted(cost + training) == suites.names()
    assert cost and all(isinstance(suites.get(name), TimesOnly) for name in cost)
    assert not any(isinstance(suites.get(name), TimesOnly) for name in training)


def test_the_reference_keeps_its_order():
    listed = reference_suites("cost") + reference_suites("training")
    assert set(ORDER) <= set(listed), "ORDER names a suite the registry no longer has"
    assert [name for name in listed if name in ORDER] == list(ORDER)
    assert listed.index("attention_heads") > listed.index("position_extrapolation")  # it reads those models


def test_a_suite_the_order_does_not_name_runs_after_the_others(monkeypatch):
    monkeypatch.setattr(bench.reference, "ORDER", tuple(name for name in ORDER if name != "recall"))
    assert reference_suites("training")[-1] == "recall"


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="cost, training"):
        reference_suites("trained")
