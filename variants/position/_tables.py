"""Position tables kept on the device they serve and grown on demand.

A table of rows for positions 0 .. capacity - 1 (sinusoid vectors, RoPE's cos and sin) is built once per
(kind, shape, dtype, device), in float64 and then cast as the encoding always did, and a call for positions
offset .. offset + T - 1 slices it. Each row is computed elementwise from its own position, so a slice is
bit-identical to the table built for those positions alone (tests/unit/variants/test_positions.py checks it). Asked
for a row past its capacity, the table is rebuilt at least twice as long, so decoding token by token
rebuilds it a logarithmic number of times instead of building a row table per step.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import torch

#: smallest capacity built (positions), so short sequences and single decode steps share one table
MIN_ROWS = 256
#: tables kept at once; past it every table is dropped (a dynamic RoPE scaling makes one per scale)
MAX_TABLES = 64

Tables = tuple[torch.Tensor, ...]
_TABLES: dict[Hashable, Tables] = {}


@dataclass(frozen=True, eq=False)
class DevicePosition:
    """The position of a decode step held on the device, (1,) int64, below ``capacity``: a step at such a position
    has the same shapes and host work wherever it is, so it can be captured in a CUDA graph and replayed at the
    next position after ``index`` is advanced (variants/decode/static_decode.py). The encodings whose class sets
    ``static_positions`` take one wherever they take an offset."""

    index: torch.Tensor
    capacity: int
    #: the tables this position's steps read, by key: a captured step replays their addresses, so they must live
    #: as long as it does, even after the shared cache grows or drops them
    held: dict[Hashable, Tables] = field(default_factory=dict, repr=False)

    def rows(self, length: int) -> torch.Tensor:
        """(length,) int64 positions index .. index + length - 1, on the device."""
        return self.index + torch.arange(length, device=self.index.device)


Offset = int | DevicePosition


def table_rows(key: Hashable, offset: Offset, length: int, build: Callable[[int], Tables]) -> Tables:
    """Rows offset .. offset + length - 1 of each tensor ``build(capacity)`` returns for ``key``.

    ``build(n)`` returns tensors whose first dimension is the position 0 .. n - 1, on their device and dtype.
    A DevicePosition offset gathers its rows on the device from a table of its whole capacity.
    """
    if isinstance(offset, DevicePosition):
        tables = table_rows(key, 0, offset.capacity + length, build)
        offset.held[key] = tables
        return tuple(t.index_select(0, offset.rows(length)) for t in tables)
    need = offset + length
    tables = _TABLES.get(key)
    if tables is None or tables[0].shape[0] < need:
        capacity = max(need, MIN_ROWS, 2 * tables[0].shape[0] if tables is not None else 0)
        # ordinary tensors even when first asked for under inference mode, so training can use them too
        with torch.inference_mode(False), torch.no_grad():
            tables = tuple(build(capacity))
        if len(_TABLES) >= MAX_TABLES:
            _TABLES.clear()
        _TABLES[key] = tables
    return tuple(t[offset:need] for t in tables)


def clear_tables() -> None:
    """Drop every cached table (they are rebuilt on the next call)."""
    _TABLES.clear()
