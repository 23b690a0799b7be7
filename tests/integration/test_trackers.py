"""``tracker=tensorboard|mlflow|wandb``: each job a run ran is logged from its stored records (bench/run/trackers.py);
a tracker whose library is missing is one sentence with its install command, exit status 2, before compute."""

from __future__ import annotations

import pytest

from bench.cli import main
from bench.run import trackers

pytestmark = pytest.mark.slow
RUN = ["run", "suite=position_extrapolation", "variants=[rope]", "seeds=[0]", "set.steps=12", "progress=false"]


def test_a_missing_tracker_library_is_one_sentence_before_compute(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(trackers.TRACKERS, "wandb", ("no_such_module_for_bench_tests", "wandb"))
    assert main([*RUN, "tracker=wandb", f"results_dir={tmp_path}"]) == 2
    err = capsys.readouterr().err
    assert "tracker=wandb needs the wandb package; install it with `pip install wandb`." in err
    assert err.count("\n") == 1 and not (tmp_path / "position_extrapolation").exists()


def test_the_records_become_series_with_the_training_curve():
    records = [
        {"metric": "train_loss", "status": "ok", "value": 2.0, "x": None, "extra": {"curve": [[1, 4.0], [12, 2.5]]}},
        {"metric": "perplexity", "status": "ok", "value": 9.0, "x": 64.0, "extra": {}},
        {"metric": "perplexity", "status": "diverged", "value": None, "x": 128.0, "extra": {}},
    ]
    assert trackers.series(records) == [
        ("train_loss", 2.0, 0),
        ("train_loss_curve", 4.0, 1),
        ("train_loss_curve", 2.5, 12),
        ("perplexity", 9.0, 64),
    ]


def test_tensorboard_gets_each_job_s_settings_values_and_curve(tmp_path, capsys):
    pytest.importorskip("tensorboard", reason="needs tensorboard: pip install tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    assert main([*RUN, "tracker=tensorboard", f"results_dir={tmp_path}"]) == 0
    assert "tracker=tensorboard: logged 1 job(s)" in capsys.readouterr().out
    (folder,) = (tmp_path / ".tensorboard" / "position_extrapolation").iterdir()
    events = EventAccumulator(str(folder))
    events.Reload()
    curve = events.Scalars("train_loss_curve")
    assert [e.step for e in curve] == list(range(1, 13))  # every step of a 12-step training
    assert {e.step for e in events.Scalars("perplexity")} >= {32, 64}
    assert "spec.position = rope" in events.Tensors("settings/text_summary")[0].tensor_proto.string_val[0].decode()
