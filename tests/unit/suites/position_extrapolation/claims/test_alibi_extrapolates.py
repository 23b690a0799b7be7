"""ALiBi flat and sinusoidal rising past L (Press et al. 2022): three parts paired over seeds on ppl(8L)/ppl(L), from
models that learned, ALiBi comparable at L."""

import pytest

from suites.position_extrapolation.claims import alibi_extrapolates as claim
from tests.unit.suites.position_extrapolation.claims._records import ratios

BOTH = {"alibi", "sinusoidal"}


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


@pytest.mark.parametrize(
    "alibi, sinusoidal, comparable, verdict",
    [
        ([1.0, 1.02, 0.99], [3.0, 3.5, 3.2], BOTH, "agrees"),  # ALiBi flat, sinusoidal blows up
        ([1.5, 1.6, 1.55], [3.0, 3.5, 3.2], BOTH, "disagrees"),  # ALiBi rises past 15% over every seed's interval
        ([1.1, 1.1, 1.1], [1.05, 1.05, 1.05], BOTH, "disagrees"),  # sinusoidal flat, and no worse than ALiBi
        ([1.0, 1.02, 0.99], [1.1, 1.5, 1.2], BOTH, "inconclusive"),  # sinusoidal's rise: its interval spans 0 and 15%
        ([1.0, 1.05], [3.0, 3.5], BOTH, "inconclusive"),  # two seeds: ALiBi's interval reaches past 15%
        ([1.0, 1.02, 0.99], [3.0, 3.5, 3.2], {"sinusoidal"}, "inconclusive"),  # ALiBi not comparable at L
        ([1.0, 1.05], [], BOTH, "not run"),  # no sinusoidal results at L and 8L
    ],
)
def test_position_extrapolation_verdict(alibi, sinusoidal, comparable, verdict):
    assert claim.judge(ratios(alibi, sinusoidal, comparable, BOTH)).verdict == verdict


@pytest.mark.parametrize(
    "alibi, sinusoidal, verdict",
    [
        ([1.0], [3.0], "agrees"),  # one seed (make run): each part clears its threshold by its own calibrated margin
        ([1.0], [0.9], "disagrees"),  # ALiBi's ratio 11% above sinusoidal's, beyond that quantity's margin (about 2%)
        ([1.0], [1.3], "inconclusive"),  # sinusoidal +30%: within its margin (about 36%, t(0.975, 2) sd) of 15%
        ([1.0], [1.08], "inconclusive"),  # +8%: within sinusoidal's margin of the 15% threshold
        ([1.5], [3.0], "disagrees"),  # ALiBi itself 50% up, far beyond its margin (under 1%)
    ],
)
def test_one_seed_is_judged_by_each_quantitys_calibrated_margin_and_marked_indicative(alibi, sinusoidal, verdict):
    found = claim.judge(ratios(alibi, sinusoidal, BOTH, BOTH))
    assert found.verdict == verdict
    assert (found.note == "1 seed: indicative only") == (verdict != "inconclusive")


def test_one_seed_without_a_calibrated_margin_gives_no_verdict(monkeypatch):
    from suites.position_extrapolation import margins

    monkeypatch.setattr(margins, "MARGINS", {})
    found = claim.judge(ratios([1.0], [3.0], BOTH, BOTH))
    assert found.verdict == "inconclusive" and "1 seed: no verdict" in found.cause
    # three seeds need no margin: the intervals decide
    assert claim.judge(ratios([1.0, 1.02, 0.99], [3.0, 3.5, 3.2], BOTH, BOTH)).verdict == "agrees"


def test_the_extrapolation_headline_is_the_part_that_decides_with_its_threshold():
    found = claim.judge(ratios([1.0, 1.02, 0.99], [1.1, 1.5, 1.2], BOTH, BOTH))
    assert found.verdict == "inconclusive" and found.headline.label.startswith("sinusoidal")
    assert found.boundary == claim.FLAT


