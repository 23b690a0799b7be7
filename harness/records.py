"""What a stored record is: the schema every record is read against, and the names a job's records are kept under.

A record is one JSON object of a job's file (harness/store.py). ``schema_problem`` says why an object is not a
record (a key missing or of the wrong type), so a record that parses but is malformed is a damaged file, never a
crash of a report. A job is stored once whatever it was asked as: each record lists in ``names`` every name the
job was asked under, ``variant`` the first (``names_of``, ``with_names``), and a reader sees it once per name
(``per_name``).
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Optional

Record = Dict[str, Any]

#: statuses a record may have (harness/outcomes.py ranks them)
STATUSES = ("ok", "failed", "oom", "diverged", "unsupported", "skipped")


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


#: key -> (required, the check of its value, what it must be): the schema every record is read against
SCHEMA: Dict[str, Any] = {
    "metric": (True, lambda v: isinstance(v, str) and v != "", "non-empty text"),
    "status": (True, lambda v: v in STATUSES, "one of " + ", ".join(STATUSES)),
    "variant": (True, lambda v: isinstance(v, str) and v != "", "non-empty text"),
    "value": (False, lambda v: v is None or _number(v), "a number or null"),
    "x": (False, lambda v: v is None or _number(v) or isinstance(v, str), "a number, text or null"),
    "seed": (False, lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
    "names": (False, lambda v: isinstance(v, list) and all(isinstance(n, str) and n for n in v), "a list of names"),
    "suite": (False, lambda v: isinstance(v, str), "text"),
    "job_hash": (False, lambda v: isinstance(v, str), "text"),
    "reason": (False, lambda v: v is None or isinstance(v, str), "text or null"),
    "spec": (False, lambda v: isinstance(v, dict), "an object"),
    "extra": (False, lambda v: v is None or isinstance(v, dict), "an object or null"),
}


def schema_problem(record: Any) -> Optional[str]:
    """Why ``record`` is not a bench record (the first key missing or of the wrong type), or None."""
    if not isinstance(record, dict):
        return f"a {type(record).__name__}, not a record"
    for key, (required, check, what) in SCHEMA.items():
        if key not in record:
            if required:
                return f"no '{key}'"
            continue
        if not check(record[key]):
            return f"'{key}' is {json.dumps(record[key], default=str)[:40]}, not {what}"
    return None


def names_of(records: Iterable[Record]) -> List[str]:
    """Every name a job's records were stored under, in the order first asked."""
    names: List[str] = []
    for record in records:
        for name in record.get("names") or ([record["variant"]] if record.get("variant") is not None else []):
            if name not in names:
                names.append(name)
    return names


def with_names(records: List[Record], names: List[str]) -> List[Record]:
    """Records that list ``names`` (duplicates dropped), the first as their ``variant``."""
    names = list(dict.fromkeys(names))
    if not names:
        return records
    return [{**record, "names": names, "variant": names[0]} for record in records]


def per_name(record: Record) -> List[Record]:
    """One copy of a record for each name its job was asked under."""
    names = record.get("names")
    if not isinstance(names, list) or len(names) < 2:
        return [record]
    return [{**record, "variant": name} for name in names]
