"""The record schema (harness/records.py) as the store reads it: a format version a later bench may raise, one typed
definition of every key, and a malformed record set aside with one warning naming the file, the line and the key
while the job's other files are read."""

import json

import pytest
from test_store import said, store  # noqa: F401 (fixtures)

from harness.records import MAX_DEPTH, SCHEMA_VERSION, depth, newer_schema, schema_problem
from harness.store import CorruptResultsError, NewerRecordsError


def record(**kw):
    return {
        "metric": "loss",
        "status": "ok",
        "value": 1.0,
        "variant": "rope",
        "seed": 0,
        "schema_version": SCHEMA_VERSION,
        "profile_settings": {"steps": 5, "lr": 0.01, "data": "pydoc", "eval_multipliers": [1, 2]},
        **kw,
    }


def nested(levels):
    value = 1
    for _ in range(levels):
        value = {"a": value}
    return value


def test_a_record_of_this_format_and_one_from_before_versions_are_read():
    assert schema_problem(record()) is None
    old = record()
    del old["schema_version"]
    assert schema_problem(old) is None and newer_schema(old) is None


MALFORMED = [
    ({"x": "12"}, "'x'"),
    ({"x": [1, 2]}, "'x'"),
    ({"profile_settings": [1, 2]}, "'profile_settings'"),
    ({"profile_settings": {"data": "<script>alert(1)</script>"}}, "'profile_settings'"),
    ({"profile_settings": {"steps": {"nested": 1}}}, "'profile_settings'"),
    ({"variant": "$\\frac{a}{$"}, "'variant'"),
    ({"variant": "<b>rope</b>"}, "'variant'"),
    ({"names": ["rope", "a|b"]}, "'names'"),
    ({"metric": "loss\n# injected"}, "'metric'"),
    ({"unit": "$^$"}, "'unit'"),
    ({"seed": 1.5}, "'seed'"),
    ({"seed": True}, "'seed'"),
    ({"value": "1.0"}, "'value'"),
    ({"higher_is_better": "yes"}, "'higher_is_better'"),
    ({"suite_version": "2"}, "'suite_version'"),
    ({"schema_version": 0}, "'schema_version'"),
    ({"wall_time_s": None}, "'wall_time_s'"),
    ({"extra": nested(MAX_DEPTH + 1)}, "nests"),
]


@pytest.mark.parametrize("change,named", MALFORMED, ids=[next(iter(c)) + str(i) for i, (c, _) in enumerate(MALFORMED)])
def test_each_malformed_key_is_named(change, named):
    problem = schema_problem(record(**change))
    assert problem is not None and named in problem


@pytest.mark.parametrize("change,named", MALFORMED[:6], ids=[next(iter(c)) for c, _ in MALFORMED[:6]])
def test_a_malformed_record_is_set_aside_with_its_file_line_and_key_and_the_rest_read(
    store, tmp_path, said, change, named
):
    store.write("s", "h1", "good", [record(value=1.0)])
    bad = tmp_path / "s" / "bad-h2.jsonl"
    bad.write_text(json.dumps(record(value=2.0)) + "\n" + json.dumps(record(value=3.0, **change)) + "\n")
    assert [r["value"] for r in store.load("s")] == [1.0]
    assert len(said) == 1 and "bad-h2.jsonl is corrupt at line 2" in said[0] and named in said[0]
    assert bad.exists()


def test_a_record_nested_past_the_parser_is_damaged_not_a_crash(store, tmp_path, said):
    store.write("s", "h1", "good", [record()])
    (tmp_path / "s" / "deep-h2.jsonl").write_text('{"metric": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    assert len(store.load("s")) == 1
    assert any("deep-h2.jsonl is corrupt at line 1" in s for s in said)


def test_a_future_format_is_refused_in_one_sentence_kept_and_never_set_aside(store, tmp_path, said):
    store.write("s", "h1", "good", [record()])
    future = tmp_path / "s" / "rope-s0-h2.jsonl"
    future.write_text(json.dumps(record(schema_version=SCHEMA_VERSION + 1, x="a new meaning")) + "\n")
    assert len(store.load("s")) == 1
    assert len(said) == 1 and f"format {SCHEMA_VERSION + 1}" in said[0] and "update bench" in said[0]
    with pytest.raises(NewerRecordsError):
        store.read_file(future)
    text = future.read_text()
    store.write("s", "h2", "alibi-s0", [record()])  # storing a job of that hash leaves the later bench's file alone
    assert future.read_text() == text and not list((tmp_path / "s").glob("*.corrupt*"))


def test_a_newer_format_is_a_kind_of_unreadable_file():
    assert issubclass(NewerRecordsError, CorruptResultsError)


def test_depth_counts_without_recursion():
    assert depth(1) == 0 and depth({"a": [1]}) == 2 and depth(nested(10_000)) == 10_000
