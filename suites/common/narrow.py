"""Tables a reader takes in at a glance: at most MAX_COLUMNS columns, a wider one split into several.

A table with one column per length (or per context) grows with the profile: the standard and gpu profiles
time more lengths than quick. ``narrow`` splits such a frame by its key columns (one table per pass, then per
mask) and, if it is still too wide, into groups of value columns that each repeat the row's keys.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from harness.report_kit import markdown_table

#: the widest table a report prints (tests/report_shape.py checks it of every report)
MAX_COLUMNS = 8


def narrow(frame: pd.DataFrame, keys: Sequence[str], limit: int = MAX_COLUMNS) -> str:
    """``frame`` as Markdown tables of at most ``limit`` columns each: split by ``keys[1:]`` in turn (a caption
    line names each part), then into chunks of value columns; ``keys[0]`` (the row's name) stays in every part."""
    if frame.shape[1] <= limit:
        return markdown_table(frame)
    return "\n\n".join(_parts(frame, list(keys), limit, []))


def _parts(frame: pd.DataFrame, keys: list[str], limit: int, said: list[str]) -> list[str]:
    splittable = [k for k in keys[1:] if k in frame.columns]
    if frame.shape[1] > limit and splittable:
        key = splittable[0]
        out = []
        for value, part in frame.groupby(key, sort=False):
            out += _parts(part.drop(columns=[key]).reset_index(drop=True), keys, limit, said + [f"{key} {value}"])
        return out
    caption = [", ".join(said) + ":"] if said else []
    ids = [k for k in keys if k in frame.columns]
    values = [c for c in frame.columns if c not in ids]
    width = max(1, limit - len(ids))
    if len(ids) + len(values) <= limit:
        return ["\n\n".join(caption + [markdown_table(frame)])]
    chunks = [values[i : i + width] for i in range(0, len(values), width)]
    return ["\n\n".join(caption + [markdown_table(frame[ids + chunk])]) for chunk in chunks]
