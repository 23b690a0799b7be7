"""Post-LN is harder to train: its collapsed runs per seed against Pre-LN's, paired by seed."""

from tests.unit.suites.training_stability.claims._records import LEARNED, fragile_cells, stability_records, verdicts


def test_collapses_in_every_seed_agree_and_none_against_none_is_inconclusive():
    fragile = fragile_cells()
    train = verdicts(fragile)["post_ln_harder_to_train"]
    assert train.verdict == "agrees" and "[3, 3, 3] of 4" in train.sentence
    calm = (
        stability_records("post_ln", 2, 0.003, 0, [2.03, 1.99, 2.0])
        + stability_records("post_ln", 2, 0.003, 30, LEARNED)
        + stability_records("pre_ln", 2, 0.003, 0, [2.0, 2.03, 1.97])
        + stability_records("pre_ln", 2, 0.003, 30, LEARNED)
    )
    assert verdicts(calm)["post_ln_harder_to_train"].verdict == "inconclusive"  # no run collapsed: 0 against 0


def test_without_both_placements_it_is_not_run():
    assert verdicts(stability_records("post_ln", 2, 0.003, 0, LEARNED))["post_ln_harder_to_train"].verdict == "not run"
