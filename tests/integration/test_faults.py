"""Faults a sweep must survive, each ending in one sentence with no finished compute thrown away: a skip that
is not a success, a record that parses but is malformed, a results folder that becomes read-only mid-run,
kill -9 during a save, a worker killed by a signal, and plugins that misbehave on import.

Every test runs the counting suite (tests/integration/counting_suite.py), which trains nothing, so the
whole file takes seconds apart from the subprocesses that must be killed for real.
"""

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

# log and results are fixtures (pytest passes them by name)
from counting_suite import NAME, CountingSuite, command, environment, log, results, run, run_apart, trainings

from bench.cli import main
from harness.store import ResultsStore, unsaved_folder

HERE = Path(__file__).parent


def missing_naive(monkeypatch, why="the naive-attention package is not installed"):
    """Make kernel 'naive' unavailable here, as a kernel whose package is missing is."""
    from variants.kernel import kernels

    monkeypatch.setattr(type(kernels.get("naive")), "missing", lambda self: why)


# --- a skip is not a success --------------------------------------------------------------------------------


def test_a_request_whose_every_job_cannot_run_is_refused_before_any_compute(capsys, log, results):
    code, out, err = run(capsys, results, "variants=[flash_attn,gqa3]")
    assert code == 2 and "Traceback" not in err and "Plan:" not in out
    lines = err.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("bench: variants=[") for line in lines), err
    assert "flash-attn package is not installed" in lines[0] and "cannot run here (device cpu" in lines[0]
    assert "n_kv_heads 3 must divide n_heads 2" in lines[1] and "cannot run with these settings" in lines[1]
    assert trainings(log) == [] and not results.exists()


def test_a_mix_of_runnable_and_impossible_jobs_runs_the_runnable_and_exits_3(capsys, log, results):
    code, out, err = run(capsys, results, "variants=[baseline,flash_attn]")
    assert code == 3, err
    assert "cannot run: the flash-attn package" in out and "exit status 3" in err and "flash_attn-s0" in err
    assert trainings(log) == ["baseline-s0"]
    skipped = [r for r in ResultsStore(results).load(NAME) if r["status"] == "skipped"]
    assert [r["variant"] for r in skipped] == ["flash_attn"]
    condition = skipped[0]["skip_condition"]
    assert condition["kind"] == "unavailable" and condition["kernel"] == "flash_attn" and condition["device"] == "cpu"
    assert "flash-attn" in condition["library_versions"] and condition["asked"] is True
    assert run(capsys, results, "variants=[baseline,flash_attn]", "allow_skips=true")[0] == 0
    assert trainings(log) == ["baseline-s0"]  # both stored: nothing trained again


def test_a_default_variant_unavailable_here_is_a_note_not_a_failure(capsys, log, results, monkeypatch):
    monkeypatch.setattr(CountingSuite, "default_variants", ("baseline", "flash_attn"))
    code, out, err = run(capsys, results)
    assert code == 0, err
    assert "not available here: the flash-attn package" in out and "0 cannot run, 1 not available here" in out
    assert trainings(log) == ["baseline-s0"]
    # the same variant named by the user counts
    assert run(capsys, results, "variants=[baseline,flash_attn]")[0] == 3


def test_a_default_variant_impossible_everywhere_still_counts(capsys, log, results, monkeypatch):
    monkeypatch.setattr(CountingSuite, "default_variants", ("baseline", "gqa3"))
    code, out, err = run(capsys, results)
    assert code == 3 and "cannot run: n_kv_heads 3 must divide n_heads 2" in out


def test_a_skip_is_retried_once_its_reason_is_gone(capsys, log, results, monkeypatch):
    with monkeypatch.context() as patch:
        missing_naive(patch)
        assert run(capsys, results, "variants=[baseline,naive]", "allow_skips=true")[0] == 0
    assert trainings(log) == ["baseline-s0"]
    files = sorted((results / NAME).glob("naive-*.jsonl"))
    assert len(files) == 1 and json.loads(files[0].read_text())["status"] == "skipped"
    # the package is "installed" now: the plan runs the job, and its record replaces the skip
    code, out, err = run(capsys, results, "variants=[baseline,naive]")
    assert code == 0, err
    assert "1 to run, 1 stored, 0 cannot run" in out
    assert trainings(log) == ["baseline-s0", "naive-s0"]
    assert sorted((results / NAME).glob("naive-*.jsonl")) == files
    assert [r["status"] for r in ResultsStore(results).load(NAME) if r["variant"] == "naive"] == ["ok"]


