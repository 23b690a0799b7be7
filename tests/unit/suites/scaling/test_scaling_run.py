"""A tiny ladder end to end: records per rung, the report's laws, multipliers and per-rung verdicts, and a ladder at
one learning rate flagged as confounded."""

from __future__ import annotations

from harness.contract import suites
from tests.unit.suites.scaling.ladder import one_rate  # noqa: F401  (the fixture)


def test_each_variant_runs_at_every_rung_with_its_losses_along_training(one_rate):
    _, df = one_rate
    assert sorted(df.variant.unique()) == [f"{v}+rung{r}" for v in ("baseline", "gqa2") for r in range(3)]
    losses = df[(df.metric == "loss") & (df.variant == "baseline+rung2") & (df.seed == 0)]
    assert sorted(e["fraction"] for e in losses.extra) == [0.25, 0.5, 0.75, 1.0]
    assert list(losses.sort_values("x").x) == sorted(losses.x)  # FLOPs spent grow along training
    widths = df[df.metric == "train_flops"].groupby("variant").spec.first().map(lambda s: s["d_model"])
    assert widths["baseline+rung0"] == 16 and widths["baseline+rung2"] == 48


def test_the_report_shows_laws_multipliers_and_the_figures(one_rate, tmp_path):
    results, df = one_rate
    from bench.report.build import write_suite_report

    written = write_suite_report(suites.get("scaling"), df, tmp_path)
    text = written[0].read_text()
    assert "## Compute multipliers against the baseline" in text and "## Fitted laws" in text
    assert "rung 2" in text and "(extrapolated)" in text
    assert {p.name for p in written[1:]} == {"scaling_laws.png", "scaling_multipliers.png"}
