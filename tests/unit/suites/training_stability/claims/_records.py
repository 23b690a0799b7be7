"""Made-up training_stability records for its claims' tests."""

import math

import pandas as pd

from harness.claims import judge_all
from harness.contract import suites

UNIGRAM = 3.3


def stability_records(variant, depth, lr, warmup, heldout, status="ok"):
    """Made-up records of one training run per seed: ``heldout`` is one held-out loss per seed (None: diverged)."""
    rows = []
    for seed, loss in enumerate(heldout):
        common = dict(
            variant=variant,
            seed=seed,
            x=lr,
            extra={"depth": depth, "warmup": warmup},
            bigram_entropy=2.5,
            unigram_entropy=3.2,
            unigram_loss=UNIGRAM,
        )
        bad = loss is None
        rows += [
            dict(common, metric="heldout_loss", value=loss, status="diverged" if bad else status),
            dict(
                common,
                metric="final_train_loss",
                value=None if bad else loss - 0.05,
                status="diverged" if bad else status,
            ),
        ]
    return rows


def verdicts(rows):
    """claim key -> finding, as the suite judges the made-up records."""
    return {f.claim.key: f for f in judge_all(suites.get("training_stability"), pd.DataFrame(rows))}


LEARNED = [2.0, 2.02, 1.98]
STUCK = [3.29, 3.30, 3.28]  # at the unigram loss: collapsed


def near(value, spread=0.02):
    return [value, value + spread, value - spread]


def probe_records(slopes, layers=6):
    """w2_grad_norm records whose ln-norm rises by ``slopes[placement][init]`` per layer, plus a bump of 0.05 in the
    middle layers, symmetric, so that the least-squares slope over all layers is unchanged by it."""
    rows = []
    for placement, by_init in slopes.items():
        for init, slope in enumerate(by_init):
            for layer in range(1, layers + 1):
                value = math.exp(slope * layer + (0.05 if layer in (layers // 2, layers // 2 + 1) else 0.0))
                rows.append(
                    dict(
                        variant=f"{placement}_ln+w2_probe",
                        seed=init // 7,
                        metric="w2_grad_norm",
                        value=value,
                        x=float(layer),
                        status="ok",
                        spec={"norm_placement": placement},
                        extra={"init_seed": init, "depth": layers, "d_model": 512},
                        unigram_loss=UNIGRAM,
                    )
                )
    return rows


def fragile_cells():
    """Two cells: at depth 12 Post-LN collapses with and without warm-up in every seed (it tests not warm-up but
    Post-LN's fragility); at depth 2 it collapses only without warm-up. Pre-LN learns in both."""
    return (
        stability_records("post_ln", 12, 0.01, 0, STUCK)
        + stability_records("post_ln", 12, 0.01, 30, STUCK)
        + stability_records("pre_ln", 12, 0.01, 0, near(2.2))
        + stability_records("pre_ln", 12, 0.01, 30, LEARNED)
        + stability_records("post_ln", 2, 0.01, 0, STUCK)
        + stability_records("post_ln", 2, 0.01, 30, LEARNED)
        + stability_records("pre_ln", 2, 0.01, 0, near(2.05))
        + stability_records("pre_ln", 2, 0.01, 30, LEARNED)
    )
