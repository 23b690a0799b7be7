"""attention_heads end to end at a tiny size: records per layer and head, kept maps, and the report."""

from stored import load, ran, report

from bench.cli import main
from tests.tiny import settings, tiny

#: the training, position_extrapolation's own: attention_heads studies that suite's models and reuses its checkpoints
TRAINING = tiny(steps=6, d_model=16, n_layers=2, n_heads=4, train_len=16, batch_size=4, warmup_steps=2)
#: what attention_heads reads from a trained model
READING = ["suite=attention_heads", *settings(eval_windows=6, eval_batch=4, map_len=12)]
TINY = [*READING, *TRAINING]


def test_records_per_head_and_the_report(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    records = ran(results, *TINY, "variants=[rope,alibi]")
    assert {r["status"] for r in records} == {"ok"}
    rope = [r for r in records if r["variant"] == "rope"]
    entropy = [r for r in rope if r["metric"] == "entropy"]
    assert sorted((r["extra"]["layer"], r["extra"]["head"]) for r in entropy) == [
        (l, h) for l in range(2) for h in range(4)
    ]
    assert all(0 <= r["value"] <= 1.0001 for r in rope if r["metric"].endswith("_share"))
    assert all(r["extra"]["offset"] >= 0 for r in rope if r["metric"] == "offset_share")
    maps = [r for r in rope if r["metric"] == "attention_map"]
    assert len(maps) == 5 and len({(r["extra"]["layer"], r["extra"]["head"]) for r in maps}) == 5
    assert all(len(r["extra"]["weights"]) == 12 and len(r["extra"]["text"]) == 12 for r in maps)
    (loss,) = [r for r in rope if r["metric"] == "loss"]
    assert loss["extra"]["scored_tokens"] == 6 * 16 and loss["eval_windows"] == 6

    report(
        results,
        reports,
        "attention_heads",
        phrases=(
            "Checks: did each model learn?",
            "## Per layer",
            "Specialised heads",
            "Clark et al. 2019",
            "did not learn",
        ),
        figures=("attention_heads_rope.png", "attention_heads_maps_alibi.png"),
    )


def test_the_models_are_position_extrapolations_and_reuse_its_checkpoints(tmp_path):
    training, reading = [*TRAINING, "variants=[rope]"], READING
    alone, shared = tmp_path / "alone", tmp_path / "shared"
    assert main(["run", f"results_dir={alone}", *reading, *training]) == 0
    assert main(["run", f"results_dir={shared}", "suite=position_extrapolation", "set.eval_tokens=512", *training]) == 0
    assert main(["run", f"results_dir={shared}", *reading, *training]) == 0

    def train_loss(results, suite):
        (r,) = [r for r in load(results) if r["suite"] == suite and r["metric"] == "train_loss"]
        return r

    trained, reused = train_loss(alone, "attention_heads"), train_loss(shared, "attention_heads")
    assert trained["weights"] == "trained by this job"
    assert reused["weights"] == "checkpoint of position_extrapolation job rope-s0"
    # the same recipe: training here gives position_extrapolation's weights
    assert trained["value"] == reused["value"] == train_loss(shared, "position_extrapolation")["value"]
    assert list((alone / "attention_heads" / ".checkpoints").glob("*.pt"))
    assert not (alone / "position_extrapolation").exists()
