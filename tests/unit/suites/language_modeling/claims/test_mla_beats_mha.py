"""DeepSeek-V2's MLA: stronger than MHA, read at each training budget and decided at the longest."""

from suites.language_modeling.claims import mla_beats_mha as claim
from suites.language_modeling.claims._shared import prepare
from tests.unit.suites.language_modeling.claims._records import BASELINE, lm_records, times


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


def test_the_mla_verdict_is_read_at_each_budget_and_decided_at_the_longest():
    df = lm_records(
        {"baseline": BASELINE, "mla": times(1.04), "steps2000": times(0.8), "mla+steps2000": times(0.8 * 1.0)}
    )
    found = claim.judge(prepare(df))
    # +4% at 500 steps (a loss that counts) but no difference at 2000: the longest budget decides
    assert "500 steps `mla`" in found.sentence and "2000 steps `mla+steps2000`" in found.sentence
    assert found.headline.label.endswith("2000 steps") and found.verdict == "inconclusive"
    assert "by budget: 500 steps" in found.cause
    found = claim.judge(prepare(lm_records({"baseline": BASELINE, "mla": times(1.04)})))
    assert found.verdict == "disagrees" and found.headline.label.endswith("500 steps")


def test_mla_beats_mha_declares_its_smallest_effect():
    from suites.common.char_margin import TOLERANCE_PCT
    from suites.language_modeling.claims import mla_beats_mha

    assert mla_beats_mha.CLAIM.smallest_effect == TOLERANCE_PCT and mla_beats_mha.CLAIM.smallest_effect_source
