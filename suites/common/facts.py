"""A job fact of a record for a report's Setup line: what the record says, or 'not recorded' where it lacks it.

Records of jobs that did not run (skipped, unsupported) carry no job facts, and pandas fills a column some records
lack with NaN (and turns its integers into floats), so a Setup line read from such a record printed 'nan threads';
``fact`` never prints nan or None.
"""

from __future__ import annotations

import math
from typing import Any


def fact(record: Any, key: str) -> str:
    """The record's ``key`` as text: '2' for 2.0 (a column some records lack is float), 'not recorded' for
    a missing, NaN or None value."""
    value = record.get(key) if hasattr(record, "get") else getattr(record, key, None)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "not recorded"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def parameter_counts(ok: Any, variants: list[str]) -> str:
    """'rope 131,712, alibi 131,584': each variant's parameter count from the records of finished jobs ``ok`` (their
    ``parameters`` fact), in the order of ``variants``; a variant without one is left out."""
    if "parameters" not in ok:
        return ""
    params = ok.groupby("variant").parameters.first()
    return ", ".join(f"{v} {int(params[v]):,}" for v in variants if v in params.index)
