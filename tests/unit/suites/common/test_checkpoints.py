"""Trained weights kept by training key: trained once, loaded after, retrained when missing or damaged."""

import torch
from torch import nn

from harness.train import TrainResult
from suites.common.checkpoints import path_for, train_once


def _trainer(model, calls):
    def train():
        calls.append(1)
        with torch.no_grad():
            model.weight.fill_(len(calls))
        return TrainResult(losses=[1.0, 0.5], wall_time_s=2.0, tokens=10)

    return train


def test_the_first_job_trains_and_saves_and_the_next_loads(tmp_path):
    calls = []
    first = nn.Linear(3, 3)
    trained = train_once(first, "abc", tmp_path, _trainer(first, calls), label="rope-s0")
    assert trained.source == "trained by this job" and path_for(tmp_path, "abc").exists()
    second = nn.Linear(3, 3)
    loaded = train_once(second, "abc", tmp_path, _trainer(second, calls), label="rope+ntk-s0")
    assert calls == [1] and loaded.source == "checkpoint of job rope-s0"
    assert torch.equal(second.weight, first.weight) and loaded.final_loss == trained.final_loss == 0.5
    assert loaded.wall_time_s == 2.0 and not list(tmp_path.glob(".tmp-*"))


def test_without_a_folder_or_with_a_damaged_file_it_trains(tmp_path):
    calls = []
    model = nn.Linear(3, 3)
    train_once(model, "abc", None, _trainer(model, calls))
    path_for(tmp_path, "abc").write_bytes(b"not a checkpoint")
    assert train_once(model, "abc", tmp_path, _trainer(model, calls)).source == "trained by this job"
    assert calls == [1, 1] and train_once(model, "abc", tmp_path, _trainer(model, calls)).source.startswith(
        "checkpoint"
    )


def test_two_jobs_reaching_one_training_at_once_train_it_once(tmp_path):
    import threading
    import time

    calls, started = [], threading.Event()

    def slow(model):
        inner = _trainer(model, calls)

        def train():
            started.set()
            time.sleep(0.3)  # the second job arrives while the first trains
            return inner()

        return train

    models = [nn.Linear(3, 3), nn.Linear(3, 3)]
    sources = {}

    def job(i):
        sources[i] = train_once(models[i], "abc", tmp_path, slow(models[i]), label=f"job{i}").source

    first = threading.Thread(target=job, args=(0,))
    first.start()
    started.wait(5)
    job(1)
    first.join()
    assert calls == [1] and sources == {0: "trained by this job", 1: "checkpoint of job job0"}
    assert not list(tmp_path.glob(".lock-*"))


def test_a_checkpoint_that_cannot_be_saved_never_fails_the_job_that_trained(tmp_path, monkeypatch, capsys):
    import errno

    import suites.common.checkpoints as checkpoints

    def full(path, payload):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(checkpoints, "save", full)
    calls = []
    model = nn.Linear(3, 3)
    trained = train_once(model, "abc", tmp_path, _trainer(model, calls), label="rope-s0")
    assert trained.source == "trained by this job" and trained.final_loss == 0.5 and calls == [1]
    assert "cannot be kept (No space left on device)" in capsys.readouterr().err


def test_a_folder_that_cannot_hold_checkpoints_trains_without_them(tmp_path, capsys):
    blocked = tmp_path / "afile"
    blocked.write_text("a file where the checkpoint folder would be")
    calls = []
    model = nn.Linear(3, 3)
    trained = train_once(model, "abc", blocked / "checkpoints", _trainer(model, calls))
    assert trained.source == "trained by this job" and calls == [1]
    assert "cannot be kept" in capsys.readouterr().err