def test_extrapolation_verdict_needs_both_shapes_from_models_that_learned():
    flat, rises, mild = [1.0, 0.98, 0.99], [2.6, 3.1, 2.8], [1.1, 1.5, 1.2]
    both = {"alibi", "sinusoidal"}

    def said(by, comparable, learned):
        found = claim.judge(ratios(by.get("alibi"), by.get("sinusoidal"), comparable, learned))
        return found.verdict, found.sentence

    assert said({"alibi": flat, "sinusoidal": rises}, both, both)[0] == "agrees"
    assert "**agrees**" in said({"alibi": flat, "sinusoidal": rises}, both, both)[1]
    assert (
        "**agrees**" in said({"alibi": flat, "sinusoidal": rises}, {"alibi"}, both)[1]
    )  # a rising curve need not be comparable
    assert said({"alibi": flat, "sinusoidal": mild}, both, both)[0] == "inconclusive"
    assert "**disagrees**" in said({"alibi": [1.4, 1.45, 1.5], "sinusoidal": rises}, both, both)[1]
    assert said({"alibi": [1.1] * 3, "sinusoidal": [1.05] * 3}, both, both)[0] == "disagrees"
    verdict_, text = said({"alibi": flat, "sinusoidal": rises}, {"sinusoidal"}, both)
    assert verdict_ == "inconclusive" and "cannot be compared: `alibi`" in text
    assert (
        "cannot be compared: `sinusoidal` did not learn"
        in said({"alibi": flat, "sinusoidal": rises}, both, {"alibi"})[1]
    )
    assert said({"alibi": flat}, both, both)[0] == "not run"  # no sinusoidal results at all


def test_the_extrapolation_finding_carries_its_measurement():
    found = claim.judge(ratios([1.0, 0.98], [2.6, 3.1], BOTH, BOTH))
    alibi, sinusoidal = found.estimates[:2]
    assert alibi.label == "ALiBi ppl(8L)/ppl(L)" and alibi.value == pytest.approx(0.99) and alibi.seeds == 2
    assert alibi.low < 0.99 < alibi.high and found.seeds == 2
    assert found.claim.source.startswith("Press et al. 2022")
    assert found.verdict != "agrees" and found.cause  # two seeds: ALiBi's interval reaches past 15%


def test_the_sentence_names_the_variants_left_out():
    left_out = "1 of 3 left out of the verdicts: `none` (did not learn)."
    found = claim.judge(ratios([1.0, 1.02, 0.99], [3.0, 3.5, 3.2], BOTH, BOTH, left_out))
    assert found.verdict == "agrees" and found.sentence.endswith(" " + left_out)


def test_the_three_part_conjunction_holds_its_size_at_the_null():
    import numpy as np

    from harness.paired import all_hold
    from suites.position_extrapolation.claims._shared import change, from_one, lower, rises_by, stays_within

    # the least favourable null of "disagrees": ALiBi's and sinusoidal's ppl(8L)/ppl(L) both exactly FLAT% above 1
    # (each part on its boundary, ALiBi's ratio equal to sinusoidal's); any one part's "disagrees" counted alone
    # makes the conjunction say so up to three times as often
    draws = 3000
    whole = 0.05 + 3 * (0.05 * 0.95 / draws) ** 0.5
    rng = np.random.default_rng(15)
    words = []
    for _ in range(draws):
        alibi = dict(enumerate((1 + claim.FLAT / 100) * np.exp(rng.normal(0.0, 0.03, 3))))
        sinusoidal = dict(enumerate((1 + claim.FLAT / 100) * np.exp(rng.normal(0.0, 0.03, 3))))
        parts = [
            stays_within(from_one("a", alibi), claim.FLAT),
            rises_by(from_one("s", sinusoidal), claim.FLAT),
            lower(change("a vs s", alibi, sinusoidal)),
        ]
        words.append(all_hold(parts))
    agree, disagree = words.count("agrees") / draws, words.count("disagrees") / draws
    assert disagree <= whole and agree + disagree <= whole, (agree, disagree)


def test_the_smallest_effect_is_the_claims_tolerance():
    assert claim.CLAIM.smallest_effect == claim.FLAT and "FLAT" in claim.CLAIM.smallest_effect_source
