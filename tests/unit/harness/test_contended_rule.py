"""One rule marks a timing contended (harness/timing.py); every view shows the mark and none ranks a marked value;
re-timing replaces only what it measured clean (bench/run/retime.py)."""

import pandas as pd
import pytest

import harness.timing as timing
from bench.compare.table import paired
from bench.index.columns import metric
from bench.run.retime import contended_metrics, merge, summary_lines
from harness.contract import Measurement
from harness.timing import CONTENDED_MARK, CpuSnapshot, LoadMeter, Timing, combined_load, contended, is_contended


def test_the_rule_counts_other_processes_beyond_the_cores_left_idle():
    assert is_contended(0.3, 0.0) and not is_contended(0.2, 0.05)
    assert is_contended(0.0, 0.11)  # a task waited for a CPU over 10% of the time
    # one worker of two on 2 cores leaves its sibling a core: the sibling's core is not contention, waiting is
    assert not is_contended(1.0, 0.02, spare=1.0) and is_contended(1.3, 0.0, spare=1.0)
    assert is_contended(1.0, 0.3, spare=1.0)
    assert not is_contended(None, None)
    t = Timing([1.0, 1.0, 1.0], 1, other_cpu=[1.0, 1.0, 1.0], stall=[0.0, 0.0, 0.0], spare=1.0)
    assert not t.contaminated and t.summary()["spare_cores"] == 1.0


def test_a_load_meter_marks_a_stretch_by_its_means(monkeypatch):
    readings = iter(
        [
            CpuSnapshot(0.0, 0.0, 0.0, 0.0),
            CpuSnapshot(1.0, 1.0, 1.0, 0.0),  # a quiet window
            CpuSnapshot(2.0, 2.0, 4.0, 0.8),
        ]
    )  # a busy one
    monkeypatch.setattr(timing.CpuSnapshot, "now", staticmethod(lambda: next(readings)))
    monkeypatch.setattr(timing, "spare_cores", lambda: 0.0)
    meter = LoadMeter()
    meter.window()
    meter.window()
    load = meter.summary()
    # over 2 s other processes used 2 CPU-seconds (1 core on average) and a task waited 40% of the time
    assert load["other_cpu_mean"] == pytest.approx(1.0) and load["stall_mean"] == pytest.approx(0.4)
    assert load["contaminated"] is True and load["contended_share"] == pytest.approx(0.5)
    assert combined_load([load, {**load, "contaminated": False}]) == {
        "contaminated": True,
        "trainings": 2,
        "contended_trainings": 1,
    }
    assert combined_load([{}]) == {}
    assert contended(load) is True and contended({"x": 1}) is None and contended(None) is None


def _frame(values, busy):
    rows = []
    for variant, seeds in values.items():
        for seed, value in enumerate(seeds):
            rows.append(
                {
                    "variant": variant,
                    "seed": seed,
                    "metric": "decode_latency",
                    "value": value,
                    "x": 64.0,
                    "x_name": "context",
                    "status": "ok",
                    "unit": "ms",
                    "higher_is_better": False,
                    "extra": {"contaminated": (variant, seed) in busy, "q1": value, "q3": value},
                }
            )
    return pd.DataFrame(rows)


def test_compare_shows_a_contended_timing_and_never_ranks_it():
    frame = _frame({"a": [1.0, 1.1, 1.0], "b": [2.0, 2.1, 2.0]}, busy={("b", 1)})
    (c,) = paired(frame, "a", "b")
    assert c.contended_b == 1 and c.contended_a == 0
    assert c.direction() == "not ranked (contended timing)"
    assert "not ranked" in c.verdict() and "worse" not in c.verdict()
    (clean,) = paired(_frame({"a": [1.0, 1.1, 1.0], "b": [2.0, 2.1, 2.0]}, busy=set()), "a", "b")
    assert clean.direction() == "worse"


def test_an_index_cell_of_a_contended_timing_is_marked_and_flagged():
    frame = _frame({"a": [1.0]}, busy={("a", 0)}).assign(spec=[{"max_len": 64}], profile_settings=[{}])
    reading = metric("decode_latency", 2, at=1, timing=True)(frame, frame.iloc[0])
    assert reading.contended and reading.text.endswith(CONTENDED_MARK)
    quiet = _frame({"a": [1.0]}, busy=set()).assign(spec=[{"max_len": 64}], profile_settings=[{}])
    assert not metric("decode_latency", 2, at=1, timing=True)(quiet, quiet.iloc[0]).contended


