"""Made-up recall records for its claims' tests: token accuracies by task, size and seed, and MQAR at several
learning rates."""

import pandas as pd

from suites.recall.claims._shared import prepare

SETTINGS = {"learned_accuracy": 0.9, "accuracy_margin": 0.1}
#: MQAR's sizes in the recurrences' tests: one pair, two (the fewest whose guess without keys is below 1), eight
SIZES = (1, 2, 8)


#: records' model specs (the ``spec`` column), from which the claims count each arm's state: an LSTM keeps
#: 2 x layers x width numbers, so these keep 4 and 308 (the standard profile's LSTM)
SMALL_LSTM = {"family": "recurrent", "cell": "lstm", "d_hidden": 2, "n_layers": 1, "vocab_size": 32}
LSTM = {"family": "recurrent", "cell": "lstm", "d_hidden": 77, "n_layers": 2, "vocab_size": 128}
#: the standard profile's Mamba-2 (width 54, 2 blocks): 15,240 numbers
MAMBA2 = {"family": "mixer", "mixer": "mamba2", "d_model": 54, "n_heads": 4, "n_layers": 2, "vocab_size": 128}


def record(variant, seed, size, value, settings, extra, metric="token_accuracy", status="ok", spec=None):
    return dict(
        metric=metric,
        variant=variant,
        seed=seed,
        x=float(size),
        value=value,
        status=status,
        profile_settings=settings,
        extra=extra,
        spec=spec,
    )


def rows(variant, task, accuracy_by_size, n, seeds=(0, 1, 2), jitter=0.01, spec=None, settings=SETTINGS):
    """One arm's token accuracies on ``task`` (size -> accuracy, spread by ``jitter`` over seeds), trained up to n;
    ``spec``: the model spec its records carry."""
    return [
        record(
            variant,
            seed,
            size,
            min(1.0, max(0.0, acc + jitter * (seed - 1))),
            settings,
            {"task": task, "train_max": n, "in_distribution": size <= n, "chance_token": 0.1},
            spec=spec,
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


def arm(variant, at_most, at_two=0.97, seeds=(0, 1, 2), jitter=0.01, spec=None):
    """MQAR records of one arm: 1.0 at one pair, ``at_two`` at 2 pairs, ``at_most`` at 8."""
    return rows(variant, "mqar", dict(zip(SIZES, (1.0, at_two, at_most))), SIZES[-1], seeds, jitter, spec)


RATES = (0.001, 0.003, 0.01, 0.03)
SWEPT = {
    "learned_accuracy": 0.9,
    "accuracy_margin": 0.1,
    "mqar_learning_rates": list(RATES),
    "steps": 3000,
    "batch_size": 32,
    "lr": 0.001,
}


def rate_records(variant, lr, validation, scored, seeds=(0, 1, 2), status="ok", sizes=(1, 2, 8), at_small=1.0):
    """One variant's MQAR records at one rate: validation accuracy at the most pairs, scored accuracy at every size
    (1 at one pair, ``at_small`` between, ``scored`` at the most)."""
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
            value = (1.0 if size == sizes[0] else at_small if size < sizes[-1] else scored) + 0.005 * (seed - 1)
            scored_extra = {**extra, "in_distribution": True, "chance_token": 1 / 64}
            out.append(record(variant, seed, size, min(1.0, value) if ok else None, SWEPT, scored_extra, status=status))
    return out
