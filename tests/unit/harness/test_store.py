"""The results store: atomic writes, one job under all its names, damaged files reported and skipped, never deleted."""

import os
import socket
import subprocess
import sys
import time

import pytest

from harness.errors import UsageError
from harness.store import CorruptResultsError, ResultsStore


def record(**kw):
    return {"metric": "loss", "status": "ok", "value": 1.0, "variant": "x", **kw}


@pytest.fixture
def said():
    return []


@pytest.fixture
def store(tmp_path, said):
    return ResultsStore(tmp_path, warn=said.append)


def dead_pid():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_write_then_find_and_load(store, tmp_path):
    path = store.write("suite_a", "abc123", "rope-s0", [record(seed=0), record(seed=0, metric="perplexity")])
    assert path.name == "rope-s0-abc123.jsonl"
    assert store.find("suite_a", "abc123") == path
    assert [r["metric"] for r in store.load("suite_a")] == ["loss", "perplexity"]
    assert store.suites() == ["suite_a"]


def test_rewriting_a_job_replaces_its_file(store):
    store.write("s", "h1", "x", [record(value=1.0)])
    store.write("s", "h1", "x", [record(value=2.0)])
    assert [r["value"] for r in store.load("s")] == [2.0]


def test_no_temporary_files_are_left_behind(store, tmp_path):
    store.write("s", "h1", "x", [record()])
    assert [p.name for p in (tmp_path / "s").iterdir()] == ["x-h1.jsonl"]


def test_a_failed_write_keeps_the_previous_file(store, tmp_path):
    store.write("s", "h1", "x", [record(value=1.0)])

    def broken():
        yield record(value=2.0)
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        store.write("s", "h1", "x", broken())
    assert [r["value"] for r in store.load("s")] == [1.0]
    assert len(list((tmp_path / "s").iterdir())) == 1


def test_two_names_of_one_job_share_one_file_and_both_find_it(store, tmp_path):
    store.write("s", "h1", "baseline-s0", [record(variant="baseline")])
    store.write("s", "h1", "gelu-s0", [record(variant="gelu")])
    assert [p.name for p in (tmp_path / "s").iterdir()] == ["baseline-s0-h1.jsonl"]  # nothing deleted, nothing doubled
    (stored,) = store.read_file(tmp_path / "s" / "baseline-s0-h1.jsonl")
    assert stored["names"] == ["baseline", "gelu"] and stored["variant"] == "baseline"
    assert sorted(r["variant"] for r in store.load("s")) == ["baseline", "gelu"]


def test_a_job_asked_under_a_new_name_keeps_it(store):
    store.write("s", "h1", "baseline-s0", [record(variant="baseline"), record(variant="baseline", metric="ppl")])
    assert store.add_names("s", "h1", ["gelu"]) is True
    assert store.add_names("s", "h1", ["gelu", "baseline"]) is False
    assert {r["names"].__len__() for r in store.read_file(store.find("s", "h1"))} == {2}
    assert sorted((r["variant"], r["metric"]) for r in store.load("s")) == [
        ("baseline", "loss"),
        ("baseline", "ppl"),
        ("gelu", "loss"),
        ("gelu", "ppl"),
    ]


def test_records_are_written_with_the_users_umask(store, tmp_path):
    old = os.umask(0o022)
    try:
        path = store.write("s", "h1", "x", [record()])
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644


def test_a_damaged_line_is_reported_with_its_line_and_skipped(store, tmp_path, said):
    store.write("s", "h1", "good", [record(value=1.0)])
    bad = tmp_path / "s" / "bad-h2.jsonl"
    bad.write_text('{"metric": "loss", "status": "ok", "value": 2.0, "variant": "x"}\n{not json\n')
    assert [r["value"] for r in store.load("s")] == [1.0]
    assert store.find("s", "h2") is None  # its job counts as not done
    assert any("bad-h2.jsonl is corrupt at line 2" in s for s in said)
    assert bad.exists() and store.find("s", "h1").exists()
    with pytest.raises(CorruptResultsError, match="line 2"):
        store.read_file(bad)


def test_a_junk_file_is_skipped_and_a_suite_of_junk_only_has_no_results(store, tmp_path, said):
    store.write("good", "h1", "x", [record()])
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.jsonl").write_bytes(b"\xff\xfe hello\n")
    (tmp_path / "good" / "stray.jsonl").write_text("[1, 2]\n")
    assert store.suites() == ["good"]
    assert len(store.load()) == 1
    assert any("notes.jsonl is corrupt at line 1" in s for s in said)
    assert any("stray.jsonl is corrupt at line 1 (not a bench record)" in s for s in said)


def test_a_file_cut_at_a_line_boundary_is_incomplete(store, tmp_path, said):
    path = store.write("s", "h1", "x", [record(metric=m) for m in ("loss", "ppl", "time")])
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:2]))
    assert store.find("s", "h1") is None and store.load("s") == []
    assert any("x-h1.jsonl is incomplete after line 2" in s for s in said)


def test_a_file_from_before_the_record_count_is_read(store, tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "old-h1.jsonl").write_text('{"metric": "loss", "status": "ok", "variant": "rope"}\n')
    assert store.find("s", "h1") is not None and len(store.load("s")) == 1


def test_storing_a_damaged_job_again_moves_the_damaged_file_aside(store, tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "x-h1.jsonl").write_text('{"metric": "loss", "sta')
    store.write("s", "h1", "x", [record(value=3.0)])
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["x-h1.jsonl", "x-h1.jsonl.corrupt"]
    assert (tmp_path / "s" / "x-h1.jsonl.corrupt").read_text() == '{"metric": "loss", "sta'
    assert [r["value"] for r in store.load("s")] == [3.0]


def test_a_temporary_file_alone_makes_no_suite(store, tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / ".tmp-abc123.jsonl").write_text('{"metric": "loss", "status": "ok"}\n')
    assert store.suites() == [] and store.load() == []


def test_prepare_removes_temporary_files_of_killed_saves_only(store, tmp_path, said):
    folder = tmp_path / "s"
    folder.mkdir()
    host = socket.gethostname()
    old = folder / ".tmp-k3j_x9.jsonl"  # named by an earlier version (mkstemp), left long ago
    dead = folder / f".tmp-{dead_pid()}@{host}-00ff.jsonl"
    live = folder / f".tmp-{os.getpid()}@{host}-11aa.jsonl"  # a save in progress
    for path in (old, dead, live):
        path.write_text("{")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    store.prepare("s")
    assert not old.exists() and not dead.exists() and live.exists()
    assert any(str(dead) in s for s in said)


def test_a_live_writers_save_is_never_taken_however_old_it_looks(store, tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    live = folder / f".tmp-{os.getpid()}@{socket.gethostname()}-22bb.jsonl"  # a slow save, or a clock skewed back
    live.write_text("{")
    os.utime(live, (time.time() - 86400, time.time() - 86400))
    store.prepare("s")
    assert live.exists()


@pytest.mark.parametrize("make_root", [lambda p: p / "a-file", lambda p: "/proc/x"])
def test_prepare_refuses_a_folder_it_cannot_write(tmp_path, make_root):
    (tmp_path / "a-file").write_text("")
    root = make_root(tmp_path)
    with pytest.raises(UsageError, match=r"results_dir=\S+ cannot be written \(.+\); choose a folder"):
        ResultsStore(root).prepare("s")
