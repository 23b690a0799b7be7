"""Measurement primitives of the cost suites: latency, peak memory, FLOPs, matmul peak, memory bandwidth and CPU
contention.

- Latency and CPU contention: harness/timing.py (``time_call``, ``Timing``, ``bootstrap_ratio``, ``contention``),
  re-exported here; ``timed`` turns one timed call into a Measurement under a cost suite's discipline (a warm-up
  call, a cap on its duration, repeats with the contention filter, quartiles), for any suite that times a model.
- Peak memory: on CUDA ``torch.cuda.max_memory_allocated`` around the call; on CPU the profiler's
  allocator events, summed in time order, give the most bytes the call held at once (exact: it matches
  analytic sizes; process RSS carries the interpreter and the allocator's cached pages).
- Memory bandwidth: one large copy (``copy_bandwidth``, bytes read + written) and one large reduction
  (``read_bandwidth``, bytes read only), each timed as ``timed`` times any call.
- FLOPs: ``torch.utils.flop_counter``. Its registry lacks PyTorch's fused CPU attention ops, so the
  same formulas as for the CUDA flash kernel are registered for them here (otherwise SDPA on CPU counts 0).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch

from harness.contract import Measurement
from harness.timing import (  # noqa: F401
    MAX_OTHER_CPU,
    MAX_STALL,
    MIN_CLEAN,
    CpuSnapshot,
    Timing,
    bootstrap_ratio,
    contention,
    synchronize,
    time_call,
)

# --------------------------------------------------------------------------- a timed measurement


def seconds(fn: Callable[[], Any], device: str) -> tuple[float, Any]:
    """(wall time of one call of ``fn``, the device synchronised before and after; its result)."""
    synchronize(device)
    start = time.perf_counter()
    result = fn()
    synchronize(device)
    return time.perf_counter() - start, result


def timed(
    metric: str,
    fn: Callable[[], Any],
    device: str,
    *,
    min_repeats: int,
    min_run_time: float,
    max_call_s: float,
    where: dict[str, Any] | None = None,
    first: float | None = None,
) -> Measurement:
    """``metric`` in ms per call of ``fn``: the median of the clean repeats (``time_call``) with the timing's summary
    (quartiles, noise, repeats kept, contention) in ``extra``; skipped, with the reason, when one call (``first``, or a
    warm-up call now) takes over ``max_call_s``. ``where``: the Measurement's x, x_name and extra."""
    where = dict(where or {})
    if first is None:
        first = seconds(fn, device)[0]
    if first > max_call_s:
        return Measurement(
            metric,
            None,
            status="skipped",
            reason=f"one call took {first:.2f} s, over this profile's max_call_s={max_call_s:g}",
            **where,
        )
    timing = time_call(fn, min_repeats=min_repeats, min_run_time=min_run_time, expected_s=first)
    return Measurement(
        metric, timing.median * 1e3, **{**where, "extra": {**where.get("extra", {}), **timing.summary()}}
    )


# --------------------------------------------------------------------------- memory bandwidth


def copy_bandwidth(device: str, mib: int, **timing: Any) -> Measurement:
    """``copy_bandwidth`` in GB/s: one copy of ``mib`` MiB on ``device``, counting the bytes read and the bytes
    written (as STREAM's copy). ``timing``: ``timed``'s min_repeats, min_run_time and max_call_s."""
    source = torch.ones(mib * 2**20, dtype=torch.uint8, device=device)  # (mib * 2^20,) bytes
    target = torch.empty_like(source)
    measured = timed("copy_bandwidth", lambda: target.copy_(source), device, **timing)
    moved = 2 * source.numel()
    return _rate(measured, moved, bytes_moved=moved, copy_ms=measured.value)


