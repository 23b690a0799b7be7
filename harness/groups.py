"""Record groups: records that may be reported together because they were measured the same way.

Two records belong to one group when they share the suite version, the profile (its name and every
setting), the device type, the dtype and the data checksum. A report covers one group, so a quick and a
standard run, two suite versions, or cpu and cuda are never averaged together. Groups are ordered newest
first by the newest ``timestamp`` among their records.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.errors import UsageError

#: the keys ``bench report`` selects a group by, in the order a selection is spelt out
SELECT_KEYS = ("profile", "device", "dtype", "suite_version", "data")


@dataclass(frozen=True)
class GroupKey:
    """What records must share to be reported together; ``settings`` is canonical JSON, so it hashes."""

    suite_version: Any
    profile: Any
    settings: str
    device: str | None
    dtype: Any
    data_checksum: Any

    def settings_dict(self) -> dict[str, Any]:
        return json.loads(self.settings)

    def selector(self, key: str) -> str:
        """The value of a ``bench report`` selection key as it is written on the command line."""
        if key == "data":
            return _short(self.data_checksum)
        if key.startswith("set."):
            return str(self.settings_dict().get(key[4:], "-"))
        return str(getattr(self, key))


@dataclass
class Group:
    """One group's key and its records (a DataFrame in the store's order)."""

    key: GroupKey
    frame: pd.DataFrame

    @property
    def newest(self) -> pd.Timestamp | None:
        stamps = _stamps(self.frame)
        return None if stamps.isna().all() else stamps.max()


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _plain(value: Any) -> Any:
    """A record value with NaN (a column absent from this record) read as None."""
    return None if _missing(value) else value


def _whole(value: Any) -> Any:
    """1.0 -> 1: a column of versions turns float in pandas when some record lacks one."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def device_type(device: Any) -> str | None:
    """'cuda:1' -> 'cuda': records of one kind of device share a group, whichever card ran them."""
    return None if _missing(device) else str(device).split(":", 1)[0]


def group_key(record: Mapping[str, Any]) -> GroupKey:
    """The group a record belongs to."""
    settings = _plain(record.get("profile_settings"))
    return GroupKey(
        suite_version=_whole(_plain(record.get("suite_version"))),
        profile=_plain(record.get("profile")),
        # sort_keys: the same settings stored in another key order are the same group
        settings=json.dumps(settings if settings is not None else {}, sort_keys=True, default=str),
        device=device_type(record.get("device")),
        dtype=_plain(record.get("dtype")),
        data_checksum=_plain(record.get("data_checksum")),
    )


