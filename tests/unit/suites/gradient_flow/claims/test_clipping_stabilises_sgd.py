"""Clipping at large SGD learning rates: the runs diverged per seed, clipped against unclipped, paired over seeds."""

import pandas as pd
import pytest

from suites.gradient_flow.claims import clipping_stabilises_sgd as claim
from suites.gradient_flow.tables import diverged_by_seed
from tests.unit.suites.gradient_flow.claims._records import SETTINGS, evidence


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


def _clip_records(diverged):
    """clip_final_loss records: {(arm, seed): diverged runs of 3}; arm 'none' is unclipped."""
    rows = []
    for (arm, seed), bad in diverged.items():
        for i in range(3):
            rows.append(
                {
                    "metric": "clip_final_loss",
                    "seed": seed,
                    "x": 0.1 * (i + 1),
                    "extra": {"clipping": arm},
                    "status": "diverged" if i < bad else "ok",
                    "value": None if i < bad else 0.5,
                    "profile_settings": SETTINGS,
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    "clipped, unclipped, verdict",
    [
        ((0, 0, 1), (2, 3, 3), "agrees"),  # fewer divergences on every seed, paired interval clear of 0
        ((0, 0, 1), (2, 3, 2), "inconclusive"),  # fewer on every seed, but the paired interval [-4.5, +0.5] includes 0
        ((1, 1, 1), (1, 1, 1), "inconclusive"),  # no difference
        ((2, 0, 0), (0, 1, 1), "inconclusive"),  # the paired interval includes 0
        ((3, 3, 2), (0, 1, 0), "disagrees"),  # clipping diverges more on every seed
    ],
)
def test_the_clipping_verdict_pairs_divergences_over_seeds(clipped, unclipped, verdict):
    counts = diverged_by_seed(
        _clip_records(
            {**{("1", s): c for s, c in enumerate(clipped)}, **{("none", s): u for s, u in enumerate(unclipped)}}
        )
    )
    found = claim.judge(evidence(diverged=counts, learned_below=1.04))
    assert found.verdict == verdict
    assert (found.cause != "") == (verdict != "agrees")
    assert claim.judge(evidence(diverged={}, learned_below=1.04)).verdict == "not run"


def test_an_undecided_count_plans_seeds_from_the_declared_smallest_effect():
    # a count of runs with no bar and no null: it is the paired t test over seeds of the per-seed counts (its null:
    # clipping changes nothing), and an undecided one plans seeds for 2 runs per seed, never for its own estimate
    counts = diverged_by_seed(
        _clip_records(
            {**{("1", s): c for s, c in enumerate((0, 0, 1))}, **{("none", s): u for s, u in enumerate((2, 3, 2))}}
        )
    )
    found = claim.judge(evidence(diverged=counts, learned_below=1.04))
    assert found.verdict == "inconclusive" and found.p is not None and 0.05 < found.p < 1
    assert claim.CLAIM.smallest_effect == 2.0 and "the smallest effect of interest, 2 runs" in found.cause
