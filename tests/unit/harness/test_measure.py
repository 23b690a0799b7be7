"""Measurement primitives: exact peak memory, FLOPs of CPU SDPA, contention bookkeeping, speed-up intervals."""

import pytest
import torch

from harness.measure import (
    CpuSnapshot,
    Timing,
    bootstrap_ratio,
    contention,
    count_flops,
    peak_memory,
    threads,
    time_call,
)
from suites.attention_cost.check import Case, check_rows, compare, make_case, reference
from variants.kernel._base import kernels

MiB = 2**20


def test_peak_memory_is_the_most_bytes_held_at_once_beyond_existing_tensors():
    kept = torch.ones(MiB)  # existing before the call: not counted

    def fn():
        temp = torch.empty(MiB)  # 4 MiB, freed before the result is made
        del temp
        return torch.empty(MiB // 4) + kept[: MiB // 4]  # 1 MiB result, plus a 1 MiB temporary

    peak, result, method = peak_memory(fn, "cpu")
    assert peak == 4 * MiB and result.numel() == MiB // 4 and "profiler" in method


def test_naive_attention_memory_matches_its_score_matrices():
    q = k = v = torch.randn(1, 8, 256, 64)
    peak, _, _ = peak_memory(lambda: kernels.get("naive").attend(q, k, v, causal=False), "cpu")
    scores = 8 * 256 * 256 * 4  # (H, T, S) fp32: the scores and the softmax weights, plus the output
    assert peak == 2 * scores + 8 * 256 * 64 * 4


def test_flops_of_cpu_sdpa_are_counted_like_naive():
    q = k = v = torch.randn(1, 4, 64, 32)
    fused, _ = count_flops(lambda: kernels.get("sdpa").attend(q, k, v, causal=False))
    naive, _ = count_flops(lambda: kernels.get("naive").attend(q, k, v, causal=False))
    assert fused == naive == 4 * 4 * 64 * 64 * 32


def test_contention_is_other_processes_cpu_over_wall_time():
    a = CpuSnapshot(wall=10.0, self_cpu=1.0, busy=100.0, stall=5.0)
    b = CpuSnapshot(wall=10.5, self_cpu=1.5, busy=101.0, stall=5.25)
    other, stall = contention(a, b)
    assert other == pytest.approx(1.0) and stall == pytest.approx(0.5)


def test_contaminated_repeats_are_dropped_when_enough_stay_clean():
    t = Timing([1.0, 1.1, 5.0, 0.9, 1.0], number=1, other_cpu=[0, 0, 1.5, 0, 0], stall=[0, 0.01, 0.9, 0, 0.02])
    assert t.kept == [1.0, 1.1, 0.9, 1.0] and not t.contaminated and t.median == 1.0
    dirty = Timing([1.0, 2.0, 3.0], number=1, other_cpu=[1.0, 1.0, 0.0], stall=[0.5, 0.5, 0.0])
    assert dirty.kept == [1.0, 2.0, 3.0] and dirty.contaminated
    assert dirty.summary()["kept_mask"] == [False, False, True]


def test_time_call_measures_at_least_the_minimum_repeats_and_samples_each():
    x = torch.randn(64, 64)
    timing = time_call(lambda: x @ x, min_repeats=4, min_run_time=0.01, expected_s=0.001)
    assert len(timing.times) >= 4 and len(timing.other_cpu) == len(timing.times) == len(timing.stall)
    assert all(t > 0 for t in timing.times)


def test_bootstrap_ratio_brackets_the_ratio_of_medians():
    point, lo, hi = bootstrap_ratio([2.0, 2.1, 1.9, 2.0, 2.2], [1.0, 1.05, 0.95, 1.0, 1.1])
    assert point == pytest.approx(2.0) and lo <= point <= hi


def test_threads_restores_the_previous_count():
    before = torch.get_num_threads()
    with threads(1) as count:
        assert count == torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_check_rows_keep_the_ends_and_cover_the_sequence():
    rows = check_rows(4096, 256)
    assert rows[0] == 0 and rows[-1] == 4095 and len(rows) == 256
    assert torch.equal(check_rows(100, 256), torch.arange(100))


@pytest.mark.parametrize("causal", [False, True])
def test_the_sampled_row_check_passes_sdpa_and_catches_a_wrong_backward(causal):
    case = make_case(1, 4, 2, 8, 40, causal, None, torch.float32, "cpu", seed=1, rows=9)
    q, k, v = case.inputs(True)
    y = kernels.get("sdpa").attend(q, k, v, causal=causal)
    dq, dk, dv = torch.autograd.grad(y, (q, k, v), case.grad_rows)
    got = {"out": y, "dq": dq, "dk": dk, "dv": dv}
    want = reference(case, backward=True)
    assert compare(case, got, want).ok
    bad = compare(case, {**got, "dk": dk * 1.01}, want)
    assert not bad.ok and bad.worst == "dk" and "differs from naive" in bad.reason()
