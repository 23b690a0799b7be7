"""Zoology's learning-rate sweep on MQAR: each variant keeps the rate that validation chose, never the scored one.

(What the MQAR claim makes of the chosen rates: claims/test_attention_solves_mqar.py.)"""

from suites.recall.learning_rates import chosen_rates, sweep_table
from suites.recall.suite import PROFILES
from suites.recall.tables import with_task
from tests.unit.suites.recall.claims._records import RATES, frame, rate_records


def test_a_variant_keeps_the_rate_validation_chose_not_the_one_that_scores_best():
    # at 3e-2 the scored sequences would look best, but validation prefers 1e-2: the choice never sees the scored ones
    df = frame(
        rate_records("alibi", 0.001, 0.10, 0.10),
        rate_records("alibi", 0.01, 0.95, 0.93),
        rate_records("alibi", 0.03, 0.90, 0.99),
    )
    data = with_task(df, every_rate=True)
    assert chosen_rates(data) == {"alibi": 0.01}
    kept = with_task(df)
    assert set(kept.lr.dropna()) == {0.01} and len(kept) == len(df) / 3


def test_a_tie_keeps_the_smaller_rate_and_a_diverged_rate_counts_zero():
    tie = frame(rate_records("rope", 0.003, 0.99, 0.99), rate_records("rope", 0.01, 0.99, 0.99))
    assert chosen_rates(with_task(tie, every_rate=True)) == {"rope": 0.003}
    # at 3e-2 seed 0 diverged and seeds 1, 2 score 0.9: a mean of 0.6 with the divergence at 0, under 1e-3's 0.7
    diverged = frame(
        rate_records("lstm", 0.03, 0.0, 0.0, seeds=(0,), status="diverged"),
        rate_records("lstm", 0.03, 0.9, 0.9, seeds=(1, 2)),
        rate_records("lstm", 0.001, 0.7, 0.7),
    )
    assert chosen_rates(with_task(diverged, every_rate=True)) == {"lstm": 0.001}


def test_records_without_a_sweep_pass_through_unchanged():
    df = frame(rate_records("rope", None, 0.99, 0.99))
    df["extra"] = df.extra.apply(lambda e: {k: v for k, v in e.items() if k != "lr"})
    assert len(with_task(df)) == len(df) and chosen_rates(with_task(df, every_rate=True)) == {}
    assert sweep_table(with_task(df, every_rate=True), ["rope"]) is None


def test_the_sweep_table_stars_the_kept_rate():
    df = frame(rate_records("none", 0.001, 0.30, 0.30), rate_records("none", 0.003, 0.92, 0.92))
    table = "\n".join(sweep_table(with_task(df, every_rate=True), ["none"]))
    assert "0.92 *" in table and "0.30 *" not in table


def test_only_the_standard_profile_sweeps_so_quick_jobs_keep_their_hashes():
    assert PROFILES["standard"].mqar_learning_rates == RATES
    assert "mqar_learning_rates" not in PROFILES["quick"].settings()
