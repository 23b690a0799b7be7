"""What this machine's devices can do, as kernels' declarations read it: one table, fakeable in tests.

Kernels declare what they support per device (dtypes, score bias, GQA, head dimensions); whether a device
is present and whether an optional library's op really runs are facts of the machine, gathered here once.
A library that imports is not yet a library that runs: xformers' wheel imports under a torch it was not
built for and then fails at its first call, so availability is decided by ``probe``, which runs the op
once, keeps the answer (None, or the reason it failed) and reports that reason wherever the kernel is
planned. ``faked(table)`` replaces the whole table, so capability logic is tested on a CPU machine.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch


@dataclass(frozen=True)
class DeviceTable:
    """Facts of one machine: which device types torch can use, CUDA's compute capability, probe answers.

    ``probes`` maps a probe's name to None (its op ran) or the reason it failed; a name absent from it is
    probed for real when first asked (only on a table that is not faked).
    """

    cuda: bool = False
    compute_capability: tuple[int, int] | None = None
    probes: dict[str, str | None] = field(default_factory=dict)
    faked: bool = False

    def present(self, device: str) -> bool:
        """Whether torch can use a device of this type here."""
        return device == "cpu" or (device == "cuda" and self.cuda)


_FAKES: list[DeviceTable] = []
_DETECTED: list[DeviceTable] = []


def current() -> DeviceTable:
    """The table in force: the innermost ``faked`` one, else this machine's (detected once)."""
    if _FAKES:
        return _FAKES[-1]
    if not _DETECTED:
        cuda = torch.cuda.is_available()
        _DETECTED.append(
            DeviceTable(cuda=cuda, compute_capability=torch.cuda.get_device_capability() if cuda else None)
        )
    return _DETECTED[0]


@contextlib.contextmanager
def faked(table: DeviceTable) -> Iterator[DeviceTable]:
    """Within this block kernels read ``table`` (marked faked) instead of this machine's facts."""
    table = DeviceTable(table.cuda, table.compute_capability, dict(table.probes), faked=True)
    _FAKES.append(table)
    try:
        yield table
    finally:
        _FAKES.pop()


def probe(name: str, run: Callable[[], None]) -> str | None:
    """None if ``run()`` (a tiny call of a library's op) succeeds, else why not, in one line; run once per process.

    A faked table answers from its ``probes`` (a name it lacks counts as running), so a test never runs the op.
    """
    table = current()
    if name in table.probes:
        return table.probes[name]
    if table.faked:
        return None
    try:
        run()
        answer = None
    except Exception as exc:  # any failure of the op is the answer: the kernel is unavailable, with this reason
        first = (str(exc).strip().splitlines() or [""])[0]
        answer = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    table.probes[name] = answer
    return answer
