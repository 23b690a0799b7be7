"""How ``workers=N`` splits the cores and starts its workers (bench/run/workers.py)."""

import pytest

from bench.run.workers import entry_point, worker_args
from harness.cores import threads_per_worker, worker_count


@pytest.mark.parametrize("workers, cores, threads", [(1, 2, 2), (2, 2, 1), (3, 2, 1), (2, 16, 8), (3, 16, 5)])
def test_each_worker_gets_an_equal_share_of_the_cores_and_at_least_one(workers, cores, threads):
    assert threads_per_worker(workers, cores) == threads


def test_a_worker_runs_the_same_sweep_alone_and_without_progress_bars():
    args = ["suite=language_modeling", "workers=2", "progress=true", "seeds=[0,1]"]
    assert worker_args(args) == ["suite=language_modeling", "seeds=[0,1]", "workers=1", "progress=false"]


def test_workers_restart_the_program_they_were_started_as():
    assert entry_point("/venv/bin/bench") == ["/venv/bin/bench"]
    assert entry_point("/repo/bench/cli.py") == ["-m", "bench.cli"]
    assert entry_point("/repo/bench/__main__.py") == ["-m", "bench.cli"]
    assert entry_point("") == ["-m", "bench.cli"]


def test_the_worker_count_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("BENCH_WORKERS", raising=False)
    assert worker_count() == 1
    monkeypatch.setenv("BENCH_WORKERS", "2")
    assert worker_count() == 2
    monkeypatch.setenv("BENCH_WORKERS", "junk")
    assert worker_count() == 1
