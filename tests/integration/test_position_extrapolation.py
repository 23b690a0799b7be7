"""The suite end to end at a reduced size: records, statuses, report, figure, and resume."""

import pytest
from stored import load, report, runner

from suites.position_extrapolation.suite import PositionExtrapolation
from tests.tiny import POSITION, tiny


@pytest.fixture
def dirs(tmp_path):
    return tmp_path / "results", tmp_path / "reports"


run = runner(*tiny(base=POSITION))


def test_default_variants_end_to_end_with_report(dirs):
    results, reports = dirs
    assert run(results) == 0
    records = load(results)
    variants = {r["variant"] for r in records}
    assert variants == {"none", "sinusoidal", "learned", "rope", "alibi"}
    ppl = [r for r in records if r["metric"] == "perplexity"]
    assert {r["x"] for r in ppl} == {8.0, 16.0, 32.0, 64.0, 128.0}
    learned = [r for r in ppl if r["variant"] == "learned"]
    assert {r["x"]: r["status"] for r in learned} == {
        8.0: "ok",
        16.0: "unsupported",
        32.0: "unsupported",
        64.0: "unsupported",
        128.0: "unsupported",
    }
    assert all("without clipping" in r["reason"] for r in learned if r["status"] == "unsupported")
    for r in records:  # provenance on every record
        for key in (
            "spec",
            "spec_hash",
            "job_hash",
            "profile",
            "seed",
            "unit",
            "higher_is_better",
            "device",
            "torch_version",
            "git_commit",
            "data_checksum",
            "timestamp",
            "parameters",
            "flush_denormal",
        ):
            assert key in r, key
    assert all(r["status"] == "ok" for r in ppl if r["variant"] != "learned")
    assert all(r["flush_denormal"] is True for r in records)
    ok = [r for r in records if r["status"] == "ok"]
    assert all(2.0 < r["bigram_entropy"] < r["unigram_entropy"] < 3.5 for r in ok)  # pydoc: 2.48 and 3.25 nats

    report(
        results,
        reports,
        "position_extrapolation",
        phrases=(
            "nonoverlapping",
            "ppl(8L) / ppl(L)",
            "comparable",
            "Press et al. 2022",
            "(n=1)",
            "unsupported",
            "lr 0.006",
            "sha256",
            "Checks: did each model learn?",
            "bigram entropy",
            "did not learn",
            "read ",
        ),
        figures=("position_extrapolation.png",),
    )


def test_rerun_skips_stored_jobs_and_resumes_missing_ones(dirs, capsys):
    results, _ = dirs
    assert run(results, "variants=[rope,alibi]", "seeds=[0,1]") == 0
    files = sorted((results / "position_extrapolation").glob("*.jsonl"))
    assert len(files) == 4
    stamps = {p.name: p.stat().st_mtime_ns for p in files}
    files[0].unlink()  # as if the sweep had been interrupted before this job
    capsys.readouterr()
    assert run(results, "variants=[rope,alibi]", "seeds=[0,1]") == 0
    out = capsys.readouterr().out
    assert "1 to run, 3 stored" in out
    after = {p.name: p.stat().st_mtime_ns for p in (results / "position_extrapolation").glob("*.jsonl")}
    assert set(after) == set(stamps)
    assert all(after[n] == stamps[n] for n in stamps if n != files[0].name)


def test_an_interrupted_sweep_keeps_finished_jobs(dirs, monkeypatch):
    results, _ = dirs
    original = PositionExtrapolation.run_job

    def interrupt_on_alibi(self, spec, profile, seed, ctx):
        if spec.position == "alibi":
            raise KeyboardInterrupt
        return original(self, spec, profile, seed, ctx)

    monkeypatch.setattr(PositionExtrapolation, "run_job", interrupt_on_alibi)
    assert run(results, "variants=[rope,alibi]") == 130
    assert {r["variant"] for r in load(results)} == {"rope"}
    monkeypatch.setattr(PositionExtrapolation, "run_job", original)
    assert run(results, "variants=[rope,alibi]") == 0
    assert {r["variant"] for r in load(results)} == {"rope", "alibi"}


def test_failed_and_diverged_jobs_are_recorded_and_the_sweep_goes_on(dirs, monkeypatch):
    from harness.contract import Diverged

    results, _ = dirs
    original = PositionExtrapolation.run_job

    def flaky(self, spec, profile, seed, ctx):
        if spec.position == "rope":
            raise Diverged("loss became nan at step 3")
        if spec.position == "none":
            raise RuntimeError("boom")
        return original(self, spec, profile, seed, ctx)

    monkeypatch.setattr(PositionExtrapolation, "run_job", flaky)
    assert run(results, "variants=[rope,none,alibi]") == 1  # the failed job; a diverged one alone exits 0
    status = {r["variant"]: (r["status"], r["reason"]) for r in load(results) if r["metric"] == "job"}
    assert status["rope"] == ("diverged", "loss became nan at step 3")
    assert status["none"][0] == "failed" and "RuntimeError: boom" in status["none"][1]
    assert any(r["variant"] == "alibi" and r["status"] == "ok" for r in load(results))


def test_a_user_text_file_and_the_sliding_protocol(dirs, tmp_path):
    results, _ = dirs
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the quick brown fox jumps over the lazy dog. " * 400)
    assert run(results, "variants=[alibi]", f"data={corpus}", "protocol=sliding") == 0
    records = load(results)
    assert records[0]["corpus"] == "corpus.txt" and records[0]["protocol"] == "sliding"
    assert all(r["status"] == "ok" for r in records)


def test_a_missing_data_file_is_a_clear_error(dirs, capsys):
    results, _ = dirs
    assert run(results, "data=/no/such/file.txt") == 2
    assert "is neither 'pydoc', 'bible' nor a readable text file" in capsys.readouterr().err


def test_bfloat16_runs_under_autocast_and_is_recorded(dirs):
    results, _ = dirs
    assert run(results, "variants=[alibi+naive]", "dtype=bfloat16") == 0
    records = load(results)
    assert all(r["dtype"] == "bfloat16" and r["status"] == "ok" for r in records)


def test_submitit_executor_runs_jobs_in_subprocesses(dirs):
    pytest.importorskip("submitit")
    results, _ = dirs
    assert run(results, "variants=[rope]", "executor=submitit", "submitit.cluster=local", "submitit.timeout_min=5") == 0
    records = load(results)
    assert records and all(r["status"] in ("ok", "unsupported") for r in records)
    assert (results / ".submitit").is_dir()


def test_a_job_keeps_its_identity_whatever_other_seeds_are_asked_for(dirs, capsys):
    results, _ = dirs
    assert run(results, "variants=[none]", "seeds=[0]") == 0
    capsys.readouterr()
    assert run(results, "variants=[none]", "seeds=[0,1]", "dry_run=true") == 0
    assert "1 to run, 1 stored" in capsys.readouterr().out
