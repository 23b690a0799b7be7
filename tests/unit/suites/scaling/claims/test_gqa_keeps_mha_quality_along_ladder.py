"""GQA keeps MHA's quality along the ladder: every rung judged, the largest deciding, one learning rate flagged."""

from __future__ import annotations

import dataclasses

import pytest

from harness.claims import judge_all
from harness.contract import suites
from suites.scaling.tables import sweep_flags
from tests.unit.suites.scaling.ladder import one_rate  # noqa: F401  (the fixture)


def gqa(df):
    return next(f for f in judge_all(suites.get("scaling"), df) if f.claim.key == "gqa_keeps_mha_quality_along_ladder")


def test_a_ladder_at_one_learning_rate_is_flagged_as_confounded(one_rate):
    _, df = one_rate
    assert sweep_flags(df)[0].startswith("Confounded: every rung trained at one learning rate (0.01)")
    found = gqa(df)
    assert "Confounded" in found.sentence and "one learning rate" in found.cause
    assert "rung 0:" in found.sentence and "rung 2:" in found.sentence  # every rung judged
    assert found.along.startswith("By rung: 0 ") and found.along.count(",") == 2


def test_the_scoreboard_shows_the_verdict_at_every_rung_whatever_the_verdict(one_rate):
    from bench.index.scoreboard import row

    _, df = one_rate
    found = gqa(df)
    agreeing = dataclasses.replace(found, verdict="agrees", cause="")
    assert row(agreeing, df, "quick", None)["cause"] == found.along


def test_the_claim_s_margin_is_its_smallest_effect():
    from suites.common.char_margin import TOLERANCE_NATS
    from suites.scaling.claims import gqa_keeps_mha_quality_along_ladder as claim

    assert claim.CLAIM.smallest_effect == pytest.approx(TOLERANCE_NATS, abs=1e-4)
    assert claim.CLAIM.smallest_effect_source.startswith("the claim's margin")
