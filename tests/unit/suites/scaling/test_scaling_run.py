"""A tiny ladder end to end: records per rung, the report's multipliers, its gate on the law and its per-rung
verdicts."""

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
    assert "## Compute multipliers against the baseline, rung by rung" in text and "## Fitted laws" in text
    assert "rung 2" in text and "extrapolated" not in text and "10x" not in text  # nothing past the last rung
    # three rungs: no law, and the rungs that would fit one
    assert "**No law is fitted**: this ladder has 3 rungs spanning" in text and "A law would be fitted from" in text
    assert "scaling_laws.png" in {p.name for p in written[1:]}
