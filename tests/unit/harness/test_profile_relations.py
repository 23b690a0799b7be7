"""Relations between profile settings: declared limits, heads dividing the width, and each family's schedule."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from harness.contract import Profile
from harness.errors import UsageError
from suites.common.profile_parts import ModelSize, heads_problems


@dataclass(frozen=True)
class Windowed(Profile):
    window: int = 8
    shown: int = 4

    limits = {"shown": ("window", "a map shows part of one window")}


@dataclass(frozen=True)
class WindowedSteps(Windowed, ModelSize):
    steps: int = 10
    every: int = 2

    limits = {"every": ("steps", "the curve would be empty")}


def test_a_limit_is_a_sentence_naming_both_settings_their_values_and_the_largest_value_allowed():
    assert Windowed().problems() == []
    assert Windowed(shown=8).problems() == []  # equal is allowed
    assert Windowed(shown=9).problems() == [
        "set.shown=9 exceeds set.window=8: a map shows part of one window; give at most 8."
    ]


def test_limits_merge_along_the_bases_and_check_stops_at_the_first():
    profile = WindowedSteps(shown=9, every=11)
    problems = profile.problems()
    assert [p.split("=")[0] for p in problems] == ["set.shown", "set.every"]
    with pytest.raises(UsageError, match="set.shown=9"):
        profile.check()


def test_heads_must_divide_the_width_and_the_sentence_lists_the_divisors():
    assert heads_problems(128, 16) == []
    assert heads_problems(12, 5) == ["set.n_heads=5 does not divide set.d_model=12; give one of 1, 2, 3, 4, 6, 12."]
    assert WindowedSteps(d_model=96, n_heads=5).problems() == [
        "set.n_heads=5 does not divide set.d_model=96; give one of 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 96."
    ]


def test_translation_trains_the_transformer_on_its_own_learning_rate_and_warm_up():
    from suites.translation.suite import PROFILES

    profile = replace(PROFILES["quick"], lr=1e-3, warmup_steps=10, transformer_lr=2e-3, transformer_warmup_steps=99)
    rnn, transformer = profile.train_settings_for(rnn=True), profile.train_settings_for(rnn=False)
    assert (rnn.lr, rnn.warmup_steps) == (1e-3, 10)
    assert (transformer.lr, transformer.warmup_steps) == (2e-3, 99)
    assert replace(transformer, lr=rnn.lr, warmup_steps=rnn.warmup_steps) == rnn  # nothing else differs
