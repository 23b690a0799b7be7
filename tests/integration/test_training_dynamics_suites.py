"""training_stability and attention_scaling end to end at a tiny size: records, diverged runs, reports."""

from stored import load

from bench.cli import main
from tests.report_shape import check_reports


def test_training_stability_end_to_end_with_report(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    args = [
        "suite=training_stability",
        "set.depths=[1,3]",
        "set.steps=4",
        "set.d_model=16",
        "set.n_heads=2",
        "set.train_len=16",
        "set.batch_size=4",
        "set.warmups=[0,2]",
        "set.lrs=[0.001,10.0]",
        "set.probe_batches=1",
        "set.eval_tokens=256",
        "progress=false",
    ]
    assert main(["run", f"results_dir={results}", *args]) == 0
    records = load(results)
    assert {r["variant"] for r in records} == {"post_ln", "pre_ln"}
    assert {r["spec"]["norm_placement"] for r in records} == {"post", "pre"}
    grads = [r for r in records if r["metric"] == "ffn_grad_norm"]
    assert {(r["extra"]["depth"], r["x"]) for r in grads} == {(1, 1.0), (3, 1.0), (3, 2.0), (3, 3.0)}
    runs = [r for r in records if r["metric"] == "heldout_loss"]
    assert len(runs) == 2 * 2 * 2 * 2  # variants x depths x lrs x warm-ups
    # Adam at lr 10 without warm-up cannot end below its start: recorded as diverged, with the reason
    wild = [r for r in runs if r["x"] == 10.0 and r["extra"]["warmup"] == 0]
    assert wild and all(r["status"] == "diverged" and r["reason"] for r in wild)

    assert main(["report", "suite=training_stability", f"results_dir={results}", f"reports_dir={reports}"]) == 0
    text = (reports / "training_stability.md").read_text()
    check_reports(reports)  # tables of at most 8 columns, no nan or None
    for phrase in ("Xiong et al. 2020", "no warm-up", "warm-up 2", "diverged 1/1", "last / first", "(n=1)", "Warm-up:"):
        assert phrase in text, phrase
    assert (reports / "figures" / "training_stability.png").stat().st_size > 10_000


def test_attention_scaling_end_to_end_with_report(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    args = [
        "suite=attention_scaling",
        "set.n_queries=64",
        "set.d_ks=[8,32]",
        "set.train_d_k=32",
        "set.n_layers=1",
        "set.steps=4",
        "set.curve_every=2",
        "set.train_len=16",
        "set.batch_size=4",
        "set.eval_tokens=256",
        "set.warmup_steps=1",
        "progress=false",
    ]
    assert main(["run", f"results_dir={results}", *args]) == 0
    records = load(results)
    assert {r["variant"] for r in records} == {"scaled_dot", "dot", "additive+naive"}
    qk = {(r["variant"], r["x"]): r["value"] for r in records if r["metric"] == "qk_variance"}
    assert len(qk) == 6 and all(20 < v < 48 for (_, d), v in qk.items() if d == 32.0)
    assert all(r["spec"]["n_heads"] == 1 and r["spec"]["d_model"] == 32 for r in records)
    assert {r["x"] for r in records if r["metric"] == "train_loss_curve"} == {2.0, 4.0}
    assert all(r["status"] == "ok" for r in records)

    assert main(["report", "suite=attention_scaling", f"results_dir={results}", f"reports_dir={reports}"]) == 0
    text = (reports / "attention_scaling.md").read_text()
    check_reports(reports)  # tables of at most 8 columns, no nan or None
    for phrase in ("Vaswani et al. 2017", "var(q.k) (theory d_k)", "saturated queries", "this run", "(n=1)"):
        assert phrase in text, phrase
    for name in ("init", "training"):
        assert (reports / "figures" / f"attention_scaling_{name}.png").stat().st_size > 10_000
