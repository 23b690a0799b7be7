"""Vaswani et al.'s scorings: similar at small d_k, judged with sinusoidal positions (an equivalence within the
claim's TOLERANCE, their Table 3 step per character: 0.66%); the RoPE arm is shown, never decides."""

import pytest

from suites.language_modeling.claims import scorings_similar_small_dk as claim
from tests.unit.suites.language_modeling.claims._records import BASELINE, CLOSE, NOISY, evidence, lm, times


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


@pytest.mark.parametrize(
    "variants, verdict",
    [
        ({"sinusoidal": BASELINE, "sinusoidal+dot": BASELINE, "sinusoidal+additive+naive": CLOSE}, "agrees"),
        # the per-seed noise of NOISY (an interval of about ±1%) cannot show a change within ±0.66%
        ({"sinusoidal": BASELINE, "sinusoidal+dot": BASELINE, "sinusoidal+additive+naive": NOISY}, "inconclusive"),
        (
            {"sinusoidal": BASELINE, "sinusoidal+dot": NOISY, "sinusoidal+additive+naive": times(1.10)},
            "disagrees",
        ),  # additive 10% worse in every seed
        (
            {"sinusoidal": BASELINE, "sinusoidal+dot": times(1.02), "sinusoidal+additive+naive": times(1.02 * 1.004)},
            "agrees",
        ),  # +0.4% counts, inside 0.66%: alike
        (
            {"sinusoidal": BASELINE, "sinusoidal+dot": times(1.02), "sinusoidal+additive+naive": times(1.02 * 1.015)},
            "disagrees",
        ),  # +1.5%: a loss by the source's step
        # the pair is additive against the *unscaled* dot product: both 8-9% above the scaled one, alike to each other
        (
            {"sinusoidal": BASELINE, "sinusoidal+dot": times(1.08), "sinusoidal+additive+naive": times(1.085)},
            "agrees",
        ),
        (
            {"sinusoidal": BASELINE, "sinusoidal+dot": "failed", "sinusoidal+additive+naive": NOISY},
            "inconclusive",
        ),  # no perplexity to compare
        ({"sinusoidal": BASELINE, "sinusoidal+additive+naive": NOISY}, "not run"),  # no unscaled dot
        # the RoPE arm is shown but never decides: RoPE rotates q and k, which only a dot product undoes
        ({"dot": NOISY, "additive+naive": times(1.24)}, "not run"),
        (
            {
                "dot": NOISY,
                "additive+naive": NOISY,
                "sinusoidal": BASELINE,
                "sinusoidal+dot": NOISY,
                "sinusoidal+additive+naive": times(1.10),
            },
            "disagrees",
        ),
        (
            {
                "dot": times(1.10),
                "additive+naive": times(1.24),
                "sinusoidal": BASELINE,
                "sinusoidal+dot": BASELINE,
                "sinusoidal+additive+naive": CLOSE,
            },
            "agrees",
        ),
    ],
)
def test_the_verdict(variants, verdict):
    found = claim.judge(evidence(lm({"baseline": BASELINE, **variants})))
    assert found.verdict == verdict
    assert found.verdict in ("agrees", "not run") or found.cause  # every other verdict says why


def test_a_variant_that_did_not_learn_leaves_no_verdict():
    learned = lm({"baseline": BASELINE, "sinusoidal": BASELINE})
    everyone = lm({"baseline": BASELINE, "sinusoidal": BASELINE, "sinusoidal+dot": times(1.01)})
    assert claim.judge(evidence(learned, everyone)).verdict == "inconclusive"  # sinusoidal+dot ran, did not learn


def test_the_scorings_are_compared_within_their_arm():
    s = lm({"baseline": BASELINE, "dot": NOISY, "sinusoidal": times(1.2), "sinusoidal+dot": times(1.2 * 1.02)})
    assert s.reference["sinusoidal+dot"] == "sinusoidal" and s.reference["dot"] == "baseline"
    assert s.family["sinusoidal+dot"] == "scoring" and s.family["sinusoidal"] == "position"
    assert s.ppl_delta_pct("sinusoidal+dot") == pytest.approx(
        [2.0, 2.0, 2.0]
    )  # against sinusoidal, not the RoPE baseline


def test_scorings_similar_small_dk_declares_its_smallest_effect():
    from suites.common.char_margin import TOLERANCE_PCT
    from suites.language_modeling.claims import scorings_similar_small_dk

    assert (
        scorings_similar_small_dk.CLAIM.smallest_effect == TOLERANCE_PCT
        and scorings_similar_small_dk.CLAIM.smallest_effect_source
    )
