"""The columns of the index's quality x cost table: what each reads, from which suite, matched on which design fields.

A column names the suites that measure it (the first with a matching record fills the cell), the design
fields its measurement depends on (harness/design.py: quality depends on the whole design but the kernel,
cache bytes only on the key/value grouping), and how it reads one variant's records of one group.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

import pandas as pd

from harness.design import FIELDS
from harness.report import fmt_mean_ci, mean_ci

#: what quality depends on: every design field but the kernel (a kernel computes the same function)
QUALITY = tuple(f for f in FIELDS if f != "kernel")
#: attention 'at 4096 tokens': the length attention_cost's quick and standard profiles both measure
ATTENTION_TOKENS = 4096


@dataclass(frozen=True)
class Reading:
    """One cell: its text, and the per-seed values behind it (empty for a status such as 'skipped')."""

    text: str
    values: Tuple[float, ...] = ()
    #: the suite whose records gave it (set by the table)
    suite: str = ""

    @property
    def interval(self) -> Tuple[float, float, int]:
        """(mean, half-width of the 95% interval, n) of the values."""
        return mean_ci(self.values)


Reader = Callable[[pd.DataFrame, pd.Series], Optional[Reading]]


@dataclass(frozen=True)
class Column:
    """A column: its key and title (with its unit), the suites that measure it and the design fields it matches on."""

    key: str
    title: str
    suites: Tuple[str, ...]
    fields: Tuple[str, ...]
    read: Reader


def _status(rows: pd.DataFrame) -> Optional[Reading]:
    """A cell for records that exist but measured nothing: their status and reason."""
    bad = rows[rows.status != "ok"]
    if not len(bad):
        return None
    r = bad.iloc[0]
    reason = r.get("reason")
    return Reading(f"{r.status}" + (f" ({reason})" if isinstance(reason, str) and reason else ""))


def _per_seed(rows: pd.DataFrame) -> List[float]:
    ok = rows[rows.status == "ok"]
    return [float(v) for v in ok.groupby("seed").value.mean()] if len(ok) else []


def _from(rows: pd.DataFrame, digits: int = 3, unit: str = "") -> Optional[Reading]:
    values = _per_seed(rows)
    if not values:
        return _status(rows)
    return Reading(fmt_mean_ci(values, digits) + (f" {unit}" if unit else ""), tuple(values))


def perplexity(multiple: int) -> Reader:
    """Held-out perplexity per character at ``multiple`` x the training length L."""

    def read(rows: pd.DataFrame, first: pd.Series) -> Optional[Reading]:
        length = float(first.profile_settings["train_len"]) * multiple
        return _from(rows[(rows.metric == "perplexity") & (rows.x == length)])

    return read


def count(n: float) -> str:
    """1234567 -> '1.23M'."""
    for unit, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.3g}{unit}"
    return f"{n:.0f}"


def parameters(rows: pd.DataFrame, first: pd.Series) -> Optional[Reading]:
    """The model's parameter count (a fact of every training record)."""
    found = rows["parameters"].dropna() if "parameters" in rows else pd.Series(dtype=float)
    if not len(found):
        return _status(rows)
    return Reading(count(float(found.iloc[0])), (float(found.iloc[0]),))


def training_flops(rows: pd.DataFrame, first: pd.Series) -> Optional[Reading]:
    """Matrix-product FLOPs of training (forward and backward, x steps)."""
    values = _per_seed(rows[rows.metric == "train_flops"])
    if not values:
        return _status(rows[rows.metric == "train_flops"])
    return Reading(count(mean_ci(values)[0]), tuple(values))


def throughput(rows: pd.DataFrame, first: pd.Series) -> Optional[Reading]:
    """Training tokens per second."""
    return _from(rows[rows.metric == "train_throughput"], 0)


