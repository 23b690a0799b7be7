"""BLEU during training: the points of a curve are evenly spaced and end at the last step, and a profile asking for
more points than steps is refused."""

import dataclasses

import pytest

from harness.errors import UsageError
from suites.translation.curve import checkpoint_steps
from suites.translation.suite import PROFILES


def test_checkpoints_are_evenly_spaced_and_end_at_the_last_step():
    assert checkpoint_steps(2000, 8) == [250, 500, 750, 1000, 1250, 1500, 1750, 2000]
    assert checkpoint_steps(10, 3) == [3, 7, 10]


def test_more_checkpoints_than_steps_is_refused_naming_the_key():
    quick = dataclasses.replace(PROFILES["quick"], bleu_checkpoints=5000)
    with pytest.raises(UsageError, match="set.bleu_checkpoints=5000"):
        quick.check()