def test_a_skip_whose_reason_still_holds_stays_stored(capsys, log, results, monkeypatch):
    missing_naive(monkeypatch)
    assert run(capsys, results, "variants=[baseline,naive]", "allow_skips=true")[0] == 0
    code, out, _ = run(capsys, results, "variants=[baseline,naive]")
    assert code == 3 and "skip stored (cannot run)" in out and trainings(log) == ["baseline-s0"]


def test_every_record_carries_the_library_versions(capsys, log, results):
    assert run(capsys, results, "variants=[baseline]")[0] == 0
    (record,) = ResultsStore(results).load(NAME)
    versions = record["library_versions"]
    assert versions["torch"] and {"numpy", "triton", "flash-attn", "xformers", "cuda", "cudnn"} <= set(versions)


def test_a_group_that_mixes_library_versions_is_named():
    from harness.env import mixed_versions

    same = {"library_versions": {"torch": "2.13.0", "numpy": "2.1"}}
    assert mixed_versions([same, same, {"value": 1.0}]) is None
    sentence = mixed_versions([same, {"library_versions": {"torch": "2.12.0", "numpy": "2.1"}}])
    assert "torch 2.12.0, 2.13.0" in sentence and "numpy" not in sentence


# --- reading never crashes on bad data -----------------------------------------------------------------------

MALFORMED = {
    "abc-s0-aaaa.jsonl": '{"metric": "loss", "status": "ok", "value": "abc", "variant": "baseline", "seed": 0}\n',
    "novariant-s0-bbbb.jsonl": '{"metric": "loss", "status": "ok", "value": 1.0, "seed": 0}\n',
    "badstatus-s0-cccc.jsonl": '{"metric": "loss", "status": "great", "value": 1.0, "variant": "v"}\n',
    "seedtext-s0-dddd.jsonl": '{"metric": "loss", "status": "ok", "value": 1.0, "variant": "v", "seed": "zero"}\n',
    "names-s0-eeee.jsonl": '{"metric": "loss", "status": "ok", "value": 1.0, "variant": "v", "names": "v"}\n',
    "metric-s0-ffff.jsonl": '{"metric": 3, "status": "ok", "value": 1.0, "variant": "v"}\n',
    "list-s0-gggg.jsonl": '[{"metric": "loss"}]\n',
    "bool-s0-hhhh.jsonl": '{"metric": "loss", "status": "ok", "value": true, "variant": "v"}\n',
}


def plant_bad_files(folder: Path):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in MALFORMED.items():
        (folder / name).write_text(text)
    (folder / "dangling-s0-1111.jsonl").symlink_to(folder / "nowhere.jsonl")
    (folder / "x.jsonl").mkdir()
    return list(MALFORMED) + ["dangling-s0-1111.jsonl", "x.jsonl"]


@pytest.mark.parametrize("command", ["report", "run"])
def test_malformed_records_and_odd_files_are_warned_about_and_passed_over(capsys, log, results, tmp_path, command):
    assert run(capsys, results, "variants=[baseline]")[0] == 0
    names = plant_bad_files(results / NAME)
    if command == "report":
        code = main(
            ["report", f"suite={NAME}", f"results_dir={results}", f"reports_dir={tmp_path / 'reports'}", "index=false"]
        )
        out, err = capsys.readouterr()
        assert f"{NAME}: 1 group of records" in out
    else:
        code, out, err = run(capsys, results, "variants=[baseline]")
        assert "0 to run, 1 stored" in out
    assert code == 0, err
    assert "Traceback" not in err
    if command == "report":  # a run reads only its own jobs' files; a report reads them all
        for name in names:
            assert sum(name in line for line in err.splitlines()) == 1, (name, err)
        assert "abc-s0-aaaa.jsonl is corrupt at line 1 (not a bench record): 'value' is \"abc\"" in err
        assert "novariant-s0-bbbb.jsonl is corrupt at line 1 (not a bench record): no 'variant'" in err
        assert "dangling-s0-1111.jsonl is a link to nothing" in err and "x.jsonl is no regular file" in err
    assert [r["variant"] for r in ResultsStore(results).load(NAME)] == ["baseline"]