def kv_bytes_per_token(rows: pd.DataFrame, first: pd.Series) -> Optional[Reading]:
    """Measured cache bytes over cached tokens x batch (the same at every context)."""
    cache = rows[(rows.metric == "cache_bytes") & (rows.status == "ok")]
    if not len(cache):
        return _status(rows[rows.metric == "cache_bytes"])
    batch = cache.extra.apply(lambda e: e.get("batch", 1) if isinstance(e, dict) else 1)
    per_token = sorted(set(cache.value / (cache.x * batch)))
    return Reading(f"{per_token[-1]:,.0f}", (per_token[-1],))


def _noise(rows: pd.DataFrame) -> str:
    """' ±4%': half the interquartile range of one timing, for a cell of one seed."""
    extra = rows[rows.status == "ok"].extra
    noise = [e.get("noise") for e in extra if isinstance(e, dict) and e.get("noise") is not None]
    return f" ±{100 * noise[0] / 2:.0f}% IQR" if len(noise) == 1 else ""


def decode_latency(context: float) -> Reader:
    """One cached decode step (ms/token) over a cache of ``context`` tokens."""

    def read(rows: pd.DataFrame, first: pd.Series) -> Optional[Reading]:
        sel = rows[(rows.metric == "decode_latency") & (rows.x == context)]
        found = _from(sel)
        return Reading(found.text + _noise(sel), found.values) if found and len(found.values) == 1 else found

    return read


def attention(metric: str, tokens: int = ATTENTION_TOKENS) -> Reader:
    """attention_cost's ``metric`` for the causal forward pass at ``tokens``."""

    def read(rows: pd.DataFrame, first: pd.Series) -> Optional[Reading]:
        extra = rows.extra.apply(lambda e: e if isinstance(e, dict) else {})
        sel = rows[(rows.metric == metric) & (rows.x == tokens) & (extra.apply(lambda e: e.get("pass")) == "fwd")
                   & (extra.apply(lambda e: e.get("causal")) == True)]  # noqa: E712 (a column of objects)
        found = _from(sel, 4 if metric == "peak_memory" else 3)
        if metric == "latency" and found and len(found.values) == 1:
            return Reading(found.text + _noise(sel), found.values)
        return found

    return read


def decode_context(kv_frame: Optional[pd.DataFrame]) -> Optional[float]:
    """The longest context the kv_cache group timed a decode step at (the table's stated context)."""
    if kv_frame is None:
        return None
    found = kv_frame[(kv_frame.metric == "decode_latency") & (kv_frame.status == "ok")].x.dropna()
    return float(found.max()) if len(found) else None


def columns(kv_frame: Optional[pd.DataFrame] = None) -> Sequence[Column]:
    """The table's columns; the decode context is the longest the kv_cache records reach."""
    context = decode_context(kv_frame)
    at = f" at {int(context)} tokens" if context and not math.isnan(context) else ""
    pe, lm = "position_extrapolation", "language_modeling"
    return (
        Column("ppl_L", "held-out ppl at L (per char)", (pe, lm), QUALITY, perplexity(1)),
        Column("ppl_8L", "held-out ppl at 8L (per char)", (pe,), QUALITY, perplexity(8)),
        Column("params", "parameters", (pe, lm), QUALITY, parameters),
        Column("flops", "training FLOPs", (lm,), QUALITY, training_flops),
        Column("tokens_s", "training tokens/s", (pe, lm), FIELDS, throughput),
        Column("kv_bytes", "KV cache (B/token)", ("kv_cache",), ("grouping",), kv_bytes_per_token),
        Column("decode_ms", f"decode (ms/token{at})", ("kv_cache",), ("position", "scoring", "grouping"),
               decode_latency(context if context else math.nan)),
        Column("attention_ms", f"attention (ms at {ATTENTION_TOKENS} tokens, causal fwd)", ("attention_cost",),
               ("kernel", "grouping", "score_bias"), attention("latency")),
        Column("attention_mib", f"attention peak memory (MiB at {ATTENTION_TOKENS} tokens)", ("attention_cost",),
               ("kernel", "grouping", "score_bias"), attention("peak_memory")),
    )
