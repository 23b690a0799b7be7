"""The memory-bandwidth probes (harness/measure.py): the copy counts bytes read and written, the reduction bytes read
only; each rate is those bytes over the median time, and a probe over its call budget is skipped with the reason."""

import pytest

from harness.measure import copy_bandwidth, read_bandwidth

QUICK = dict(min_repeats=3, min_run_time=0.01, max_call_s=5.0)


def test_the_read_probe_counts_the_bytes_read_over_its_median_time():
    m = read_bandwidth("cpu", 4, **QUICK)
    assert m.metric == "read_bandwidth" and m.status == "ok"
    assert m.extra["bytes_read"] == 4 * 2**20
    assert m.value == pytest.approx(4 * 2**20 / (m.extra["read_ms"] * 1e-3) / 1e9)
    assert m.extra["q1"] <= m.extra["read_ms"] <= m.extra["q3"]  # the median call, with the timing's quartiles


def test_the_copy_probe_counts_each_byte_twice():
    m = copy_bandwidth("cpu", 4, **QUICK)
    assert m.metric == "copy_bandwidth" and m.extra["bytes_moved"] == 2 * 4 * 2**20
    assert m.value == pytest.approx(2 * 4 * 2**20 / (m.extra["copy_ms"] * 1e-3) / 1e9)


def test_a_probe_over_its_budget_is_skipped_with_the_reason():
    m = read_bandwidth("cpu", 4, **{**QUICK, "max_call_s": 0.0})
    assert m.metric == "read_bandwidth" and m.status == "skipped" and m.value is None
    assert "max_call_s=0" in m.reason
