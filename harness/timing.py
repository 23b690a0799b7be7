"""Timing on a shared machine: CPU contention around each repeat, latency, and ratios of latencies.

Latency comes from ``torch.utils.benchmark.Timer`` (warm-up, block size chosen so timer overhead is negligible,
accelerator synchronised before each reading). Every block is a repeat; around each one the machine's CPU use
by *other* processes (/proc/stat minus this process) and the CPU pressure stall time (/proc/pressure/cpu,
microsecond resolution) are sampled, so repeats taken while another process held a core can be dropped instead
of moving the median (on a shared 2-core machine they move it by 2x). harness/measure.py re-exports these.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

#: a repeat is contaminated when another process kept CPUs waiting for this share of its wall time
MAX_STALL = 0.10
#: ... or used this many cores on average during it
MAX_OTHER_CPU = 0.25
#: fewer clean repeats than this and all repeats are kept (the timing is then marked contaminated)
MIN_CLEAN = 3
#: how a contended figure is marked wherever it is shown (report, index, ``bench compare``)
CONTENDED_MARK = " (contended)"


# --------------------------------------------------------------------------- CPU contention


def _clock_ticks() -> int:
    try:
        return os.sysconf("SC_CLK_TCK")
    except (ValueError, OSError, AttributeError):
        return 100


_TICKS = _clock_ticks()


@dataclass(frozen=True)
class CpuSnapshot:
    """Counters read at one instant: wall clock, this process's CPU time, all CPUs' busy time, stall."""

    wall: float
    self_cpu: float
    busy: float | None
    stall: float | None

    @staticmethod
    def now() -> CpuSnapshot:
        return CpuSnapshot(time.perf_counter(), time.process_time(), _busy_seconds(), _stall_seconds())


def _busy_seconds() -> float | None:
    """CPU-seconds all CPUs spent busy since boot (user+nice+system+irq+softirq+steal), or None."""
    try:
        with open("/proc/stat") as fh:
            fields = fh.readline().split()
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[1:9])
    return (user + nice + system + irq + softirq + steal) / _TICKS


def _stall_seconds() -> float | None:
    """Seconds during which some runnable task waited for a CPU (Linux PSI ``some total``), or None."""
    try:
        with open("/proc/pressure/cpu") as fh:
            line = fh.readline()
    except OSError:
        return None
    return int(line.rsplit("total=", 1)[1]) / 1e6


def contention(before: CpuSnapshot, after: CpuSnapshot) -> tuple[float | None, float | None]:
    """(cores used by other processes, fraction of wall time with a task waiting for a CPU)."""
    wall = max(after.wall - before.wall, 1e-9)
    other = (
        None
        if before.busy is None or after.busy is None
        else max(0.0, (after.busy - before.busy) - (after.self_cpu - before.self_cpu)) / wall
    )
    stall = None if before.stall is None or after.stall is None else min(1.0, (after.stall - before.stall) / wall)
    return other, stall


def spare_cores() -> float:
    """Cores this process leaves idle: those it may run on beyond its intra-op threads (one worker of
    ``workers=2`` on 2 cores leaves one to its sibling, which then does not contend with it)."""
    from harness.cores import available_cores

    return float(max(0, available_cores() - torch.get_num_threads()))


def is_contended(other_cpu: float | None, stall: float | None, spare: float = 0.0) -> bool:
    """The one rule for every timing: another process took CPU this one needed. Some task waited for a CPU over
    MAX_STALL of the wall time, or other processes used over MAX_OTHER_CPU cores beyond the ``spare`` ones."""
    return (stall is not None and stall > MAX_STALL) or (other_cpu is not None and other_cpu > spare + MAX_OTHER_CPU)


def contended(extra: Any) -> bool | None:
    """Whether a record's timing was contended (its ``extra`` says so), or None for a record that is no timing."""
    if not isinstance(extra, dict) or "contaminated" not in extra:
        return None
    return bool(extra["contaminated"])


class LoadMeter:
    """The load other processes put on the CPUs over a long stretch of work (a training run), window by window.

    ``window()`` closes a window (the training loop calls it at each of its checks); ``summary()`` gives the
    record fields: the other processes' mean cores and stall share over the whole stretch, the share of its
    wall time spent in contended windows, and ``contaminated``: the stretch as a whole was contended
    (``is_contended`` on its means). A throughput is one figure over the whole stretch, so unlike a latency's
    repeats no window can be dropped: the mark says the figure is not the machine's alone.
    """

    def __init__(self) -> None:
        self.start = self.last = CpuSnapshot.now()
        self.spare = spare_cores()
        #: (wall seconds, other processes' cores, stall share) per window
        self.windows: list[tuple[float, float | None, float | None]] = []

    def window(self) -> None:
        now = CpuSnapshot.now()
        other, stall = contention(self.last, now)
        self.windows.append((now.wall - self.last.wall, other, stall))
        self.last = now

    def summary(self) -> dict[str, Any]:
        if not self.windows:
            self.window()
        other, stall = contention(self.start, self.last)
        wall = sum(w for w, _, _ in self.windows) or 1e-9
        busy = sum(w for w, o, s in self.windows if is_contended(o, s, self.spare))
        return {
            "contaminated": is_contended(other, stall, self.spare),
            "other_cpu_mean": None if other is None else round(other, 3),
            "stall_mean": None if stall is None else round(stall, 3),
            "contended_share": round(busy / wall, 3),
            "spare_cores": self.spare,
            "load_windows": len(self.windows),
        }