def _frame(records: pd.DataFrame | Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    return records if isinstance(records, pd.DataFrame) else pd.DataFrame(list(records))


def _stamps(frame: pd.DataFrame) -> pd.Series:
    if "timestamp" not in frame:
        return pd.Series(pd.NaT, index=frame.index, dtype="datetime64[ns, UTC]")
    return pd.to_datetime(frame["timestamp"], utc=True, errors="coerce", format="ISO8601")


def split_groups(records: pd.DataFrame | Iterable[Mapping[str, Any]]) -> list[Group]:
    """The records split into groups, newest group first (records without a timestamp count as oldest)."""
    frame = _frame(records).reset_index(drop=True)
    rows: dict[GroupKey, list[int]] = {}
    for i, record in enumerate(frame.to_dict("records")):
        rows.setdefault(group_key(record), []).append(i)
    groups = [Group(key, frame.iloc[idx].reset_index(drop=True)) for key, idx in rows.items()]
    oldest = pd.Timestamp.min.tz_localize("UTC")
    # sorted() is stable: groups with equal stamps keep the store's order
    return sorted(groups, key=lambda g: g.newest if g.newest is not None else oldest, reverse=True)


def _short(checksum: Any, n: int = 8) -> str:
    return "?" if _missing(checksum) else str(checksum)[:n]


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def differing_settings(group: Group, others: Sequence[Group]) -> dict[str, Any]:
    """This group's profile settings that differ from another group of the same profile name.

    Groups of different profiles differ in many settings; only same-named ones need telling apart.
    """
    mine = group.key.settings_dict()
    out: dict[str, Any] = {}
    for other in others:
        if other.key == group.key or other.key.profile != group.key.profile:
            continue
        theirs = other.key.settings_dict()
        for name in sorted(set(mine) | set(theirs)):
            if mine.get(name) != theirs.get(name) and name in mine:
                out[name] = mine[name]
    return out


def describe(group: Group, others: Sequence[Group] = ()) -> str:
    """One line: 'profile=quick cpu float32 v1 data 1a2b3c4d (5 variants x 1 seed, 40 records, 2026-11-30 22:40)'."""
    k, f = group.key, group.frame
    n_variants = f["variant"].nunique() if "variant" in f else 0
    n_seeds = f["seed"].nunique() if "seed" in f else 0
    newest = group.newest
    when = newest.strftime("%Y-%m-%d %H:%M") if newest is not None else "no timestamp"
    settings = differing_settings(group, others)
    extra = "".join(f" {name}={value}" for name, value in settings.items())
    return (
        f"profile={k.profile}{extra} {k.device} {k.dtype} v{k.suite_version} data {_short(k.data_checksum)} "
        f"({_count(n_variants, 'variant')} x {_count(n_seeds, 'seed')}, {_count(len(f), 'record')}, {when})"
    )


def _same(stored: Any, given: Any) -> bool:
    """A stored setting against a value from the command line (3e-3 and 0.003 are the same number; a list matches
    item by item, as the command line gives its items as text)."""
    if stored == given or str(stored) == str(given):
        return True
    if isinstance(stored, (list, tuple)) and isinstance(given, (list, tuple)):  # set.contexts=[512,4096]: strings
        return len(stored) == len(given) and all(_same(a, b) for a, b in zip(stored, given))
    try:
        return float(stored) == float(given)
    except (TypeError, ValueError):
        return False


def _matches(key: GroupKey, wanted: Mapping[str, Any]) -> bool:
    for name, value in wanted.items():
        if name == "data":
            if _missing(key.data_checksum) or not str(key.data_checksum).startswith(str(value)):
                return False
        elif name.startswith("set."):
            settings = key.settings_dict()
            if name[4:] not in settings or not _same(settings[name[4:]], value):
                return False
        elif name == "device":
            if key.device != device_type(value):  # device=cuda:0 selects the cuda group
                return False
        elif key.selector(name) != str(value):
            return False
    return True


def select(groups: Sequence[Group], suite: str, wanted: Mapping[str, Any]) -> Group:
    """The newest group whose keys match ``wanted``.

    Keys are those of SELECT_KEYS (``data`` matches a checksum prefix) and ``set.FIELD`` for one profile
    setting. A value no group has is a UsageError naming the key, the value and the values present; so
    is a combination of present values that no single group has.
    """
    wanted = {k: v for k, v in wanted.items() if v is not None}
    for name, value in wanted.items():
        if any(_matches(g.key, {name: value}) for g in groups):
            continue
        if name.startswith("set.") and not any(name[4:] in g.key.settings_dict() for g in groups):
            fields = sorted({f for g in groups for f in g.key.settings_dict()})
            raise UsageError(f"{suite} profiles have no setting '{name[4:]}'; settings: {', '.join(fields)}.")
        present = sorted({g.key.selector(name) for g in groups})
        raise UsageError(f"No {suite} results have {name}={value}; present: {', '.join(present)}.")
    found = first_match(groups, wanted)
    if found is None:
        asked = " ".join(f"{k}={v}" for k, v in wanted.items())
        raise UsageError(
            f"No single group of {suite} results has {asked}; groups present: "
            + "; ".join(describe(g, groups) for g in groups)
            + "."
        )
    return found


def first_match(groups: Sequence[Group], wanted: Mapping[str, Any]) -> Group | None:
    """The newest group matching ``wanted``, or None."""
    return next((g for g in groups if _matches(g.key, wanted)), None)


def selection(group: Group, groups: Sequence[Group]) -> dict[str, str]:
    """A short set of ``bench report`` keys (beyond suite=) that make ``select`` pick ``group``.

    A key is added only while a newer group still matches and differs from ``group`` on it; profile
    settings come last, for groups that share a profile name but ran with ``set.*`` overrides.
    """
    chosen: dict[str, str] = {}
    names = list(SELECT_KEYS) + [f"set.{n}" for n in sorted(group.key.settings_dict())]
    for name in names:
        if first_match(groups, chosen) is group:
            break
        newer = [g for g in groups[: list(groups).index(group)] if _matches(g.key, chosen)]
        value = group.key.selector(name)
        if any(g.key.selector(name) != value for g in newer):
            chosen[name] = value
    # a key added early may have been made redundant by a later one
    for name in list(chosen):
        fewer = {k: v for k, v in chosen.items() if k != name}
        if first_match(groups, fewer) is group:
            chosen = fewer
    return chosen


def report_command(suite: str, group: Group, groups: Sequence[Group]) -> str | None:
    """The ``bench report`` command that reports ``group``, or None when no keys select it: it differs from a newer
    group only in settings its profile no longer declares (an earlier form of the profile)."""
    keys = selection(group, groups)
    if first_match(groups, keys) is not group:
        return None
    return " ".join([f"bench report suite={suite}"] + [f"{k}={v}" for k, v in keys.items()])


def lost_settings(group: Group, groups: Sequence[Group]) -> list[str]:
    """The profile settings newer groups have and ``group`` lacks (why no keys select it apart)."""
    mine = group.key.settings_dict()
    newer = [g.key.settings_dict() for g in groups[: list(groups).index(group)]]
    return sorted({k for settings in newer for k in settings if k not in mine}) or ["a setting of today's profile"]


def superseded(group: Group, groups: Sequence[Group]) -> str:
    """'an earlier form of its profile (without decode_contexts), ...': for a group ``report_command`` cannot select."""
    return (
        f"an earlier form of its profile (without {', '.join(lost_settings(group, groups))}), which no "
        "`bench report` keys select apart from the newer group"
    )


def code_line(df: pd.DataFrame) -> str:
    """The code behind a group's records for its report's Setup line.

    'code 0123abcd45', 'code 0123abcd45 (dirty tree)', or, when the records come from more than one
    commit, 'code from 2 commits (0123abcd45, 89abcdef01; dirty tree in some)', newest commit first.
    """
    frame = _frame(df)
    if "git_commit" not in frame:
        return "code unknown"
    # records that never ran (skipped, unsupported before a job started) may carry no commit
    frame = frame[frame["git_commit"].map(lambda c: not _missing(c))]
    if frame.empty:
        return "code unknown"
    frame = frame.assign(_stamp=_stamps(frame)).sort_values(
        "_stamp", ascending=False, kind="stable", na_position="last"
    )
    distinct = list(dict.fromkeys(str(c)[:10] for c in frame["git_commit"]))
    dirty = [
        bool(d) and not _missing(d) for d in (frame["git_dirty"] if "git_dirty" in frame else [False] * len(frame))
    ]
    if len(distinct) == 1:
        # one commit: the tree was dirty if any of its runs said so
        return f"code {distinct[0]}" + (" (dirty tree)" if any(dirty) else "")
    note = "" if not any(dirty) else ("; dirty tree in all" if all(dirty) else "; dirty tree in some")
    return f"code from {len(distinct)} commits ({', '.join(distinct)}{note})"
