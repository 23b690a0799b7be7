"""Delimiter heads, stated per position encoding: a head counts when its delimiter share is at least 50% and twice
what even attention would put there."""

from suites.attention_heads.claims import delimiter_heads as claim
from suites.attention_heads.claims._shared import prepare
from tests.unit.suites.attention_heads.claims._records import FALLS, frame, judged, made_up_records


def test_it_is_a_finding_with_its_untested_rule_declared():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol and "every seed" in claim.CLAIM.untested_rule


def test_it_disagrees_without_specialists_and_leaves_out_models_that_did_not_learn():
    flat = (1.5, 1.5, 1.5)
    found = judged(made_up_records("rope", 0, False, flat), made_up_records("alibi", 0, True, FALLS, loss=3.0))
    assert found["delimiter_heads"].verdict == "disagrees" and found["delimiter_heads"].cause
    assert judged(made_up_records("rope", 0, True, flat, loss=3.0))["delimiter_heads"].verdict == "not run"


def test_a_delimiter_head_must_beat_twice_the_even_share():
    df = frame(made_up_records("rope", 0, True, (2.0, 1.5, 1.0)))
    df.loc[df.metric == "delimiter_base", "value"] = 0.45  # 0.8 < 2 x 0.45
    assert claim.judge(prepare(df)).verdict == "disagrees"
