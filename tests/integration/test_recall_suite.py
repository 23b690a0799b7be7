"""The recall suite end to end at a tiny size: every family trains on every task, records carry chance, the report."""

from stored import ran, report

from bench.cli import main

TINY = [
    "suite=recall",
    "set.steps=3",
    "set.warmup_steps=1",
    "set.eval_sequences=8",
    "set.batch_size=4",
    "set.d_model=16",
    "set.n_heads=2",
    "set.mqar_kv=[1,2,4]",
    "set.copy_len=4",
    "set.reverse_len=4",
    "set.addition_len=2",
    "set.length_factors=[0.5,1,2]",
    "set.copy_alphabet=7",
    "progress=false",
]
VARIANTS = ["rope", "alibi", "lstm", "mingru", "linear_attention"]


def test_recall_end_to_end_with_report(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    records = ran(results, f"variants=[{','.join(VARIANTS)}]", *TINY)
    assert {r["variant"] for r in records} == set(VARIANTS)
    families = {r["variant"]: r["spec"].get("family") for r in records}
    assert families["lstm"] == "recurrent" and families["mingru"] == families["linear_attention"] == "mixer"
    accuracy = [r for r in records if r["metric"] == "token_accuracy"]
    assert {r["extra"]["task"] for r in accuracy} == {"mqar", "copy", "reverse", "addition"}
    copy = {r["x"]: r["extra"] for r in accuracy if r["extra"]["task"] == "copy" and r["variant"] == "rope"}
    assert sorted(copy) == [2.0, 4.0, 8.0] and copy[8.0]["in_distribution"] is False and copy[4.0]["in_distribution"]
    assert all(abs(e["chance_token"] - 1 / 7) < 1e-12 for e in copy.values())  # set.copy_alphabet=7
    assert all(0 <= r["value"] <= 1 for r in accuracy)
    # matched parameters: every family within 5% of the Transformer's count, even at this tiny size
    counts = {r["variant"]: r["parameters"] for r in records}
    assert all(abs(c / counts["rope"] - 1) < 0.05 for c in counts.values()), counts

    report(
        results,
        reports,
        "recall",
        "suite=recall",
        phrases=(
            "Arora et al. 2023",
            "Jelassi et al. 2024",
            "Kazemnejad et al. 2023",
            "Models and budgets",
            "key-value pairs",
            "chance",
            "left out of",
            "1 seed: no verdict",
        ),
        figures=("recall_mqar.png", "recall_lengths.png"),
    )


def test_a_bad_task_is_one_sentence(tmp_path, capsys):
    assert main(["run", f"results_dir={tmp_path}", "suite=recall", "set.tasks=[mqar,sorting]", "dry_run=true"]) == 2
    err = capsys.readouterr().err
    assert "sorting" in err and "addition" in err and "Traceback" not in err


def test_the_profiles_initialisation_lets_a_small_transformer_learn_mqar_where_gpt2s_does_not():
    """The reason recall initialises at fan-in scale with an untied output layer: 700 steps of 32 on MQAR (16 keys,
    up to 4 pairs) take RoPE at width 64 to every answer right at 4 pairs; GPT-2's N(0, 0.02) with tied embeddings
    leaves it near 1/4, guessing among the values in context (the plateau before induction heads form)."""
    import dataclasses

    import torch

    from suites.common.families import build
    from suites.recall import models
    from suites.recall.suite import PROFILES, Recall, _score, _train, make_task

    class Job:
        device, progress, label = "cpu", False, "test"

    accuracy = {}
    for init, tied in (("fan_in", False), ("gpt2", True)):
        p = dataclasses.replace(
            PROFILES["quick"], tasks=("mqar",), mqar_kv=(1, 2, 4), steps=700, init=init, tie_embeddings=tied
        )
        spec, task = Recall().spec_for("rope", p, {}), make_task("mqar", p)
        assert (spec.init, spec.tie_embeddings) == (init, tied)
        torch.manual_seed(0)
        model = build(models.for_task(spec, task.vocab_size, task.length(4)))
        _train(model, task, 4, p, p.train_settings(), 0, Job, "mqar")
        accuracy[init] = _score(model, task, 4, 256, 5, Job)[0]
    assert accuracy["fan_in"] > 0.95 and accuracy["gpt2"] < 0.5, accuracy
    assert PROFILES["quick"].init == PROFILES["standard"].init == "fan_in"
    assert not PROFILES["standard"].tie_embeddings
