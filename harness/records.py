"""What a stored record is: the schema every record is read against, and the names a job's records are kept under.

A record is one JSON object of a job's file (harness/store.py). ``schema_problem`` says why an object is not a
record (a key missing or of the wrong type), so a record that parses but is malformed is a damaged file, never a
crash of a report. A job is stored once whatever it was asked as: each record lists in ``names`` every name the
job was asked under, ``variant`` the first (``names_of``, ``with_names``), and a reader sees it once per name
(``per_name``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

Record = dict[str, Any]

#: statuses a record may have (bench/run/outcomes.py ranks them)
STATUSES = ("ok", "failed", "oom", "diverged", "unsupported", "skipped")


#: the record format this bench writes and the newest it reads; a record without one is of format 1. Raise it when
#: a key changes meaning or type, so that an older bench refuses such records instead of misreading them.
SCHEMA_VERSION = 1
#: the characters of a variant expression (registry names joined by '+'): nothing Markdown, HTML or matplotlib's
#: math text would interpret when a name is printed in a report or a figure
NAME = re.compile(r"[A-Za-z0-9_.+\-]+")
#: the deepest nesting of objects and lists a record holds (its spec, settings and extras are shallow)
MAX_DEPTH = 16


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _name(v: Any) -> bool:
    """A name a record keys by (variant, metric, suite, profile): text of the characters of ``NAME``."""
    return isinstance(v, str) and bool(NAME.fullmatch(v))


def _plain_text(v: Any) -> bool:
    """Text a report may print as it is: one line, no markup a Markdown table, HTML or math text would read."""
    return isinstance(v, str) and not set(v) & set("<>$|`\n\r")


def _setting(v: Any) -> bool:
    """A setting's value: a number, a truth value, null, plain text, or a flat list of those."""
    if isinstance(v, list):
        return all(_setting(item) and not isinstance(item, list) for item in v)
    return v is None or isinstance(v, (bool, int, float)) or _plain_text(v)


#: key -> (required, the check of its value, what it must be): the one typed definition every record is read against
SCHEMA: dict[str, Any] = {
    "metric": (True, _name, "a metric name"),
    "status": (True, lambda v: v in STATUSES, "one of " + ", ".join(STATUSES)),
    "variant": (True, _name, "a variant expression"),
    "schema_version": (False, lambda v: _whole(v) and v >= 1, "a whole number >= 1"),
    "value": (False, lambda v: v is None or _number(v), "a number or null"),
    "x": (False, lambda v: v is None or _number(v), "a number or null"),
    "x_name": (False, lambda v: v is None or _plain_text(v), "plain text or null"),
    "unit": (False, lambda v: v is None or _plain_text(v), "plain text or null"),
    "higher_is_better": (False, lambda v: v is None or isinstance(v, bool), "true, false or null"),
    "seed": (False, _whole, "a whole number"),
    "names": (False, lambda v: isinstance(v, list) and all(_name(n) for n in v), "a list of variant expressions"),
    "suite": (False, _name, "a suite name"),
    "suite_version": (False, _whole, "a whole number"),
    "profile": (False, _name, "a profile name"),
    "profile_settings": (
        False,
        lambda v: isinstance(v, dict) and all(_setting(x) for x in v.values()),
        "an object of settings (numbers, truth values, plain text or flat lists)",
    ),
    "job_hash": (False, lambda v: isinstance(v, str), "text"),
    "spec_hash": (False, lambda v: isinstance(v, str), "text"),
    "device": (False, _plain_text, "plain text"),
    "dtype": (False, _plain_text, "plain text"),
    "data_checksum": (False, lambda v: isinstance(v, str), "text"),
    "code_version": (False, _plain_text, "plain text"),
    "timestamp": (False, lambda v: isinstance(v, str), "text"),
    "wall_time_s": (False, _number, "a number"),
    "parameters": (False, lambda v: v is None or _whole(v), "a whole number or null"),
    "library_versions": (False, lambda v: isinstance(v, dict), "an object"),
    "accelerator": (
        False,
        lambda v: isinstance(v, dict) and all(_setting(x) and not isinstance(x, list) for x in v.values()),
        "an object of numbers, plain text or nulls",
    ),
    "reason": (False, lambda v: v is None or isinstance(v, str), "text or null"),
    "spec": (False, lambda v: isinstance(v, dict), "an object"),
    "extra": (False, lambda v: v is None or isinstance(v, dict), "an object or null"),
}


def depth(value: Any) -> int:
    """How deeply objects and lists nest in ``value`` (0 for a number or text), counted without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
        else:
            continue
        deepest = max(deepest, level + 1)
    return deepest


def schema_problem(record: Any) -> str | None:
    """Why ``record`` is not a bench record (nested too deeply, or the first key missing or of the wrong type),
    or None. A record of a newer format is not judged here: ``newer_schema`` says so first."""
    if not isinstance(record, dict):
        return f"a {type(record).__name__}, not a record"
    if depth(record) > MAX_DEPTH:
        return f"it nests objects and lists {depth(record)} deep, more than the {MAX_DEPTH} a record holds"
    for key, (required, check, what) in SCHEMA.items():
        if key not in record:
            if required:
                return f"no '{key}'"
            continue
        if not check(record[key]):
            return f"'{key}' is {json.dumps(record[key], default=str)[:40]}, not {what}"
    return None


def newer_schema(record: Any) -> int | None:
    """The record's format when it is newer than this bench reads (``SCHEMA_VERSION``), else None."""
    version = record.get("schema_version") if isinstance(record, dict) else None
    return version if _whole(version) and version > SCHEMA_VERSION else None


def names_of(records: Iterable[Record]) -> list[str]:
    """Every name a job's records were stored under, in the order first asked."""
    names: list[str] = []
    for record in records:
        for name in record.get("names") or ([record["variant"]] if record.get("variant") is not None else []):
            if name not in names:
                names.append(name)
    return names


def with_names(records: list[Record], names: list[str]) -> list[Record]:
    """Records that list ``names`` (duplicates dropped), the first as their ``variant``."""
    names = list(dict.fromkeys(names))
    if not names:
        return records
    return [{**record, "names": names, "variant": names[0]} for record in records]


def per_name(record: Record) -> list[Record]:
    """One copy of a record for each name its job was asked under."""
    names = record.get("names")
    if not isinstance(names, list) or len(names) < 2:
        return [record]
    return [{**record, "variant": name} for name in names]
