"""Post-LN's W^2 gradient grows toward the output at initialisation; Pre-LN's stays flat (Xiong et al.'s Fig. 3)."""

import pytest

from tests.unit.suites.training_stability.claims._records import LEARNED, probe_records, stability_records, verdicts


def test_the_gradient_verdict_judges_post_ln_slope_over_initialisations_and_against_pre_ln():
    rising = [0.04 + 0.01 * (i % 3 - 1) for i in range(21)]
    level = [0.002 * (i % 5 - 2) for i in range(21)]
    found = verdicts(probe_records({"post": rising, "pre": level}))["post_ln_gradient_grows"]
    assert found.verdict == "agrees" and found.seeds == 21
    assert found.headline.value == pytest.approx(0.04, abs=1e-3)
    # Post-LN's slope straddles 0 over initialisations: undecided, and the headline is that slope
    straddle = [0.03 * (1 if i % 2 else -1) for i in range(21)]
    found = verdicts(probe_records({"post": straddle, "pre": level}))["post_ln_gradient_grows"]
    assert found.verdict == "inconclusive" and "Post-LN slope" in found.headline.label
    # Post-LN falls toward the output: the claim is refuted
    found = verdicts(probe_records({"post": [-x for x in rising], "pre": level}))["post_ln_gradient_grows"]
    assert found.verdict == "disagrees"
    # Pre-LN falls as steeply as Post-LN rises: "flat" fails, and the headline is the comparison that decides
    found = verdicts(probe_records({"post": rising, "pre": [-x - 0.02 for x in rising]}))["post_ln_gradient_grows"]
    assert found.verdict == "disagrees" and "Pre-LN |slope|" in found.headline.label


def test_without_the_probe_the_gradient_claim_is_not_run():
    rows = stability_records("post_ln", 2, 0.003, 0, LEARNED) + stability_records("pre_ln", 2, 0.003, 0, LEARNED)
    assert verdicts(rows)["post_ln_gradient_grows"].verdict == "not run"