def combined_load(loads: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The load of a time summed over several trainings: contended when any of them was."""
    known = [load for load in loads if "contaminated" in load]
    if not known:
        return {}
    return {
        "contaminated": any(load["contaminated"] for load in known),
        "trainings": len(known),
        "contended_trainings": sum(bool(load["contaminated"]) for load in known),
    }


# --------------------------------------------------------------------------- latency


def synchronize(device: str) -> None:
    """Wait for the device's queued work (CUDA runs asynchronously), so a wall-clock reading is honest."""
    if device.startswith("cuda"):
        torch.cuda.synchronize(device)


@dataclass
class Timing:
    """Per-call seconds of every repeat (one Timer block each) and the contention during it."""

    times: list[float]
    number: int
    other_cpu: list[float | None] = field(default_factory=list)
    stall: list[float | None] = field(default_factory=list)
    #: cores the timed process left idle (``spare_cores``), which other processes may use without contending
    spare: float = 0.0

    def clean_mask(self) -> list[bool]:
        return [
            not is_contended(o, s, self.spare)
            for o, s in zip(self.other_cpu or [None] * len(self.times), self.stall or [None] * len(self.times))
        ]

    @property
    def contaminated(self) -> bool:
        return sum(self.clean_mask()) < MIN_CLEAN

    @property
    def kept(self) -> list[float]:
        """Clean repeats, or every repeat when too few are clean."""
        mask = self.clean_mask()
        return self.times if sum(mask) < MIN_CLEAN else [t for t, ok in zip(self.times, mask) if ok]

    @property
    def median(self) -> float:
        return statistics.median(self.kept)

    def quartiles(self) -> tuple[float, float]:
        kept = sorted(self.kept)
        if len(kept) < 2:
            return kept[0], kept[0]
        q = statistics.quantiles(kept, n=4, method="inclusive")
        return q[0], q[2]

    def summary(self, scale: float = 1e3) -> dict[str, Any]:
        """Record fields, times scaled (default: to milliseconds)."""
        q1, q3 = self.quartiles()
        others = [o for o in self.other_cpu if o is not None]
        stalls = [s for s in self.stall if s is not None]
        return {
            "q1": q1 * scale,
            "q3": q3 * scale,
            "iqr": (q3 - q1) * scale,
            "noise": (q3 - q1) / self.median,
            "repeats": len(self.times),
            "kept": len(self.kept),
            "calls_per_repeat": self.number,
            "contaminated": self.contaminated,
            "times": [t * scale for t in self.times],
            "kept_mask": self.clean_mask(),
            "other_cpu": [None if o is None else round(o, 3) for o in self.other_cpu],
            "stall": [None if s is None else round(s, 3) for s in self.stall],
            "other_cpu_median": statistics.median(others) if others else None,
            "stall_median": statistics.median(stalls) if stalls else None,
            "spare_cores": self.spare,
        }


def time_call(
    fn: Callable[[], Any], *, min_repeats: int = 5, min_run_time: float = 0.2, expected_s: float | None = None
) -> Timing:
    """Time ``fn`` with torch.utils.benchmark.Timer.blocked_autorange, sampling contention per block.

    ``expected_s`` (one call's duration, from a warm-up call) stretches the run so that about
    ``min_repeats`` blocks fit in it; if fewer were measured (the call got slower), more are added
    until there are ``min_repeats``.
    """
    from torch.utils.benchmark import Timer

    timer = Timer(stmt="fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
    times: list[float] = []
    others: list[float | None] = []
    stalls: list[float | None] = []
    last = [CpuSnapshot.now()]

    def sample(number: int, seconds: float) -> None:
        now = CpuSnapshot.now()
        o, s = contention(last[0], now)
        others.append(o)
        stalls.append(s)
        last[0] = now

    run_time, number = max(min_run_time, min_repeats * 1.05 * (expected_s or 0.0)), 1
    while len(times) < min_repeats:
        measurement = timer.blocked_autorange(callback=sample, min_run_time=run_time)
        number = measurement.number_per_run
        times += [t / number for t in measurement.raw_times]
        run_time = (min_repeats - len(times)) * 1.05 * statistics.median(measurement.raw_times)
        last[0] = CpuSnapshot.now()
    return Timing(times, number, others, stalls, spare_cores())


def bootstrap_ratio(a: Sequence[float], b: Sequence[float], n: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """median(a)/median(b) and its 95% bootstrap interval over repeats (the noise of a speed-up)."""
    rng = random.Random(seed)
    point = statistics.median(a) / statistics.median(b)
    ratios = sorted(
        statistics.median(rng.choices(a, k=len(a))) / statistics.median(rng.choices(b, k=len(b))) for _ in range(n)
    )
    return point, ratios[int(0.025 * n)], ratios[int(0.975 * n) - 1]


def any_contended(rows) -> bool:
    """Whether any measured record among ``rows`` is a timing taken under another process's load."""
    ok = rows[rows.status == "ok"]
    return "extra" in ok and any(contended(e) for e in ok.extra)
