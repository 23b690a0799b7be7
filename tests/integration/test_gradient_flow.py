"""The gradient_flow suite end to end at a tiny size: records, statuses and the report."""

import json

from bench.cli import main
from tests.report_shape import check_reports

TINY = [
    "suite=gradient_flow",
    "set.lags=[3,6]",
    "set.steps=3",
    "set.clip_steps=3",
    "set.clip_lrs=[0.1]",
    "set.radii=[0.5,1.5]",
    "set.d_hidden=8",
    "set.d_model=16",
    "set.n_heads=2",
    "set.probe_batch=4",
    "set.eval_sequences=16",
    "set.batch_size=4",
    "set.warmup_steps=1",
    "progress=false",
]


def test_gradient_flow_end_to_end_with_report(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    assert main(["run", f"results_dir={results}", "variants=[rnn,lstm,transformer]", *TINY]) == 0
    records = [json.loads(line) for p in results.glob("*/*.jsonl") for line in p.read_text().splitlines()]
    by_variant = {}
    for r in records:
        by_variant.setdefault(r["variant"], []).append(r)
    assert set(by_variant) == {"rnn", "lstm", "transformer"}
    assert by_variant["lstm"][0]["spec"]["family"] == "recurrent"
    flow = [r for r in by_variant["rnn"] if r["metric"] == "hidden_grad_norm"]
    assert {r["extra"]["phase"] for r in flow} == {"init", "trained"}
    assert {r["x"] for r in flow} == {float(d) for d in range(7)}  # lag 6 + 1 symbol: distances 0..6
    sweep = [r for r in by_variant["rnn"] if r["metric"] == "radius_hidden_grad_norm"]
    assert {r["extra"]["radius"] for r in sweep} == {0.5, 1.5}
    assert not [r for r in by_variant["lstm"] if r["metric"] == "radius_hidden_grad_norm"]  # only Elman RNNs
    accuracy = [r for r in records if r["metric"] == "copy_accuracy"]
    assert {r["x"] for r in accuracy} == {3.0, 6.0} and all(
        0 <= r["value"] <= 1 for r in accuracy if r["status"] == "ok"
    )
    clip = [r for r in records if r["metric"] == "clip_final_loss"]
    assert {(r["variant"], r["extra"]["clipping"]) for r in clip} == {
        (v, c) for v in ("rnn", "lstm", "transformer") for c in ("1", "none")
    }

    assert main(["report", "suite=gradient_flow", f"results_dir={results}", f"reports_dir={reports}"]) == 0
    text = (reports / "gradient_flow.md").read_text()
    check_reports(reports)  # tables of at most 8 columns, no nan or None
    for phrase in (
        "Pascanu, Mikolov & Bengio 2013",
        "spectral radius",
        "longest lag learned",
        "no clipping",
        "This run",
        "(n=1)",
        "random distractors",
        "chrono-initialised",
        "every shorter lag learned too",
    ):
        assert phrase in text, phrase
    for name in ("distance", "radius", "lags"):
        assert (reports / "figures" / f"gradient_flow_{name}.png").stat().st_size > 10_000


def test_each_lag_keeps_the_rate_its_validation_recall_chose(tmp_path):
    """With set.lag_lrs each lag trains at every rate until one recalls all validation sequences, and records the
    kept rate, each tried rate's validation accuracy and the held-out accuracy of the kept model."""
    results = tmp_path / "results"
    rates = "set.lag_lrs=[1e-9,3e-3]"  # 1e-9 barely moves the weights: the sweep must go on to 3e-3
    assert main(["run", f"results_dir={results}", "variants=[rnn]", rates, *TINY]) == 0
    records = [json.loads(line) for p in results.glob("*/*.jsonl") for line in p.read_text().splitlines()]
    accuracy = [r for r in records if r["metric"] == "copy_accuracy" and r["status"] == "ok"]
    assert {r["x"] for r in accuracy} == {3.0, 6.0}
    for r in accuracy:
        tried = r["extra"]["validation_accuracy"]
        assert set(tried) <= {"1e-09", "0.003"} and "1e-09" in tried
        kept = max((k for k in ("1e-09", "0.003") if k in tried), key=tried.get)  # ties keep the earlier rate
        assert r["extra"]["lr"] == float(kept)
        assert all(0 <= v <= 1 for v in tried.values())
    # one model per lag keeps its singular values: init, and trained when it did not diverge
    inits = [r for r in records if r["metric"] == "recurrent_sigma_max" and r["extra"]["phase"] == "init"]
    assert sorted(r["x"] for r in inits) == [3.0, 6.0]
    reports = tmp_path / "reports"
    assert main(["report", "suite=gradient_flow", f"results_dir={results}", f"reports_dir={reports}"]) == 0
    text = (reports / "gradient_flow.md").read_text()
    assert "## The learning rate each lag kept" in text and "grid-search each model's rate" in text
    check_reports(reports)


def test_a_recurrent_preset_in_a_transformer_suite_is_a_usage_error(tmp_path, capsys):
    assert (
        main(["run", f"results_dir={tmp_path}", "suite=position_extrapolation", "variants=[gru]", "dry_run=true"]) == 2
    )
    assert "which a TransformerSpec does not have" in capsys.readouterr().err
