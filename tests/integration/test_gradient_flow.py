"""The gradient_flow suite end to end at a tiny size: records, statuses and the report."""

from stored import ran, report

from bench.cli import main

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
    records = ran(results, "variants=[rnn,lstm,transformer]", *TINY)
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

    report(
        results,
        reports,
        "gradient_flow",
        "suite=gradient_flow",
        phrases=(
            "Pascanu, Mikolov & Bengio 2013",
            "spectral radius",
            "longest lag learned",
            "no clipping",
            "This run",
            "(n=1)",
            "random distractors",
            "chrono-initialised",
            "every shorter lag learned too",
        ),
        figures=[f"gradient_flow_{name}.png" for name in ("distance", "radius", "lags")],
    )


def test_each_lag_keeps_the_rate_its_validation_recall_chose(tmp_path):
    """With set.lag_lrs each lag trains at every rate until one recalls all validation sequences, and records the
    kept rate, each tried rate's validation accuracy and the held-out accuracy of the kept model."""
    results = tmp_path / "results"
    rates = "set.lag_lrs=[1e-9,3e-3]"  # 1e-9 barely moves the weights: the sweep must go on to 3e-3
    records = ran(results, "variants=[rnn]", rates, *TINY)
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
    phrases = ("## The learning rate each lag kept", "grid-search each model's rate")
    report(results, tmp_path / "reports", "gradient_flow", "suite=gradient_flow", phrases=phrases)


def test_a_recurrent_preset_in_a_transformer_suite_is_a_usage_error(tmp_path, capsys):
    assert (
        main(["run", f"results_dir={tmp_path}", "suite=position_extrapolation", "variants=[gru]", "dry_run=true"]) == 2
    )
    assert "which a TransformerSpec does not have" in capsys.readouterr().err
