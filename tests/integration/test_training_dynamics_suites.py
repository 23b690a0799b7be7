"""training_stability and attention_scaling end to end at a tiny size: records, diverged runs, reports."""

from stored import ran, report

STABILITY = [
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
SCALING = [
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


def test_training_stability_end_to_end_with_report(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    records = ran(results, *STABILITY)
    assert {r["variant"] for r in records} == {"post_ln", "pre_ln"}
    assert {r["spec"]["norm_placement"] for r in records} == {"post", "pre"}
    grads = [r for r in records if r["metric"] == "ffn_grad_norm"]
    assert {(r["extra"]["depth"], r["x"]) for r in grads} == {(1, 1.0), (3, 1.0), (3, 2.0), (3, 3.0)}
    runs = [r for r in records if r["metric"] == "heldout_loss"]
    assert len(runs) == 2 * 2 * 2 * 2  # variants x depths x lrs x warm-ups
    # Adam at lr 10 without warm-up cannot end below its start: recorded as diverged, with the reason
    wild = [r for r in runs if r["x"] == 10.0 and r["extra"]["warmup"] == 0]
    assert wild and all(r["status"] == "diverged" and r["reason"] for r in wild)

    report(
        results,
        reports,
        "training_stability",
        "suite=training_stability",
        phrases=("Xiong et al. 2020", "no warm-up", "warm-up 2", "diverged 1/1", "last / first", "(n=1)", "Warm-up:"),
        figures=("training_stability.png",),
    )


def test_attention_scaling_end_to_end_with_report(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    records = ran(results, *SCALING)
    assert {r["variant"] for r in records} == {"scaled_dot", "dot", "additive+naive"}
    qk = {(r["variant"], r["x"]): r["value"] for r in records if r["metric"] == "qk_variance"}
    assert len(qk) == 6 and all(20 < v < 48 for (_, d), v in qk.items() if d == 32.0)
    assert all(r["spec"]["n_heads"] == 1 and r["spec"]["d_model"] == 32 for r in records)
    assert {r["x"] for r in records if r["metric"] == "train_loss_curve"} == {2.0, 4.0}
    assert all(r["status"] == "ok" for r in records)

    report(
        results,
        reports,
        "attention_scaling",
        "suite=attention_scaling",
        phrases=("Vaswani et al. 2017", "var(q.k) (theory d_k)", "saturated queries", "this run", "(n=1)"),
        figures=("attention_scaling_init.png", "attention_scaling_training.png"),
    )