def _record(metric_name, value, busy, x=None, **extra):
    return {
        "metric": metric_name,
        "value": value,
        "x": x,
        "status": "ok",
        "timestamp": "t0",
        "extra": {"contaminated": busy, "other_cpu_mean": 1.5, **extra},
    }


def test_retiming_replaces_only_what_it_measured_clean_and_keeps_the_old_value():
    records = [
        _record("train_time", 60.0, True),
        _record("train_throughput", 900.0, True),
        _record("decode_latency", 9.0, True, x=64.0, multiplier=1),
        _record("decode_latency", 3.0, False, x=512.0),
        _record("prefill_latency", 7.0, True, x=64.0),
        {"metric": "perplexity", "value": 4.2, "x": 64.0, "status": "ok", "extra": {}},
    ]
    assert contended_metrics(records) == ["train_time", "train_throughput", "decode_latency@64", "prefill_latency@64"]
    fresh = [
        Measurement("train_throughput", 2000.0, extra={"contaminated": False}),
        Measurement("decode_latency", 4.0, x=64.0, extra={"contaminated": False, "multiplier": 1}),
        Measurement("decode_latency", 3.1, x=512.0, extra={"contaminated": False}),
        Measurement("prefill_latency", 8.0, x=64.0, extra={"contaminated": True}),
    ]
    merged, done = merge(records, fresh, "job")
    assert done.replaced == ["train_throughput", "decode_latency@64"]
    assert done.still == ["prefill_latency@64"] and done.kept == ["train_time"]
    by = {(r["metric"], r["x"]): r for r in merged}
    assert by[("train_throughput", None)]["value"] == 2000.0
    assert by[("train_throughput", None)]["extra"]["contended_before"]["value"] == 900.0
    assert (
        by[("decode_latency", 64.0)]["extra"]["multiplier"] == 1
        and "retimed_at" in by[("decode_latency", 64.0)]["extra"]
    )
    assert by[("decode_latency", 512.0)]["value"] == 3.0  # a clean timing is never replaced
    assert by[("prefill_latency", 64.0)]["value"] == 7.0 and by[("train_time", None)]["value"] == 60.0
    assert len(merged) == len(records)


def test_bench_run_names_the_command_that_retimes_or_says_it_cannot():
    class Job:
        label = "rope-s0"

    class Found:
        job, metrics = Job(), ["train_throughput"]

    class Suite:
        name, retimes = "language_modeling", True

    lines = summary_lines([Found()], Suite(), "bench run suite=language_modeling")
    assert "rope-s0: train_throughput" in lines[1] and "`bench run suite=language_modeling retime=true`" in lines[-1]
    Suite.retimes = False
    assert "training again" in summary_lines([Found()], Suite(), "bench run")[-1]
    assert summary_lines([], Suite(), "bench run") == []


def test_a_throughput_stored_before_loads_were_recorded_is_taken_again_too():
    old = {"metric": "train_throughput", "value": 500.0, "x": None, "status": "ok", "timestamp": "t0", "extra": {}}
    assert contended_metrics([old]) == [] and contended_metrics([old], unrecorded=True) == ["train_throughput"]
    merged, done = merge([old], [Measurement("train_throughput", 800.0, extra={"contaminated": False})], "job")
    assert done.replaced == ["train_throughput"] and merged[0]["value"] == 800.0
    assert merged[0]["extra"]["contended_before"] == {"value": 500.0, "timestamp": "t0", "contaminated": None}


def test_a_contended_timing_judges_nothing(monkeypatch):
    """Suite.findings hands the verdicts the group without its contended timings (the report still shows them)."""
    import pandas as pd

    from harness.contract import suites

    suite = suites.get("kv_cache")
    seen = {}

    def judge_all(suite, records):
        seen["variants"] = list(records.variant)
        return []

    monkeypatch.setattr("harness.claims.judge_all", judge_all)  # what every claim module would be handed
    records = pd.DataFrame(
        {
            "variant": ["quiet", "busy", "bytes"],
            "metric": ["decode_latency", "decode_latency", "cache_bytes"],
            "extra": [{"contaminated": False}, {"contaminated": True}, {}],
            "device": ["cpu"] * 3,
        }
    )
    assert suite.findings(records) == [] and seen["variants"] == ["quiet", "bytes"]
