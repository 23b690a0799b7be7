"""`bench run` and the results store together: one job per spec, exit status 1 after a failure, damaged
files reported and rerun, leftovers removed, an unwritable folder refused, concurrent runs never doubled."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

# log and results are fixtures (pytest passes them by name)
from counting_suite import NAME, command, environment, log, results, run, run_apart, trainings

from bench.cli import main
from harness.store import ResultsStore
from tests.tiny import DECODER, settings


def test_two_names_of_one_spec_train_once_and_both_find_the_record(capsys, log, results):
    code, out, _ = run(capsys, results, "variants=[baseline,gelu,dot]")
    assert code == 0 and "same spec as baseline-s0" in out
    assert trainings(log) == ["baseline-s0", "dot-s0"]
    assert sorted(p.name.split("-")[0] for p in (results / NAME).glob("*.jsonl")) == ["baseline", "dot"]
    assert sorted(r["variant"] for r in ResultsStore(results).load(NAME)) == ["baseline", "dot", "gelu"]
    # asked again under a third name: found, not rerun, and the record keeps that name too
    code, out, _ = run(capsys, results, "variants=[layernorm]")
    assert code == 0 and "0 to run, 1 stored" in out and len(trainings(log)) == 2
    (record,) = [r for r in ResultsStore(results).load(NAME) if r["variant"] == "layernorm"]
    assert record["names"] == ["baseline", "gelu", "layernorm"]


def test_the_issues_language_modeling_command_trains_baseline_once(capsys, results):
    code, out, _ = run(
        capsys,
        results,
        "suite=language_modeling",
        "variants=[baseline,gelu,relu]",
        *settings(DECODER),
    )
    assert code == 0 and "2 to run" in out
    variants = {r["variant"] for r in ResultsStore(results).load("language_modeling")}
    assert variants == {"baseline", "gelu", "relu"}


def test_a_failed_job_makes_the_exit_status_1_and_the_summary_names_every_outcome(capsys, log, results):
    code, out, err = run(capsys, results, "variants=[baseline,relu,rmsnorm,swiglu,gqa3]")
    assert code == 1
    assert "1 failed" in out and "1 diverged" in out and "1 unsupported" in out and "1 skipped" in out
    assert "relu-s0: RuntimeError: boom" in out
    assert "diverged (a result, recorded with its reason; not a failure):" in out
    assert "unsupported (a result, recorded with its reason; not a failure):" in out
    assert "gqa3-s0: n_kv_heads 3 must divide n_heads 2" in out
    assert "1 job(s) failed (relu-s0); exit status 1" in err and "Traceback" not in err


def test_diverged_and_unsupported_jobs_are_results_and_exit_0(capsys, log, results):
    code, out, _ = run(capsys, results, "variants=[baseline,rmsnorm,swiglu]")
    assert code == 0 and "1 diverged" in out and "1 unsupported" in out
    code, out, _ = run(capsys, results, "variants=[baseline,rmsnorm,swiglu]")
    assert code == 0 and "3 stored before" in out and len(trainings(log)) == 3


def test_a_damaged_file_is_reported_its_job_rerun_and_the_good_records_kept(capsys, log, results):
    assert run(capsys, results, "variants=[baseline,dot,post_ln]")[0] == 0
    files = {p.name.split("-")[0]: p for p in (results / NAME).glob("*.jsonl")}
    files["dot"].write_text(files["dot"].read_text()[:40])  # cut mid-line
    lines = files["post_ln"].read_text().splitlines(keepends=True)
    files["post_ln"].write_text("".join(lines[:-1]) if len(lines) > 1 else "")  # cut at a line boundary
    (results / NAME / "junk.jsonl").write_text("hello\n")
    code, out, err = run(capsys, results, "variants=[baseline,dot,post_ln]")
    assert code == 0 and "2 to run, 1 stored" in out
    assert f"{files['dot']} is corrupt at line 1" in err and "junk.jsonl" not in err  # a run reads its jobs' files
    assert trainings(log) == ["baseline-s0", "dot-s0", "post_ln-s0", "dot-s0", "post_ln-s0"]
    assert (results / NAME / (files["dot"].name + ".corrupt")).exists()
    assert sorted(r["variant"] for r in ResultsStore(results).load(NAME)) == ["baseline", "dot", "post_ln"]


def test_report_over_every_suite_is_not_blocked_by_a_damaged_file_or_a_leftover(capsys, log, results, tmp_path):
    assert run(capsys, results, "variants=[baseline]")[0] == 0
    (results / NAME / "junk.jsonl").write_text('{"metric": "loss", "status": "ok", "variant": "x"}\n{trunc')
    (results / "position_extrapolation").mkdir()
    (results / "position_extrapolation" / ".tmp-abc123.jsonl").write_text("{")
    code = main(["report", f"results_dir={results}", f"reports_dir={tmp_path / 'reports'}"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "junk.jsonl is corrupt at line 2" in err and f"{NAME}: 1 group of records" in out


def test_leftover_temporary_files_are_removed_at_start(capsys, log, results):
    folder = results / NAME
    folder.mkdir(parents=True)
    leftover = folder / ".tmp-k3j_x9.jsonl"
    leftover.write_text('{"metric": "loss"')
    os.utime(leftover, (time.time() - 3600, time.time() - 3600))
    code, _, err = run(capsys, results, "variants=[baseline]")
    assert code == 0 and not leftover.exists() and f"removed {leftover}" in err


@pytest.mark.parametrize("where", ["file", "/proc/x"])
def test_an_unwritable_results_folder_is_refused_before_any_job_trains(capsys, log, tmp_path, where):
    target = tmp_path / "a-file" if where == "file" else Path(where)
    (tmp_path / "a-file").write_text("")
    code, _, err = run(capsys, target, "variants=[baseline]")
    assert code == 2 and "results_dir" in err and str(target) in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert trainings(log) == []


def test_a_stale_lock_of_a_dead_process_is_broken(capsys, log, results):
    out = run(capsys, results, "variants=[baseline]", "dry_run=true")[1]
    job_hash = next(line.split()[2] for line in out.splitlines() if line.startswith("baseline "))
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    lock = results / NAME / f".lock-{job_hash}"
    lock.parent.mkdir(parents=True)
    lock.write_text(json.dumps({"pid": proc.pid, "host": socket.gethostname()}))
    assert run(capsys, results, "variants=[baseline]")[0] == 0
    assert trainings(log) == ["baseline-s0"] and not lock.exists()


def meeting(tmp_path) -> str:
    """A fresh folder where two processes meet before their first jobs, as BENCH_COUNTING_BARRIER names it."""
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    return f"{barrier},2"


def test_two_concurrent_runs_train_each_job_once(tmp_path, results):
    log = tmp_path / "trained.log"
    env = {**environment(log, sleep="0.3", barrier=meeting(tmp_path)), "OMP_NUM_THREADS": "1"}
    args = command(results, "seeds=[0,1]", "progress=false", "variants=[baseline,dot,post_ln,gelu]")
    procs = [
        subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    outs = [p.communicate(timeout=240) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    trained = trainings(log)
    assert sorted(trained) == ["baseline-s0", "baseline-s1", "dot-s0", "dot-s1", "post_ln-s0", "post_ln-s1"], outs
    assert len({line.split()[1] for line in log.read_text().splitlines()}) == 2  # both processes trained
    assert sorted({r["variant"] for r in ResultsStore(results).load(NAME)}) == ["baseline", "dot", "gelu", "post_ln"]
    assert not list((results / NAME).glob(".lock-*")) and not list((results / NAME).glob(".tmp-*"))


def test_workers_split_one_sweep_between_processes(tmp_path, results):
    log = tmp_path / "trained.log"
    args = ("seeds=[0,1,2]", "workers=2", "variants=[baseline,dot]")
    done = run_apart(log, results, *args, sleep="0.3", barrier=meeting(tmp_path))
    assert done.returncode == 0, done
    assert sorted(trainings(log)) == ["baseline-s0", "baseline-s1", "baseline-s2", "dot-s0", "dot-s1", "dot-s2"], done
    assert len({line.split()[1] for line in log.read_text().splitlines()}) == 2  # both workers trained
    records = ResultsStore(results).load(NAME)
    assert {r["workers"] for r in records} == {2} and len(records) == 6
    assert done.stdout.count("Worker done") == 2 and "All 2 workers finished" in done.stdout