def test_a_file_named_like_a_job_but_a_folder_does_not_stop_that_job(capsys, log, results):
    out = run(capsys, results, "variants=[baseline]", "dry_run=true")[1]
    job_hash = next(line.split()[2] for line in out.splitlines() if line.startswith("baseline "))
    (results / NAME / f"baseline-s0-{job_hash}.jsonl").mkdir(parents=True)
    code, out, err = run(capsys, results, "variants=[baseline]")
    assert code == 0 and "Traceback" not in err and "no regular file" in err
    assert trainings(log) == ["baseline-s0"]
    assert [r["variant"] for r in ResultsStore(results).load(NAME)] == ["baseline"]


def test_an_unreadable_file_is_warned_about(tmp_path):
    said = []
    store = ResultsStore(tmp_path, warn=said.append)
    store.write("s", "h1", "good", [{"metric": "loss", "status": "ok", "value": 1.0, "variant": "good"}])
    bad = tmp_path / "s" / "bad-h2.jsonl"
    bad.write_text("{}")
    real_open = open

    def refusing(path, *args, **kwargs):
        if str(path) == str(bad):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    import builtins

    builtins.open, saved = refusing, builtins.open
    try:
        assert [r["variant"] for r in store.load("s")] == ["good"]
    finally:
        builtins.open = saved
    assert any("bad-h2.jsonl cannot be read (Permission denied)" in s for s in said)


