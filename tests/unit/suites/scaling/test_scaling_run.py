"""A tiny ladder end to end: records per rung, the report's laws, multipliers and per-rung verdicts, and a ladder at
one learning rate flagged as confounded."""

from __future__ import annotations

import dataclasses

import pytest

from bench.cli import main
from harness.contract import suites
from harness.report import records_frame
from harness.store import ResultsStore
from suites.scaling.tables import sweep_flags
from suites.scaling.verdicts import findings

TINY = ["set.rungs=[16,32,48]", "set.tokens_per_parameter=1", "set.eval_tokens=512", "seeds=[0,1]", "progress=false"]


@pytest.fixture(scope="module")
def one_rate(tmp_path_factory):
    results = tmp_path_factory.mktemp("scaling")
    args = ["run", "suite=scaling", "variants=[baseline,gqa2]", "set.learning_rates=[0.01]", *TINY]
    assert main([*args, f"results_dir={results}"]) == 0
    return results, records_frame(ResultsStore(str(results)).load("scaling"))


def test_each_variant_runs_at_every_rung_with_its_losses_along_training(one_rate):
    _, df = one_rate
    assert sorted(df.variant.unique()) == [f"{v}+rung{r}" for v in ("baseline", "gqa2") for r in range(3)]
    losses = df[(df.metric == "loss") & (df.variant == "baseline+rung2") & (df.seed == 0)]
    assert sorted(e["fraction"] for e in losses.extra) == [0.25, 0.5, 0.75, 1.0]
    assert list(losses.sort_values("x").x) == sorted(losses.x)  # FLOPs spent grow along training
    widths = df[df.metric == "train_flops"].groupby("variant").spec.first().map(lambda s: s["d_model"])
    assert widths["baseline+rung0"] == 16 and widths["baseline+rung2"] == 48


def test_a_ladder_at_one_learning_rate_is_flagged_as_confounded(one_rate):
    _, df = one_rate
    assert sweep_flags(df)[0].startswith("Confounded: every rung trained at one learning rate (0.01)")
    gqa = next(f for f in findings(df) if f.claim.key == "gqa_keeps_mha_quality_along_ladder")
    assert "Confounded" in gqa.sentence and "one learning rate" in gqa.cause
    assert "rung 0:" in gqa.sentence and "rung 2:" in gqa.sentence  # every rung judged
    assert gqa.along.startswith("By rung: 0 ") and gqa.along.count(",") == 2


def test_the_scoreboard_shows_the_verdict_at_every_rung_whatever_the_verdict(one_rate):
    from bench.index.scoreboard import row

    _, df = one_rate
    gqa = next(f for f in findings(df) if f.claim.key == "gqa_keeps_mha_quality_along_ladder")
    agreeing = dataclasses.replace(gqa, verdict="agrees", cause="")
    assert row(agreeing, df, "quick", None)["cause"] == gqa.along


def test_the_report_shows_laws_multipliers_and_the_figures(one_rate, tmp_path):
    results, df = one_rate
    written = suites.get("scaling").report(df, tmp_path)
    text = written[0].read_text()
    assert "## Compute multipliers against the baseline" in text and "## Fitted laws" in text
    assert "rung 2" in text and "(extrapolated)" in text
    assert {p.name for p in written[1:]} == {"scaling_laws.png", "scaling_multipliers.png"}
