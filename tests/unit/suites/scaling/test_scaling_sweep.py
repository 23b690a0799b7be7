"""The scaling suite's learning-rate sweep: a rung whose kept rate is an end of its sweep is marked not bracketed (in
the report's flags, the sweep table and the verdicts), and ``extend_edges`` tries the next rate past that end."""

from __future__ import annotations

import pandas as pd
import pytest

from suites.scaling.claims import mla_beats_mha_along_ladder as mla_claim
from suites.scaling.suite import beyond_edge
from suites.scaling.tables import bracket_command, edges, sweep_flags, sweep_table, unbracketed

RATES = (0.003, 0.01, 0.03)


def _ladder(kept: dict[tuple[str, int], list[float]], rates=RATES) -> pd.DataFrame:
    """Records of a ladder: (variant, rung) -> the rate each seed kept; the sweep's validation losses lowest there,
    the final loss of MLA 0.05 above the baseline's, and each job's wall time 60 s."""
    rows = []
    for (v, r), per_seed in kept.items():
        for seed, chosen in enumerate(per_seed):
            job = dict(
                variant=f"{v}+rung{r}",
                seed=seed,
                status="ok",
                profile="standard",
                job_hash=f"{v}{r}{seed}",
                wall_time_s=60.0,
                profile_settings={"learning_rates": list(rates)},
            )
            for lr in rates:
                loss = 2.0 + abs(lr - chosen)
                rows.append(job | dict(metric="validation_loss", x=lr, value=loss, extra={"chosen": lr == chosen}))
            final = 2.0 - 0.1 * r + (0.05 if v == "mla" else 0.0) + 0.01 * seed * (1 if v == "mla" else -1)
            rows.append(job | dict(metric="loss", x=1e11 * 4**r, value=final, extra={"fraction": 1.0}))
    return pd.DataFrame(rows)


LADDER = {
    ("baseline", 0): [0.03, 0.03, 0.03],
    ("mla", 0): [0.03, 0.01, 0.03],
    ("baseline", 1): [0.01, 0.01, 0.01],
    ("mla", 1): [0.01, 0.01, 0.003],
}


def test_a_rung_whose_kept_rate_is_an_end_of_its_sweep_is_not_bracketed():
    df = _ladder(LADDER)
    assert {(e.variant, e.rung, e.seed, e.side) for e in edges(df)} == {
        ("baseline", 0, 0, "top"),
        ("baseline", 0, 1, "top"),
        ("baseline", 0, 2, "top"),
        ("mla", 0, 0, "top"),
        ("mla", 0, 2, "top"),
        ("mla", 1, 2, "bottom"),
    }
    assert unbracketed(df) == {
        ("baseline", 0): "kept 0.03, the sweep's top, in 3 of 3 seeds",
        ("mla", 0): "kept 0.03, the sweep's top, in 2 of 3 seeds",
        ("mla", 1): "kept 0.003, the sweep's bottom, in 1 of 3 seeds",
    }
    table = sweep_table(df).set_index(["variant", "rung"]).bracketed
    assert table[("baseline", 1)] == "yes" and table[("mla", 1)].startswith("no: kept 0.003")


def test_the_report_names_the_unbracketed_rungs_and_the_run_that_would_bracket_them():
    (flag,) = sweep_flags(_ladder(LADDER))
    assert flag.startswith(
        "Not bracketed: the kept learning rate is an end of the sweep (0.003, 0.01, 0.03) for 3 of 4"
    )
    assert "baseline rung 0 (kept 0.03, the sweep's top, in 3 of 3 seeds)" in flag
    assert "`bench run suite=scaling profile=standard set.extend_edges=1`" in flag
    # 12 jobs of 60 s, and a third of a sweep more for each of the 6 runs at an end: 840 s
    assert "about 0.2 CPU-hours at one worker" in bracket_command(_ladder(LADDER))
    assert sweep_flags(_ladder({("baseline", 0): [0.01], ("mla", 0): [0.01]})) == []


def test_a_verdict_marks_each_rung_whose_sweep_is_not_bracketed():
    found = mla_claim.judge(_ladder(LADDER))
    assert (
        "rung 0: " in found.sentence
        and "not bracketed: baseline kept 0.03, the sweep's top, in 3 of 3 seeds; mla " in (found.sentence)
    )
    assert found.along.startswith("By rung: 0 disagrees (not bracketed), 1 disagrees (not bracketed)")
    assert "that rung is not bracketed: mla kept 0.003, the sweep's bottom, in 1 of 3 seeds" in found.cause


@pytest.mark.parametrize(
    "losses, nxt",
    [
        ({0.003: 2.1, 0.01: 2.0, 0.03: 1.9}, 0.09),  # best at the top: one sweep step (x3) above
        ({0.003: 1.8, 0.01: 2.0, 0.03: 2.1}, 0.0009),  # best at the bottom: one step below
        ({0.003: 2.1, 0.01: 1.9, 0.03: 2.0}, None),  # bracketed
        ({0.003: 2.1, 0.01: 2.0, 0.03: None}, None),  # the top diverged: bracketed from above
        ({0.1: 2.1, 0.5: 1.9}, None),  # the next rate would pass 1
        ({0.01: 2.0}, None),  # one rate: no sweep to extend
    ],
)
def test_extend_edges_tries_the_next_rate_past_the_end_the_kept_rate_sits_at(losses, nxt):
    got = beyond_edge(losses)
    assert got == (pytest.approx(nxt) if nxt is not None else None)