def read_bandwidth(device: str, mib: int, **timing: Any) -> Measurement:
    """``read_bandwidth`` in GB/s: the sum of ``mib`` MiB of float32 on ``device``, counting the bytes read only.

    A cached decode step reads its weights and cache and writes a few KiB, so its ceiling is a read rate; the copy
    counts every byte twice (read, then written) and runs at the rate of the two together. ``timing``: ``timed``'s
    min_repeats, min_run_time and max_call_s.
    """
    source = torch.ones(mib * 2**20 // 4, dtype=torch.float32, device=device)  # (mib * 2^18,) floats, one scalar out
    measured = timed("read_bandwidth", lambda: source.sum(), device, **timing)
    read = source.numel() * source.element_size()
    return _rate(measured, read, bytes_read=read, read_ms=measured.value, op="torch.sum of float32")


def _rate(measured: Measurement, moved: int, **extra: Any) -> Measurement:
    """A timed call (ms) as ``moved`` bytes per its median time in GB/s; a call not timed (skipped) as it is."""
    if measured.status != "ok":
        return measured
    return dataclasses.replace(measured, value=moved / (measured.value * 1e-3) / 1e9, extra={**measured.extra, **extra})


# --------------------------------------------------------------------------- memory


@contextlib.contextmanager
def _quiet_stderr():
    """Silence file descriptor 2 (the profiler's C++ start/stop log lines)."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


_tools_ready = False


def warm_up_tools() -> None:
    """The profiler's first start and the FLOP counter's first use (it imports torch._dynamo) take
    seconds each; pay for them once per process, outside any measurement."""
    global _tools_ready
    if not _tools_ready:
        from torch.profiler import ProfilerActivity, profile

        _tools_ready = True
        with _quiet_stderr(), profile(activities=[ProfilerActivity.CPU], profile_memory=True):
            count_flops(lambda: torch.ones(2, 2) @ torch.ones(2, 2))


@contextlib.contextmanager
def threads(count: int):
    """Run with ``count`` intra-op threads (0: leave torch's setting), restoring the previous count."""
    before = torch.get_num_threads()
    if count > 0 and count != before:
        torch.set_num_threads(count)
    try:
        yield torch.get_num_threads()
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


def peak_memory(fn: Callable[[], Any], device: str) -> tuple[int, Any, str]:
    """(most bytes ``fn`` held at once beyond what existed before it, its result, method name)."""
    if device.startswith("cuda"):
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        base = torch.cuda.memory_allocated(device)
        result = fn()
        torch.cuda.synchronize(device)
        return torch.cuda.max_memory_allocated(device) - base, result, "torch.cuda.max_memory_allocated"
    from torch.profiler import ProfilerActivity, profile

    warm_up_tools()
    with _quiet_stderr(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        result = fn()
    events = sorted(
        (e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"), key=lambda e: e.start_ns()
    )
    held = peak = 0
    for event in events:  # nbytes > 0 allocates, < 0 frees
        held += event.nbytes()
        peak = max(peak, held)
    return peak, result, "profiler allocator events (max bytes held during the call)"


def available_memory() -> int | None:
    """Bytes of memory the system can still hand out (MemAvailable of /proc/meminfo), or None."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


# --------------------------------------------------------------------------- FLOPs


def _register_cpu_attention_flops() -> None:
    from torch.utils import flop_counter as fc

    aten = torch.ops.aten
    pairs = (
        ("_scaled_dot_product_flash_attention_for_cpu", fc.sdpa_flop),
        ("_scaled_dot_product_flash_attention_for_cpu_backward", fc.sdpa_backward_flop),
    )
    for name, formula in pairs:
        op = getattr(aten, name, None)
        if op is not None and op not in fc.flop_registry and op.default not in fc.flop_registry:
            fc.register_flop_formula(op, get_raw=True)(formula)  # formula already takes shapes


_register_cpu_attention_flops()


def _with_query_heads(query_shape, *shapes):
    """``shapes`` (key, value, ...: (B, Hkv, S, D)) with Hkv widened to the query's H when H is a multiple of it."""
    if len(query_shape) != 4:
        return shapes
    heads = query_shape[1]
    return tuple(tuple(s) if len(s) != 4 or s[1] == heads or heads % s[1] else (s[0], heads, *s[2:]) for s in shapes)


def _count_grouped_attention_flops() -> None:
    """Let torch's attention FLOP formulas count grouped K/V (GQA/MQA) as the K/V heads broadcast to the queries.

    Before torch 2.12 (pytorch/pytorch#177188) ``sdpa_flop_count`` asserted equal head counts, so counting FLOPs
    of a fused SDPA call with ``enable_gqa`` (flash or cuDNN on CUDA in bfloat16) raised AssertionError and the
    case was recorded as failed; where the formula already takes grouped heads the count is unchanged.
    """
    from torch.utils import flop_counter as fc

    forward, backward = fc.sdpa_flop_count, fc.sdpa_backward_flop_count
    if getattr(forward, "_bench_grouped", False):
        return

    def sdpa_flop_count(query_shape, key_shape, value_shape):
        return forward(query_shape, *_with_query_heads(query_shape, key_shape, value_shape))

    def sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape):
        return backward(grad_out_shape, query_shape, *_with_query_heads(query_shape, key_shape, value_shape))

    sdpa_flop_count._bench_grouped = sdpa_backward_flop_count._bench_grouped = True
    fc.sdpa_flop_count, fc.sdpa_backward_flop_count = sdpa_flop_count, sdpa_backward_flop_count


_count_grouped_attention_flops()


def count_flops(fn: Callable[[], Any]) -> tuple[int, Any]:
    """(FLOPs torch.utils.flop_counter counts while ``fn`` runs, its result)."""
    from torch.utils.flop_counter import FlopCounterMode

    import harness.rnn_flops  # noqa: F401  (the fused CPU LSTM's formulas)

    with FlopCounterMode(display=False) as counter:
        result = fn()
    return counter.get_total_flops(), result


# --------------------------------------------------------------------------- matmul peak


def matmul_peak(
    device: str, dtype: torch.dtype, sizes: Sequence[int] = (1024, 2048), min_run_time: float = 0.3
) -> tuple[float, dict[str, Any]]:
    """The best FLOP/s of a square matmul on ``device`` in ``dtype``: the fastest repeat of the best size.

    A peak is what the device can do, so the fastest repeat is taken (on a shared machine the median would
    carry other processes' load, and a kernel's share of the peak could exceed 100%).
    """
    best, detail = 0.0, {}
    for n in sizes:
        a = torch.randn(n, n, device=device).to(dtype)
        b = torch.randn(n, n, device=device).to(dtype)
        fn = lambda: torch.mm(a, b)  # noqa: E731
        synchronize(device)
        start = time.perf_counter()
        fn()
        synchronize(device)
        timing = time_call(fn, min_run_time=min_run_time, expected_s=time.perf_counter() - start)
        rate = 2.0 * n**3 / min(timing.times)
        detail[str(n)] = {"flops_per_s": rate, **{k: v for k, v in timing.summary().items() if k != "times"}}
        best = max(best, rate)
    return best, detail
