"""NTK-aware keeps ppl(4L) within 25% of plain RoPE's ppl(L), paired over seeds, its headroom chosen at 4L."""

from suites.position_extrapolation.claims import ntk_close as claim
from suites.position_extrapolation.claims._shared import prepare
from tests.unit.suites.position_extrapolation.claims._records import (
    NOTHING_HELPS,
    PUBLISHED_SHAPE,
    L,
    check_tuned_elsewhere,
    one_seed,
    records,
    unlearned,
)


def test_it_is_peng_et_als_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol and claim.CLAIM.source.startswith("Peng et al. 2023")


def test_the_published_shape_agrees_and_names_its_deciding_estimate_and_threshold():
    assert claim.judge(prepare(records(PUBLISHED_SHAPE))).verdict == "agrees"
    found = claim.judge(prepare(records(PUBLISHED_SHAPE, seeds=(0, 1, 2))))
    assert found.boundary == claim.CLOSE and found.headline.label == "rope+ntk ppl(4L) vs rope ppl(L)"


def test_one_seed_without_a_calibrated_margin_gives_no_verdict(monkeypatch):
    found = one_seed(monkeypatch, claim.judge)
    assert found.verdict == "inconclusive" and "1 seed: no verdict" in found.cause


def test_a_run_where_nothing_helps_disagrees():
    assert claim.judge(prepare(records(NOTHING_HELPS))).verdict == "disagrees"


def test_ntk_closeness_is_judged_by_the_interval_of_the_paired_change():
    wide = records(PUBLISHED_SHAPE, seeds=(0, 1, 2))
    ntk4 = (wide.variant == "rope+ntk") & (wide.metric == "perplexity") & (wide.x == 4.0 * L)
    wide.loc[ntk4, "value"] = [4.4, 6.0, 5.0]  # +5%, +43%, +19% above plain RoPE's ppl(L): mean 22%, interval past 25%
    ntk = claim.judge(prepare(wide))
    assert ntk.verdict == "inconclusive" and "25%" in ntk.cause


def test_records_tuned_at_another_length_than_the_judged_one_cannot_judge_it():
    check_tuned_elsewhere(claim.judge)


def test_no_verdict_when_plain_rope_did_not_learn():
    found = unlearned(claim.judge)
    assert found.verdict == "inconclusive" and "did not learn" in found.sentence


def test_ntk_close_declares_its_smallest_effect():
    from suites.position_extrapolation.claims import ntk_close

    c = ntk_close.CLAIM
    assert c.smallest_effect is not None and c.smallest_effect > 0 and c.smallest_effect_source
