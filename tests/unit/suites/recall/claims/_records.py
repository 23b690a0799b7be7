"""Made-up recall records for its claims' tests: token accuracies by task, size and seed, and MQAR at several
learning rates."""

import pandas as pd

from suites.recall.claims._shared import prepare

SETTINGS = {"learned_accuracy": 0.9, "accuracy_margin": 0.1}
#: MQAR's sizes in the recurrences' tests: one pair, two (the fewest whose guess without keys is below 1), eight
SIZES = (1, 2, 8)


def record(variant, seed, size, value, settings, extra, metric="token_accuracy", status="ok"):
    return dict(
        metric=metric,
        variant=variant,
        seed=seed,
        x=float(size),
        value=value,
        status=status,
        profile_settings=settings,
        extra=extra,
    )


def rows(variant, task, accuracy_by_size, n, seeds=(0, 1, 2), jitter=0.01):
    """One arm's token accuracies on ``task`` (size -> accuracy, spread by ``jitter`` over seeds), trained up to n."""
    return [
        record(
            variant,
            seed,
            size,
            min(1.0, max(0.0, acc + jitter * (seed - 1))),
            SETTINGS,
            {"task": task, "train_max": n, "in_distribution": size <= n, "chance_token": 0.1},
        )
        for seed in seeds
        for size, acc in accuracy_by_size.items()
    ]


def frame(*parts):
    return pd.DataFrame([r for p in parts for r in p])


def judged(claim, df):
    """The claim module's finding on the records ``df``."""
    return claim.judge(prepare(df))


def mqar(*arms, sizes=(1, 2, 8)):
    """MQAR rows of (variant, {size: accuracy}) arms, trained on up to the largest size."""
    return frame(*(rows(v, "mqar", dict(zip(sizes, accs)), sizes[-1]) for v, accs in arms))


def arm(variant, at_most, at_two=0.97, seeds=(0, 1, 2), jitter=0.01):
    """MQAR records of one arm: 1.0 at one pair, ``at_two`` at 2 pairs, ``at_most`` at 8."""
    return rows(variant, "mqar", dict(zip(SIZES, (1.0, at_two, at_most))), SIZES[-1], seeds, jitter)


RATES = (0.001, 0.003, 0.01, 0.03)
SWEPT = {
    "learned_accuracy": 0.9,
    "accuracy_margin": 0.1,
    "mqar_learning_rates": list(RATES),
    "steps": 3000,
    "batch_size": 32,
    "lr": 0.001,
}


def rate_records(variant, lr, validation, scored, seeds=(0, 1, 2), status="ok", sizes=(1, 2, 8)):
    """One variant's MQAR records at one rate: validation accuracy at the most pairs, scored accuracy at every size."""
    out = []
    for seed in seeds:
        extra = {"task": "mqar", "train_max": sizes[-1], "lr": lr}
        ok = status == "ok"
        out.append(
            record(
                variant, seed, sizes[-1], validation if ok else None, SWEPT, extra, "validation_token_accuracy", status
            )
        )
        for size in sizes:
            value = (1.0 if size < sizes[-1] else scored) + 0.005 * (seed - 1)
            scored_extra = {**extra, "in_distribution": True, "chance_token": 1 / 64}
            out.append(record(variant, seed, size, min(1.0, value) if ok else None, SWEPT, scored_extra, status=status))
    return out
