"""Sutskever et al.'s reversed source, judged on the length interaction the claim states: the reversed model's gain on
the longest bucket minus its gain on the shortest, paired over seeds, directional; a gain on long sentences that is
smaller than on short ones is not the finding. The encoder table beside it shows the share of attention's gain each
encoder recovers."""

import numpy as np

from harness.paired import paired
from suites.translation.claims import reversed_source_long_sentences as claim
from suites.translation.claims._shared import GAP, LengthEffect
from suites.translation.encoders import encoder_section
from tests.unit.suites.translation.claims._records import LABELS, REVERSAL_SPECS, evidence, with_test_bleu


def test_it_is_a_finding_judged_on_the_length_interaction():
    c = claim.CLAIM
    assert c.kind == "finding" and "length interaction" in c.protocol
    assert (
        c.smallest_effect == 2.0 and "this project's choice" in c.smallest_effect_source and "learn" in c.precondition
    )


def test_a_gain_that_grows_with_length_agrees_and_one_inside_the_noise_is_inconclusive():
    ok = with_test_bleu(
        {
            "lstm": [(20, 6), (21, 7), (19, 5)],
            "lstm+reversed": [(25, 12), (24, 14), (26, 11)],
            "lstm+bidirectional": [(22, 8), (22, 9), (21, 8)],
            "lstm+bahdanau+additive": [(30, 29), (31, 30), (29, 28)],
        }
    )
    found = claim.judge(evidence(ok, REVERSAL_SPECS, LABELS))
    # gains 5, 3, 7 on short and 6, 7, 6 on long: interaction 1, 4, -1 -> inside the noise
    assert found.verdict == "inconclusive" and "does not count" in found.cause
    assert abs(found.headline.value - 4 / 3) < 1e-9 and abs(found.estimates[1].value - 19 / 3) < 1e-9
    grows = with_test_bleu({"lstm": [(20, 6), (21, 7), (19, 5)], "lstm+reversed": [(21, 12), (22, 14), (20, 11)]})
    found = claim.judge(evidence(grows, REVERSAL_SPECS, LABELS))
    assert found.verdict == "agrees" and not found.cause and found.headline.value > 4
    section = "\n".join(encoder_section(ok, REVERSAL_SPECS, LABELS))
    assert "| lstm+reversed " in section and "28%" in section  # (12.33 - 6) / (29 - 6)


def test_a_gain_larger_on_short_sentences_disagrees_though_it_leads_on_long_ones():
    """The reference's pattern: reversal ahead on the longest bucket, further ahead on the shortest."""
    ok = with_test_bleu({"lstm": [(20, 13), (21, 14), (19, 13)], "lstm+reversed": [(30, 16), (31, 17), (30, 17)]})
    found = claim.judge(evidence(ok, REVERSAL_SPECS, LABELS))
    assert found.verdict == "disagrees" and "shrinks with length" in found.cause
    assert found.estimates[1].value > 0 and found.headline.value < 0


def test_a_source_order_that_did_not_learn_leaves_the_precondition_unmet():
    ok = with_test_bleu({"lstm": [(20, 6), (21, 7), (19, 5)], "lstm+reversed": [(21, 12), (22, 14), (20, 11)]})
    found = claim.judge(evidence(ok, REVERSAL_SPECS, LABELS, flagged={"lstm": "BLEU 1.0"}))
    assert found.verdict == "not testable here" and "`lstm` did not learn (BLEU 1.0)" in found.cause


def test_without_both_source_orders_the_reversal_claim_is_not_run():
    ok = with_test_bleu(
        {"lstm+reversed": [(20, 19), (21, 20), (19, 18)], "lstm+bahdanau+additive": [(22, 21), (23, 22), (21, 20)]}
    )
    assert claim.judge(evidence(ok, REVERSAL_SPECS, LABELS)).verdict == "not run"


def test_the_interaction_rule_holds_its_size_under_the_null():
    """Reversal gains 5 BLEU on every bucket (a main effect, no interaction), 5 seeds: the rule says "agrees" and
    "disagrees" each at most about 2.5% of the time (fails above 5.5% in all)."""
    rng = np.random.default_rng(5)
    draws, words, seeds = 2000, [], range(5)
    for _ in range(draws):
        drop = rng.normal(-6, 2, (2, 5)) + rng.normal(0, 3, 5)  # each arm's long - short, a shared seed effect
        inter = paired("i", dict(zip(seeds, drop[0])), dict(zip(seeds, drop[1])), "BLEU", bounds=GAP)
        words.append(claim.rule(LengthEffect(inter, inter, inter, "short", "long")))
    agree, disagree = words.count("agrees") / draws, words.count("disagrees") / draws
    assert agree + disagree <= 0.055 and agree <= 0.035 and disagree <= 0.035, (agree, disagree)
