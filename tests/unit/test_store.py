"""The results store: atomic writes, lookup by hash, corrupt files named, never deleted."""

import pytest

from harness.store import CorruptResultsError, ResultsStore


def record(**kw):
    return {"metric": "loss", "status": "ok", "value": 1.0, **kw}


def test_write_then_find_and_load(tmp_path):
    store = ResultsStore(tmp_path)
    path = store.write("suite_a", "abc123", "rope-s0", [record(seed=0), record(seed=0, metric="perplexity")])
    assert path.name == "rope-s0-abc123.jsonl"
    assert store.find("suite_a", "abc123") == path
    assert [r["metric"] for r in store.load("suite_a")] == ["loss", "perplexity"]
    assert store.suites() == ["suite_a"]


def test_rewriting_a_job_replaces_its_file(tmp_path):
    store = ResultsStore(tmp_path)
    store.write("s", "h1", "x", [record(value=1.0)])
    store.write("s", "h1", "x", [record(value=2.0)])
    assert [r["value"] for r in store.load("s")] == [2.0]


def test_no_temporary_files_are_left_behind(tmp_path):
    store = ResultsStore(tmp_path)
    store.write("s", "h1", "x", [record()])
    assert [p.name for p in (tmp_path / "s").iterdir()] == ["x-h1.jsonl"]


def test_a_failed_write_keeps_the_previous_file(tmp_path):
    store = ResultsStore(tmp_path)
    store.write("s", "h1", "x", [record(value=1.0)])

    def broken():
        yield record(value=2.0)
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        store.write("s", "h1", "x", broken())
    assert [r["value"] for r in store.load("s")] == [1.0]
    assert len(list((tmp_path / "s").iterdir())) == 1


def test_a_corrupt_file_is_named_and_left_in_place(tmp_path):
    store = ResultsStore(tmp_path)
    store.write("s", "h1", "good", [record()])
    bad = tmp_path / "s" / "bad-h2.jsonl"
    bad.write_text('{"metric": "loss", "status": "ok"}\n{not json\n')
    with pytest.raises(CorruptResultsError, match="bad-h2.jsonl is corrupt at line 2"):
        store.load("s")
    assert bad.exists() and store.find("s", "h1").exists()
