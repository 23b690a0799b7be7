"""position_extrapolation with RoPE extensions: one training serves every scaling, fine-tuning, the report section."""

from stored import load, report, runner

from tests.tiny import POSITION, tiny

run = runner(*tiny(base=POSITION))


def test_one_training_of_rope_serves_every_extension_and_each_variant_keeps_its_records(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    assert run(results, "variants=[rope,rope+ntk,rope+yarn,t5_bias,randomized]") == 0
    records = load(results)
    first = {r["variant"]: r for r in records}
    assert set(first) == {"rope", "rope+ntk", "rope+yarn", "t5_bias", "randomized"}
    checkpoints = sorted((results / "position_extrapolation" / ".checkpoints").glob("*.pt"))
    assert len(checkpoints) == 3  # rope (shared by both scalings), t5_bias, randomized
    assert first["rope"]["weights"] == "trained by this job"
    for v in ("rope+ntk", "rope+yarn"):
        assert first[v]["weights"] == "checkpoint of job rope-s0"
        assert first[v]["training_key"] == first["rope"]["training_key"]
    ppl = {(r["variant"], r["x"]): r["value"] for r in records if r["metric"] == "perplexity"}
    assert ppl[("rope+ntk", 8.0)] == ppl[("rope", 8.0)]  # s = 1 at the training length
    assert ppl[("rope+ntk", 64.0)] != ppl[("rope", 64.0)]
    assert all(r["status"] == "ok" for r in records)

    report(
        results,
        reports,
        "position_extrapolation",
        phrases=(
            "RoPE context extension without retraining",
            "share one training per seed",
            "Peng et al. 2023",
            "| rope+yarn",
            "t5_bias",
            "randomized",
        ),
    )


def test_extensions_after_a_short_fine_tune_at_each_longer_length(tmp_path):
    results = tmp_path / "results"
    assert run(results, "variants=[rope,rope+pi]", "set.finetune_steps=2", "set.eval_multipliers=[1,2]") == 0
    records = load(results)
    tuned = [r for r in records if r["metric"] == "finetuned_perplexity"]
    assert {(r["variant"], r["x"]) for r in tuned} == {("rope", 16.0), ("rope+pi", 16.0)}
    assert all(r["profile_settings"]["finetune_steps"] == 2 for r in records)
    assert {r["weights"] for r in records if r["variant"] == "rope+pi"} == {"checkpoint of job rope-s0"}
    # the fine-tune changes only the evaluation: a run without it reuses the same training
    assert run(results, "variants=[rope+ntk]", "set.eval_multipliers=[1,2]") == 0
    ntk = [r for r in load(results) if r["variant"] == "rope+ntk"]
    assert {r["weights"] for r in ntk} == {"checkpoint of job rope-s0"}
    assert all("finetune_steps" not in r["profile_settings"] for r in ntk)  # 0: left out, as before it existed