def test_a_real_suite_report_is_built_past_a_value_abc(capsys, tmp_path):
    """The report of position_extrapolation's stored records, with one record of value "abc" added."""
    import shutil

    source = Path(__file__).resolve().parents[2] / "reference" / "results" / "position_extrapolation"
    if not source.is_dir():
        pytest.skip("no stored position_extrapolation records")
    results = tmp_path / "results"
    shutil.copytree(source, results / "position_extrapolation")
    first = next(p for p in sorted((results / "position_extrapolation").glob("*.jsonl")))
    record = json.loads(first.read_text().splitlines()[0])
    record.update(value="abc", records_in_file=1)
    (results / "position_extrapolation" / "abc-s9-0000.jsonl").write_text(json.dumps(record) + "\n")
    code = main(
        [
            "report",
            "suite=position_extrapolation",
            f"results_dir={results}",
            f"reports_dir={tmp_path / 'reports'}",
            "index=false",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in err and "abc-s9-0000.jsonl is corrupt at line 1" in err
    assert (tmp_path / "reports" / "position_extrapolation.md").is_file()


# --- a folder that stops being writable mid-run ---------------------------------------------------------------


def read_only_after(monkeypatch, folder: Path, log: Path, jobs: int):
    """Every create, rename, mkdir and unlink under ``folder`` fails with EROFS once ``jobs`` jobs have trained,
    as on a file system remounted read-only (root writes into a chmod 555 folder, so a mode would not do)."""

    def gate(real, name):
        def wrapped(path, *args, **kwargs):
            if str(path).startswith(str(folder)) and len(trainings(log)) >= jobs:
                raise OSError(errno.EROFS, "Read-only file system", str(path))
            return real(path, *args, **kwargs)

        monkeypatch.setattr(os, name, wrapped)

    for name in ("open", "mkdir", "unlink", "replace", "rename"):
        gate(getattr(os, name), name)


def test_a_folder_made_read_only_mid_run_keeps_the_job_in_flight_and_a_rerun_stores_it(
    capsys, log, results, monkeypatch
):
    with monkeypatch.context() as patch:
        read_only_after(patch, results, log, jobs=2)
        code, out, err = run(capsys, results, "variants=[baseline]", "seeds=[0,1,2]")
    assert code == 1 and "Traceback" not in err and "Traceback" not in out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "stopped being writable (Read-only file system) while storing baseline-s1" in lines[0], (
        err
    )
    kept = unsaved_folder(results) / NAME
    (path,) = kept.glob("*.jsonl")
    assert str(path) in lines[0] and path.name.startswith("baseline-s1-")
    assert trainings(log) == ["baseline-s0", "baseline-s1"]  # the sweep stopped at the fault
    code, out, err = run(capsys, results, "variants=[baseline]", "seeds=[0,1,2]")
    assert code == 0, err
    assert f"stored {path.name}, kept in" in err
    assert trainings(log) == ["baseline-s0", "baseline-s1", "baseline-s2"]  # baseline-s1 not trained again
    records = ResultsStore(results).load(NAME)
    assert sorted(r["seed"] for r in records) == [0, 1, 2]  # none lost, none twice
    assert not path.exists()


def test_a_folder_read_only_before_a_job_starts_is_one_sentence(capsys, log, results, monkeypatch):
    with monkeypatch.context() as patch:
        read_only_after(patch, results, log, jobs=1)
        code, out, err = run(capsys, results, "variants=[baseline,dot]")
    lines = err.strip().splitlines()
    # baseline trained and its save failed: kept aside; the sweep stops there
    assert code == 1 and len(lines) == 1 and "Traceback" not in err and "baseline-s0" in lines[0]


def test_the_lock_release_survives_a_read_only_folder(tmp_path, monkeypatch):
    from harness.locks import JobLock

    lock = JobLock(tmp_path / ".lock-x")
    assert lock.acquire()

    def refuse(path, *a, **k):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(os, "unlink", refuse)
    lock.release()  # no exception: the flock is dropped with the descriptor
    assert lock._fd is None


# --- kill -9 during a save, a killed worker, workers outliving their parent ------------------------------------

KILL_IN_SAVE = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {here!r})
    from counting_suite import register
    register()
    real = os.replace
    def replace(src, dst, *args, **kwargs):
        if os.path.basename(str(dst)).startswith({label!r}):
            os.kill(os.getpid(), signal.SIGKILL)  # the records are written to the temporary file, not renamed yet
        return real(src, dst, *args, **kwargs)
    os.replace = replace
    from bench.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def test_kill_9_during_a_save_loses_only_the_job_in_flight(tmp_path, results):
    log = tmp_path / "trained.log"
    env = {**os.environ, "BENCH_COUNTING_LOG": str(log), "OMP_NUM_THREADS": "1"}
    script = tmp_path / "kill_in_save.py"
    script.write_text(KILL_IN_SAVE.format(here=str(HERE), label="baseline-s1-"))
    args = ["run", f"suite={NAME}", "variants=[baseline]", "seeds=[0,1,2]", "progress=false", f"results_dir={results}"]
    done = subprocess.run([sys.executable, str(script), *args], env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == -signal.SIGKILL, done
    assert list((results / NAME).glob(".tmp-*")), "the killed save left its temporary file"
    again = subprocess.run(
        [sys.executable, str(HERE / "counting_suite.py"), *args], env=env, capture_output=True, text=True, timeout=240
    )
    assert again.returncode == 0, again
    assert "left by a save that was interrupted" in again.stderr and not list((results / NAME).glob(".tmp-*"))
    assert trainings(log) == ["baseline-s0", "baseline-s1", "baseline-s1", "baseline-s2"]
    records = ResultsStore(results).load(NAME)
    assert sorted(r["seed"] for r in records) == [0, 1, 2]


def test_a_killed_checkpoint_save_leaves_nothing_behind_for_long(capsys, log, results):
    from harness.store import temp_path

    folder = results / NAME / ".checkpoints"
    folder.mkdir(parents=True)
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    leftover = temp_path(folder, ".pt")
    leftover = leftover.with_name(leftover.name.replace(f"{os.getpid()}@", f"{proc.pid}@"))
    leftover.write_bytes(b"half a checkpoint")
    live = temp_path(folder, ".pt")  # this process is alive: its save is in progress
    live.write_bytes(b"being written")
    code, _, err = run(capsys, results, "variants=[baseline]")
    assert code == 0 and not leftover.exists() and live.exists()
    assert "left by a checkpoint save that was interrupted" in err


def test_a_worker_killed_by_a_signal_fails_the_sweep(tmp_path, results):
    args = ("seeds=[0,1,2]", "workers=2", "variants=[baseline]")
    done = run_apart(tmp_path / "trained.log", results, *args, kill="baseline-s1")
    assert done.returncode == 1, done
    assert "killed (worker" in done.stdout and "SIGKILL" in done.stdout and "exit status 0" not in done.stdout


def test_worker_statuses_rank_signals_and_failures_above_skips():
    from bench.run.workers import sweep_status

    assert sweep_status([0, 0])[0] == 0
    assert sweep_status([0, 3])[0] == 3
    assert sweep_status([3, 1])[0] == 1
    status, said = sweep_status([0, -9])
    assert status == 1 and "worker 2 by SIGKILL" in said
    assert sweep_status([-15, 3])[0] == 1


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_workers_die_with_their_parent(tmp_path, results):
    log = tmp_path / "trained.log"
    args = command(results, "seeds=[0,1]", "workers=2", "variants=[baseline]")
    parent = subprocess.Popen(
        args, env=environment(log, sleep="60"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.time() + 120
    while len(trainings(log)) < 2 and time.time() < deadline:
        time.sleep(0.1)
    pids = [int(line.split()[1]) for line in log.read_text().splitlines()]
    assert len(pids) == 2
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.time() + 20
    while any(_alive(p) for p in pids) and time.time() < deadline:
        time.sleep(0.1)
    for pid in pids:  # clean up even when the assertion below fails
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    assert not any(_alive(p) for p in pids), "a worker kept running after its parent was killed"


# --- plugins are contained ----------------------------------------------------------------------------------

WITH_PLUGINS = textwrap.dedent("""
    import sys
    from importlib import metadata
    sys.path.insert(0, {folder!r})
    plugins = [metadata.EntryPoint(name, name, "bench.plugins") for name in {names!r}]
    real = metadata.entry_points
    metadata.entry_points = lambda **kw: plugins if kw.get("group") == "bench.plugins" else real(**kw)
    from bench.cli import main
    sys.exit(main(sys.argv[1:]))
""")

PLUGINS = {
    "bench_exits": "import sys\nsys.exit(3)\n",
    "bench_takes_rope": textwrap.dedent('''
        """A plugin that registers a position of its own, then takes the built-in name 'rope'."""
        from variants.position import positions


        class Stolen:
            """Not RoPE."""


        positions.add("stolen_ok", Stolen)
        positions.add("rope", Stolen)
    '''),
    "bench_raises": "raise RuntimeError('plugin is broken')\n",
}


def bench_with_plugins(tmp_path, *args):
    folder = tmp_path / "plugins"
    folder.mkdir(exist_ok=True)
    for name, text in PLUGINS.items():
        (folder / f"{name}.py").write_text(text)
    script = tmp_path / "with_plugins.py"
    script.write_text(WITH_PLUGINS.format(folder=str(folder), names=list(PLUGINS)))
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=240)


def test_plugins_that_exit_raise_or_take_a_built_in_name_are_listed_broken_and_the_built_ins_work(tmp_path):
    listed = bench_with_plugins(tmp_path, "list", "plugins")
    assert listed.returncode == 0, listed
    rows = {line.split()[0]: line for line in listed.stdout.splitlines() if line.startswith("bench_")}
    assert "BROKEN: it called sys.exit(3)" in rows["bench_exits"]
    assert "BROKEN" in rows["bench_takes_rope"] and "position 'rope' is registered twice" in rows["bench_takes_rope"]
    assert "BROKEN: RuntimeError: plugin is broken" in rows["bench_raises"]
    positions = bench_with_plugins(tmp_path, "list", "positions")
    assert positions.returncode == 0 and "stolen_ok" not in positions.stdout  # taken back with its plugin
    assert "Warning: plugin 'bench_exits' failed to load" in positions.stdout
    plan = bench_with_plugins(
        tmp_path,
        "run",
        "variants=[rope]",
        "dry_run=true",
        "set.steps=2",
        "set.warmup_steps=1",
        f"results_dir={tmp_path / 'results'}",
    )
    assert plan.returncode == 0, plan
    assert "Traceback" not in plan.stderr and "dry_run=true: nothing was run" in plan.stdout


# --- exit codes of bench compare ------------------------------------------------------------------------------


def test_bench_compare_refuses_an_unknown_metric_and_one_variant_twice(tmp_path, capsys):
    store = ResultsStore(tmp_path)
    for variant, base in (("rope", 4.0), ("alibi", 3.8)):
        for seed in (0, 1):
            store.write(
                "position_extrapolation",
                f"{variant}{seed}",
                f"{variant}-s{seed}",
                [
                    {
                        "suite": "position_extrapolation",
                        "variant": variant,
                        "seed": seed,
                        "metric": "perplexity",
                        "value": base + seed,
                        "status": "ok",
                        "x": 64.0,
                        "x_name": "eval_length",
                        "profile": "quick",
                        "device": "cpu",
                        "dtype": "float32",
                        "suite_version": 1,
                        "data_checksum": "d",
                        "profile_settings": {},
                        "higher_is_better": False,
                    }
                ],
            )
    assert main(["compare", "rope", "alibi", f"results_dir={tmp_path}", "metric=nosuch"]) == 2
    captured = capsys.readouterr()
    assert "metric=nosuch" in captured.err and "choose one of perplexity" in captured.err and captured.out == ""
    assert main(["compare", "rope", "rope", f"results_dir={tmp_path}"]) == 2
    assert "got `rope` twice" in capsys.readouterr().err
    assert main(["compare", "rope", "alibi", f"results_dir={tmp_path}", "metric=perplexity"]) == 0


# --- a damaged or unreachable SWORD library ---------------------------------------------------------------------


def bench(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "bench.cli", *args],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, **(env or {})},
        cwd=Path(__file__).resolve().parents[2],
    )


@pytest.mark.sword("engWEB2015eb")
def test_a_damaged_sword_module_or_a_too_long_sword_path_is_one_sentence_before_any_compute(tmp_path):
    import shutil

    source = Path(os.environ["SWORD_PATH"]) / "modules" / "texts" / "ztext" / "engWEB2015eb"

    library = tmp_path / "sword"
    shutil.copytree(source, library / "modules" / "texts" / "ztext" / "engWEB2015eb")
    for testament in ("ot", "nt"):
        path = library / "modules" / "texts" / "ztext" / "engWEB2015eb" / f"{testament}.bzz"
        data = bytearray(path.read_bytes())
        for i in range(100, len(data), 997):
            data[i] ^= 0xFF
        path.write_bytes(bytes(data))
    args = [
        "run",
        "data=bible",
        "variants=[rope]",
        "dry_run=true",
        f"results_dir={tmp_path / 'results'}",
        "progress=false",
    ]
    for sword in (str(library), "/tmp/" + "s" * 300):
        done = bench(*args, env={"SWORD_PATH": sword})
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert len(lines) == 1 and lines[0].startswith("bench: data=bible") and f"SWORD_PATH={sword}" in lines[0], lines
        assert "Plan:" not in done.stdout


def test_workers_exit_3_when_a_job_asked_for_cannot_run(tmp_path, results):
    log = tmp_path / "trained.log"
    args = ("seeds=[0,1]", "workers=2", "variants=[baseline,flash_attn]")
    done = run_apart(log, results, *args)
    assert done.returncode == 3, done
    assert "All 2 workers finished (exit status 3)" in done.stdout and "allow_skips=true" in done.stderr
    assert sorted(trainings(log)) == ["baseline-s0", "baseline-s1"]
    again = run_apart(log, results, *args, "allow_skips=true")
    assert again.returncode == 0, again
