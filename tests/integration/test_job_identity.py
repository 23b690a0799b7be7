"""A job's identity holds the versions of the libraries that compute it (harness.env.IDENTITY_LIBRARIES): the same
job under another torch is run again and stored beside the first, and a job stored before the versions counted is
found only when its records ran under the versions present."""

import json

from counting_suite import NAME, log, register, results, run, trainings  # noqa: F401 (fixtures)

import harness.env
from bench.run.plan import find_stored, job_hash
from harness.contract import suites
from harness.env import identity_libraries
from harness.store import ResultsStore


def test_the_same_job_under_another_torch_runs_again_and_both_records_stay(capsys, log, results, monkeypatch):
    assert run(capsys, results, "variants=[baseline]")[0] == 0
    code, out, _ = run(capsys, results, "variants=[baseline]")
    assert code == 0 and "0 to run, 1 stored" in out and trainings(log) == ["baseline-s0"]
    here = identity_libraries()
    monkeypatch.setattr(harness.env, "identity_libraries", lambda versions=None: {**here, "torch": "0.0.1-other"})
    code, out, _ = run(capsys, results, "variants=[baseline]")
    assert code == 0 and "1 to run, 0 stored" in out and trainings(log) == ["baseline-s0", "baseline-s0"]
    assert len(list((results / NAME).glob("baseline-s0-*.jsonl"))) == 2  # nothing stored before is lost


def _legacy_file(results, versions):
    """A job stored before the versions were part of the hash: its file under the hash without them."""
    suite = suites.get(NAME)
    profile = suite.profiles["quick"]
    spec = suite.base_spec(profile, {})
    legacy = job_hash(suite, spec, profile, 0, "cpu", "float32", "")
    folder = results / NAME
    folder.mkdir(parents=True, exist_ok=True)
    record = {"metric": "loss", "status": "ok", "value": 1.0, "variant": "baseline", "library_versions": versions}
    (folder / f"baseline-s0-{legacy}.jsonl").write_text(json.dumps(record) + "\n")
    return suite, profile, spec, legacy


def test_a_job_stored_before_the_versions_counted_is_found_under_the_same_versions(results):
    suite, profile, spec, legacy = _legacy_file(results, harness.env.library_versions())
    found, path = find_stored(
        ResultsStore(results), suite, spec, profile, 0, "cpu", "float32", "", identity_libraries()
    )
    assert found == legacy and path is not None


def test_a_job_stored_before_the_versions_counted_under_another_torch_is_not_this_job(results):
    other = {**harness.env.library_versions(), "torch": "0.0.1-other"}
    suite, profile, spec, legacy = _legacy_file(results, other)
    found, path = find_stored(
        ResultsStore(results), suite, spec, profile, 0, "cpu", "float32", "", identity_libraries()
    )
    assert found != legacy and path is None
