"""The columns of the index's quality x cost table: what each reads from the records of one trained model.

Every column reads the same records: those of one model (one suite, one resolved spec, one group of records),
the quality its jobs scored and the cost the same jobs measured (suites/common/model_cost.py). A value is the
mean over seeds with its 95% interval; a timing of one seed carries its quartiles over repeats instead, the
timing's own interval, so that two costs whose intervals overlap can be drawn as a tie.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from harness.intervals import spread
from harness.report import fmt_mean_ci
from harness.timing import CONTENDED_MARK, any_contended


@dataclass(frozen=True)
class Reading:
    """One cell: its text, the per-seed values behind it (empty for a status such as 'unsupported') and its interval."""

    text: str
    values: tuple[float, ...] = ()
    #: (low, high) of the value: the 95% interval over seeds, or a single seed's timing quartiles; None when exact
    interval: tuple[float, float] | None = None
    #: a timing taken while another process held a CPU (harness/timing.py): marked, and never ranked
    contended: bool = False

    @property
    def mean(self) -> float:
        return sum(self.values) / len(self.values) if self.values else math.nan

    @property
    def bounds(self) -> tuple[float, float]:
        """(low, high), the mean twice when the value has no interval."""
        return self.interval if self.interval is not None else (self.mean, self.mean)


Reader = Callable[[pd.DataFrame, pd.Series], Reading | None]


@dataclass(frozen=True)
class Column:
    """A column: its key, its title (with its unit), the suites whose jobs measure it, and how it reads one model."""

    key: str
    title: str
    suites: tuple[str, ...]
    read: Reader
    #: a timing (its interval is a tie, not a ranking)
    timed: bool = False


def _status(rows: pd.DataFrame) -> Reading | None:
    """A cell for records that exist but measured nothing: their status and reason."""
    bad = rows[rows.status != "ok"]
    if not len(bad):
        return None
    r = bad.iloc[0]
    reason = r.get("reason")
    return Reading(f"{r.status}" + (f" ({reason})" if isinstance(reason, str) and reason else ""))


def _per_seed(rows: pd.DataFrame, field: str = "value") -> list[float]:
    ok = rows[rows.status == "ok"]
    if not len(ok):
        return []
    return [float(v) for v in ok.groupby("seed")[field].mean()]


def _spread(values: list[float]) -> tuple[float, float] | None:
    s = spread(values, "log")
    return None if s.low is None else (s.low, s.high)


def _from(rows: pd.DataFrame, digits: int = 3, scale: float = 1.0, unit: str = "") -> Reading | None:
    values = [v * scale for v in _per_seed(rows)]
    if not values:
        return _status(rows)
    text = fmt_mean_ci(values, digits, kind="log") + (f" {unit}" if unit else "")
    return Reading(text, tuple(values), _spread(values))


def count(n: float) -> str:
    """1234567 -> '1.23M'."""
    for unit, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.3g}{unit}"
    return f"{n:.0f}"


def perplexity(multiple: int) -> Reader:
    """Held-out perplexity per character at ``multiple`` x the training length L."""

    def read(rows: pd.DataFrame, first: pd.Series) -> Reading | None:
        length = float(_train_len(first)) * multiple
        return _from(rows[(rows.metric == "perplexity") & (rows.x == length)])

    return read


def _train_len(first: pd.Series) -> int:
    settings = first.profile_settings if isinstance(first.profile_settings, dict) else {}
    return int(settings.get("train_len") or first.spec.get("max_len"))


def parameters(rows: pd.DataFrame, first: pd.Series) -> Reading | None:
    """The model's parameter count (a fact of every training record)."""
    found = rows["parameters"].dropna() if "parameters" in rows else pd.Series(dtype=float)
    if not len(found):
        return None
    return Reading(count(float(found.iloc[0])), (float(found.iloc[0]),))


def flops_per_token(rows: pd.DataFrame, first: pd.Series) -> Reading | None:
    """Matrix-product FLOPs of training per training token (forward and backward)."""
    sel = rows[rows.metric == "train_flops"]
    ok = sel[sel.status == "ok"]
    values = [float(e["flops_per_token"]) for e in ok.extra if isinstance(e, dict) and "flops_per_token" in e]
    if not values:
        return _status(sel) if len(sel) else None
    return Reading(count(values[0]), (values[0],))


def metric(name: str, digits: int = 3, scale: float = 1.0, at: int | None = None, timing: bool = False) -> Reader:
    """The per-seed mean of ``name`` (at ``at`` x L when given); a single seed's timing shows its quartiles. A value
    any of whose records was timed under load is marked "(contended)" and carries ``contended``."""

    def read(rows: pd.DataFrame, first: pd.Series) -> Reading | None:
        sel = rows[rows.metric == name]
        if at is not None:
            sel = sel[sel.x == float(_train_len(first) * at)]
        if not len(sel):
            return None
        found = _from(sel, digits, scale)
        if found is None or not found.values:
            return found
        busy = any_contended(sel)
        mark = CONTENDED_MARK if busy else ""
        extra = sel[sel.status == "ok"].extra.iloc[0]
        if not timing or len(found.values) != 1 or not isinstance(extra, dict) or extra.get("q1") is None:
            return Reading(found.text + mark, found.values, found.interval, busy)
        low, high = float(extra["q1"]) * scale, float(extra["q3"]) * scale
        return Reading(
            f"{found.values[0]:.{digits}f} [IQR {low:.{digits}f}-{high:.{digits}f}]{mark}",
            found.values,
            (low, high),
            busy,
        )

    return read


def bytes_per_token(rows: pd.DataFrame, first: pd.Series) -> Reading | None:
    """KV-cache bytes per token, measured from the cache a prefill filled (checked against the formula in the job)."""
    sel = rows[rows.metric == "kv_cache_bytes_per_token"]
    if not len(sel):
        return None
    values = _per_seed(sel)
    if not values:
        return _status(sel)
    return Reading(f"{values[0]:,.0f}", (values[0],))


def columns() -> tuple[Column, ...]:
    """The table's columns, quality first, then the costs the same jobs measured."""
    pe, lm = "position_extrapolation", "language_modeling"
    both = (pe, lm)
    return (
        Column("ppl_L", "ppl at L", both, perplexity(1)),
        Column("ppl_8L", "ppl at 8L", (pe,), perplexity(8)),
        Column("params", "parameters", both, parameters),
        Column("flops", "training FLOPs/token", both, flops_per_token),
        Column("tokens_s", "training tokens/s", both, metric("train_throughput", 0), timed=True),
        Column("train_mib", "peak training memory (MiB)", both, metric("peak_train_memory", 1, 2.0**-20)),
        Column("kv_bytes", "KV cache (B/token)", both, bytes_per_token),
        Column("prefill_ms", "prefill at L (ms)", both, metric("prefill_latency", 2, at=1, timing=True), timed=True),
        Column("decode_ms", "decode at L (ms/token)", both, metric("decode_latency", 2, at=1, timing=True), timed=True),
        Column(
            "decode_8L_ms", "decode at 8L (ms/token)", both, metric("decode_latency", 2, at=8, timing=True), timed=True
        ),
    )
