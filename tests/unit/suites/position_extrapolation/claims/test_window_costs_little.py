"""What a sliding window costs at L: a one-sided verdict paired over seeds against rope trained alike, on the windows
whose stack reaches across the context, with a negative control the same rule must catch."""

from suites.position_extrapolation.claims import window_costs_little as claim
from tests.unit.suites.position_extrapolation.claims._records import evidence, windows

CONTROL, MARGIN, MARGIN_NATS = claim.CONTROL, claim.MARGIN, claim.MARGIN_NATS


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


def test_a_reaching_window_within_the_margin_costs_little_when_the_control_is_caught():
    found = claim.judge(evidence(windows([3.98, 4.05, 4.21])))
    assert found.verdict == "agrees" and "span 124 of L - 1 = 63" in found.sentence
    assert found.headline.label.startswith("rope+window32") and found.boundary == MARGIN
    assert f"{MARGIN_NATS:.4f} nats per character" in found.sentence and "own margin" in found.sentence


def test_the_negative_control_must_be_caught_for_costs_little_to_count():
    # W 4 costs nothing here
    found = claim.judge(evidence(windows([3.98, 4.05, 4.21], window4=(4.0, 4.12, 4.19))))
    assert found.verdict == "inconclusive" and "negative control" in found.cause
    assert found.headline.label.startswith(CONTROL)
    # W 4 below rope on every seed
    free = claim.judge(evidence(windows([3.98, 4.05, 4.21], window4=(3.99, 4.0, 4.15))))
    assert free.verdict == "inconclusive" and "more seeds cannot decide it" in free.cause
    assert "12 tokens the control reaches" in free.cause and "would resolve" not in free.cause
    assert "more seeds cannot" not in found.cause  # one seed of the control above 0: seeds may still catch it
    missing = claim.judge(evidence(windows([3.98, 4.05, 4.21], window4=None)))
    assert missing.verdict == "inconclusive" and "did not run" in missing.cause


def test_a_window_that_does_not_reach_across_is_shown_not_judged():
    found = claim.judge(evidence(windows([3.98, 4.05, 4.21], window16=(4.8, 4.9, 5.0))))  # W 16 costs +20%
    assert found.verdict == "agrees" and "span 60 of L - 1 = 63; shown, not judged" in found.sentence


def test_a_reaching_window_worse_by_more_than_the_margin_on_every_seed_costs_more():
    found = claim.judge(evidence(windows([4.4, 4.5, 4.65])))  # about +10% on each seed
    assert found.verdict == "disagrees" and f"+{MARGIN:g}%" in found.cause


def test_a_window_whose_interval_reaches_past_the_margin_is_inconclusive():
    found = claim.judge(evidence(windows([3.8, 4.4, 4.2])))  # -5%, +7%, 0%
    assert found.verdict == "inconclusive" and "reaches past" in found.cause


def test_no_reaching_window_or_no_rope_is_not_run():
    df = windows([4.0, 4.1, 4.2])
    assert claim.judge(evidence(df[df.variant == "rope"])).verdict == "not run"
    assert claim.judge(evidence(df[df.variant != "rope"])).verdict == "not run"
    assert claim.judge(evidence(df[df.variant != "rope+window32"])).verdict == "not run"


def test_window_costs_little_declares_its_smallest_effect():
    from suites.position_extrapolation.claims import window_costs_little

    c = window_costs_little.CLAIM
    assert c.smallest_effect is not None and c.smallest_effect > 0 and c.smallest_effect_source
