"""Zoology's learning-rate sweep on MQAR: each variant keeps the rate that validation chose, never the scored one."""

import pandas as pd

from suites.recall.learning_rates import chosen_rates, sweep_table
from suites.recall.suite import PROFILES
from suites.recall.tables import with_task
from suites.recall.verdicts import findings

RATES = (0.001, 0.003, 0.01, 0.03)
SETTINGS = {
    "learned_accuracy": 0.9,
    "accuracy_margin": 0.1,
    "mqar_learning_rates": list(RATES),
    "steps": 3000,
    "batch_size": 32,
    "lr": 0.001,
}


def _records(variant, lr, validation, scored, seeds=(0, 1, 2), status="ok", sizes=(1, 2, 8)):
    """One variant's MQAR records at one rate: validation accuracy at the most pairs, scored accuracy at every size."""
    out = []
    for seed in seeds:
        extra = {"task": "mqar", "train_max": sizes[-1], "lr": lr}
        out.append(
            dict(
                metric="validation_token_accuracy",
                variant=variant,
                seed=seed,
                x=float(sizes[-1]),
                value=validation if status == "ok" else None,
                status=status,
                profile_settings=SETTINGS,
                extra=extra,
            )
        )
        for size in sizes:
            value = (1.0 if size < sizes[-1] else scored) + 0.005 * (seed - 1)
            out.append(
                dict(
                    metric="token_accuracy",
                    variant=variant,
                    seed=seed,
                    x=float(size),
                    value=min(1.0, value) if status == "ok" else None,
                    status=status,
                    profile_settings=SETTINGS,
                    extra={**extra, "in_distribution": True, "chance_token": 1 / 64},
                )
            )
    return out


def _frame(*parts):
    return pd.DataFrame([r for p in parts for r in p])


def test_a_variant_keeps_the_rate_validation_chose_not_the_one_that_scores_best():
    # at 3e-2 the scored sequences would look best, but validation prefers 1e-2: the choice never sees the scored ones
    df = _frame(
        _records("alibi", 0.001, 0.10, 0.10), _records("alibi", 0.01, 0.95, 0.93), _records("alibi", 0.03, 0.90, 0.99)
    )
    data = with_task(df, every_rate=True)
    assert chosen_rates(data) == {"alibi": 0.01}
    kept = with_task(df)
    assert set(kept.lr.dropna()) == {0.01} and len(kept) == len(df) / 3


def test_a_tie_keeps_the_smaller_rate_and_a_diverged_rate_counts_zero():
    tie = _frame(_records("rope", 0.003, 0.99, 0.99), _records("rope", 0.01, 0.99, 0.99))
    assert chosen_rates(with_task(tie, every_rate=True)) == {"rope": 0.003}
    # at 3e-2 seed 0 diverged and seeds 1, 2 score 0.9: a mean of 0.6 with the divergence at 0, under 1e-3's 0.7
    diverged = _frame(
        _records("lstm", 0.03, 0.0, 0.0, seeds=(0,), status="diverged"),
        _records("lstm", 0.03, 0.9, 0.9, seeds=(1, 2)),
        _records("lstm", 0.001, 0.7, 0.7),
    )
    assert chosen_rates(with_task(diverged, every_rate=True)) == {"lstm": 0.001}


def test_records_without_a_sweep_pass_through_unchanged():
    df = _frame(_records("rope", None, 0.99, 0.99))
    df["extra"] = df.extra.apply(lambda e: {k: v for k, v in e.items() if k != "lr"})
    assert len(with_task(df)) == len(df) and chosen_rates(with_task(df, every_rate=True)) == {}
    assert sweep_table(with_task(df, every_rate=True), ["rope"]) == []


def test_the_sweep_table_stars_the_kept_rate():
    df = _frame(_records("none", 0.001, 0.30, 0.30), _records("none", 0.003, 0.92, 0.92))
    table = "\n".join(sweep_table(with_task(df, every_rate=True), ["none"]))
    assert "0.92 *" in table and "0.30 *" not in table


def test_the_mqar_verdict_reads_each_variant_at_its_chosen_rate():
    # none learns MQAR only at 1e-2; judged at 1e-3 it would leave the claim untestable
    arms = [_records(v, 0.001, 0.99, 0.99) for v in ("t5_bias", "alibi", "rope")]
    arms += [_records("none", 0.001, 0.12, 0.12), _records("none", 0.01, 0.97, 0.97)]
    df = _frame(*arms, _records("lstm", 0.001, 0.1, 0.1))
    found = {f.claim.key: f for f in findings(df)}["attention_solves_mqar"]
    assert found.verdict != "not testable here"
    assert "Each variant at the learning rate that scored best on validation sequences: none 1e-2" in found.sentence


def test_after_the_full_sweep_what_would_test_mqar_is_longer_training():
    arms = [
        _records(v, lr, 0.99 if v != "alibi" else 0.2, 0.99 if v != "alibi" else 0.2)
        for v in ("none", "alibi", "rope")
        for lr in RATES
    ]
    found = {f.claim.key: f for f in findings(_frame(*arms, _records("lstm", 0.001, 0.1, 0.1)))}[
        "attention_solves_mqar"
    ]
    assert found.verdict == "not testable here"
    assert "training as long as Zoology's" in found.sentence and "3000 of 32 here" in found.sentence


def test_only_the_standard_profile_sweeps_so_quick_jobs_keep_their_hashes():
    assert PROFILES["standard"].mqar_learning_rates == RATES
    assert "mqar_learning_rates" not in PROFILES["quick"].settings()
