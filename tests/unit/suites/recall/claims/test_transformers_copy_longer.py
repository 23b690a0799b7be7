"""Transformers copy longer: RoPE above every rival whose state the longest training string outgrows, paired over
seeds; the string must outgrow the rival's state (symbols against numbers), whatever RoPE scores."""

from suites.recall.claims import transformers_copy_longer as claim
from tests.unit.suites.recall.claims._records import LSTM, MAMBA2, SMALL_LSTM, frame, judged, rows


def test_it_is_a_finding_with_a_precondition_about_the_rivals_state_and_a_smallest_effect():
    assert claim.CLAIM.kind == "finding" and "outgrows the rival's state" in claim.CLAIM.precondition
    assert "learns copying" not in claim.CLAIM.precondition  # the attention arm's accuracy is judged, not assumed
    assert claim.CLAIM.smallest_effect == 0.05 and claim.CLAIM.smallest_effect_source


def test_a_string_that_fits_every_rivals_state_is_not_testable_whichever_way_the_gap_goes():
    # strings of 8 symbols against an LSTM of 308 numbers and Mamba-2's 15,240: nothing is outgrown
    for rope in (1.0, 0.3):
        found = judged(
            claim,
            frame(
                rows("rope", "copy", {4: 1.0, 8: rope}, 8),
                rows("lstm", "copy", {4: 0.9, 8: 0.5}, 8, spec=LSTM),
                rows("mamba2", "copy", {4: 1.0, 8: 0.9}, 8, spec=MAMBA2),
            ),
        )
        assert found.verdict == "not testable here", rope
        assert "outgrows none of the rivals' states (lstm 308 numbers, mamba2 15,240 numbers" in found.cause
        assert "n > 308 for lstm, n > 15,240 for mamba2" in found.cause
        assert found.headline.value == 8 and found.boundary == 308.0
        assert "Shown, not judged" in found.sentence


def test_copy_is_judged_against_each_rival_whose_state_the_string_outgrows():
    # an LSTM of 4 numbers copying strings of 8 symbols: outgrown; Mamba-2 is shown beside it, not judged
    good = frame(
        rows("rope", "copy", {4: 1.0, 8: 0.99, 16: 0.2}, 8),
        rows("lstm", "copy", {4: 0.9, 8: 0.5, 16: 0.1}, 8, spec=SMALL_LSTM),
        rows("mamba2", "copy", {4: 1.0, 8: 1.0}, 8, spec=MAMBA2),
    )
    found = judged(claim, good)
    assert found.verdict == "agrees" and found.headline.label.startswith("rope - lstm")
    assert "Shown, not judged (the string does not outgrow the rival's state): rope - mamba2" in found.sentence


def test_an_attention_arm_that_copies_worse_refutes_the_claim_where_the_string_outgrows_the_rival():
    # RoPE not learning copying is no longer a precondition: it is the claim's predicted outcome, judged
    bad = frame(rows("rope", "copy", {4: 0.6, 8: 0.4}, 8), rows("lstm", "copy", {4: 1.0, 8: 0.9}, 8, spec=SMALL_LSTM))
    found = judged(claim, bad)
    assert found.verdict == "disagrees" and "reversed" in found.cause


def test_no_margin_counts_a_gap_at_several_seeds_and_one_seed_gives_no_verdict():
    # a 0.15 gap, larger than the profile's accuracy_margin, whose per-seed gaps straddle 0
    noisy = frame(
        rows("rope", "copy", {8: 0.95}, 8, jitter=0.0), rows("lstm", "copy", {8: 0.8}, 8, jitter=0.3, spec=SMALL_LSTM)
    )
    found = judged(claim, noisy)
    assert found.verdict == "inconclusive" and "interval includes 0" in found.sentence
    assert "the smallest effect of interest, 0.05" in found.cause  # a seed plan from the declared effect
    one = frame(
        rows("rope", "copy", {8: 1.0}, 8, seeds=(0,)), rows("lstm", "copy", {8: 0.1}, 8, seeds=(0,), spec=SMALL_LSTM)
    )
    found = judged(claim, one)
    assert found.verdict == "inconclusive" and "1 seed: no verdict" in found.sentence


def test_missing_arms_or_specs_are_not_run():
    df = frame(rows("lstm", "mqar", {1: 0.5}, 1), rows("lstm", "copy", {4: 0.5}, 4))
    assert judged(claim, df).verdict == "not run"
    no_spec = frame(rows("rope", "copy", {8: 1.0}, 8), rows("lstm", "copy", {8: 0.1}, 8))
    assert judged(claim, no_spec).verdict == "not run"
