"""The typed configuration of ``bench run`` and ``bench report`` and its parsing from ``key=value`` arguments.

Each value is converted to its field's type here (no YAML guessing, no ``${...}`` interpolation) and
checked against the field's rule (harness/rules.py): whole numbers, lists in brackets, known devices,
folders that can be written. Every mistake is a UsageError of one sentence that names the key, the bad
value and what the key takes, raised before any data is read or any model is built.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tempfile
import typing
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from harness.errors import UsageError
from harness.rules import Rule, Shape, between, rule_for, shape_of, show, takes, value_problem
from variants import close_matches

LIST_KEYS = ("variants", "seeds")
#: the largest seed: suites add offsets of at most 20000 and torch and numpy take 32-bit seeds
MAX_SEED = 2**31 - 1


def writable_folder(key: str, value: str) -> Optional[str]:
    """Why ``value`` cannot be (created as) a folder this process writes into, or None.

    Checked by creating and removing a temporary folder inside it (or inside its nearest existing
    parent), which is what a later save does; nothing is left behind.
    """
    path = Path(value).expanduser()
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        what = "is a file" if existing == path else f"lies under the file {existing}"
        return f"{key}={show(value)} {what}, not a folder; give a folder that can be written, e.g. {key}=results."
    try:
        probe = tempfile.mkdtemp(prefix=".bench-write-check-", dir=existing)
        os.rmdir(probe)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        where = "in it" if existing == path else f"in {existing}, where it would be created"
        return f"{key}={show(value)} cannot be written ({reason} {where}); give a folder that can be written, e.g. {key}=results."
    return None


DEVICES = "auto, cpu, cuda or cuda:N (N below the number of CUDA devices torch sees)"


def usable_device(key: str, value: str) -> Optional[str]:
    """Why ``value`` is not a device this machine has, or None (``cuda:N`` is checked against the devices present)."""
    if value in ("auto", "cpu"):
        return None
    match = re.fullmatch(r"cuda(?::(\d+))?", value)
    if match is None:
        return f"Unknown device '{show(value)}' ({key}); choose {DEVICES}."
    import torch

    if not torch.cuda.is_available():
        return f"{key}={value} was asked for but torch sees no CUDA device; use {key}=cpu or {key}=auto."
    count = torch.cuda.device_count()
    if match.group(1) is not None and int(match.group(1)) >= count:
        return (f"{key}={value} names a CUDA device torch does not see; it sees {count} "
                f"(cuda:0{f' to cuda:{count - 1}' if count > 1 else ''}).")
    return None


def well_formed_variants(key: str, value: List[str]) -> Optional[str]:
    """Why one of the variants is malformed ('rope+', '+alibi'), or None; its presets are checked at planning."""
    for variant in value:
        if any(not preset.strip() for preset in variant.split("+")):
            return (f"{key}={show(value)} has the expression '{show(variant)}' with an empty part; join preset names "
                    f"with '+', e.g. {key}=[alibi+sdpa].")
    return None


@dataclass
class RunConfig:
    """Everything ``bench run`` accepts; unset values fall back to the suite's and profile's defaults."""

    suite: str = "position_extrapolation"
    variants: Optional[List[str]] = None
    profile: Optional[str] = None
    seeds: Optional[List[int]] = None
    device: str = "auto"
    #: auto: bfloat16 autocast for a training suite that takes it on CUDA, else float32 (harness/plan.py)
    dtype: str = "auto"
    dry_run: bool = False
    data: Optional[str] = None
    protocol: Optional[str] = None
    results_dir: str = "results"
    reports_dir: str = "reports"
    progress: bool = True
    #: where jobs run: local (this process) or submitit (SLURM, or local subprocesses)
    executor: str = "local"
    #: submitit parameters, written ``submitit.timeout_min=120 submitit.slurm_partition=gpu``
    submitit: Dict[str, Any] = field(default_factory=dict)
    #: profile overrides, written ``set.steps=100``; typed against the profile's fields (harness/plan.py)
    set: Dict[str, str] = field(default_factory=dict)

    rules = {
        "seeds": between(0, MAX_SEED),
        "variants": Rule(check=well_formed_variants),
        "device": Rule(check=usable_device),
        "results_dir": Rule(check=writable_folder),
        "reports_dir": Rule(check=writable_folder),
    }


@dataclass
class ReportConfig:
    """What ``bench report`` accepts."""

    suite: Optional[str] = None
    results_dir: str = "results"
    reports_dir: str = "reports"
    #: which group of records to report (harness/groups.py); unset keys match any, and the newest match wins
    profile: Optional[str] = None
    device: Optional[str] = None
    dtype: Optional[str] = None
    suite_version: Optional[int] = None
    #: a prefix of the data checksum
    data: Optional[str] = None
    #: one profile setting, written ``set.steps=100``, for runs that differ only by overrides
    set: Dict[str, Any] = field(default_factory=dict)

    rules = {"reports_dir": Rule(check=writable_folder)}

    def selection(self) -> Dict[str, Any]:
        """The group keys given, ``set.FIELD`` included."""
        keys = {"profile": self.profile, "device": self.device, "dtype": self.dtype,
                "suite_version": self.suite_version, "data": self.data}
        keys.update({f"set.{name}": value for name, value in self.set.items()})
        return {k: v for k, v in keys.items() if v is not None}


def parse(args: List[str], schema: type) -> Any:
    """Parse ``key=value`` arguments onto the dataclass ``schema`` and check every field against its rule.

    Every mistake is a UsageError of one sentence naming the key: an unknown key (with a suggestion), a
    control character, ``${...}`` interpolation, a value of the wrong type, an unclosed list, ``set=5``
    for a key that takes ``set.FIELD=VALUE``, and any value outside its rule. A key given twice keeps its
    last value, so that a script can append overrides.
    """
    fields = {f.name: f for f in dataclasses.fields(schema)}
    hints = typing.get_type_hints(schema)
    values: Dict[str, Any] = {}
    for arg in args:
        key, raw = split_argument(arg, list(fields))
        top, dot, sub = key.partition(".")
        shape = shape_of(hints[top])
        if shape.is_dict:
            if not dot:
                raise UsageError(f"{top}={show(raw)} is not a setting; {top} takes one FIELD=VALUE per argument, "
                                 f"written {top}.FIELD=VALUE (e.g. {'set.steps=100' if top == 'set' else top + '.timeout_min=60'}).")
            if not sub or "." in sub:
                raise UsageError(f"{key}={show(raw)} is not {top}.FIELD=VALUE with one field name; e.g. "
                                 f"{'set.steps=100' if top == 'set' else top + '.timeout_min=60'}.")
            inner = typing.get_args(hints[top])
            kind = inner[1] if len(inner) == 2 else Any
            values.setdefault(top, {})[sub] = raw if kind is str else any_value(key, raw)
            continue
        if dot:
            raise UsageError(f"{top} has no sub-keys; write {top}=VALUE, not {key}={show(raw)}.")
        rule = rule_for(schema, top)
        if top in LIST_KEYS and "," in raw and not raw.lstrip().startswith("["):
            raise UsageError(f"Write lists in brackets: {top}=[{raw}] instead of {top}={raw}.")
        values[top] = convert(top, raw, shape, rule, "Bad option")
    config = schema(**values)
    for name in fields:
        problem = _field_problem(config, name, hints)
        if problem:
            raise UsageError(problem)
    return config


def _field_problem(config: Any, name: str, hints: Dict[str, Any]) -> Optional[str]:
    return value_problem(name, getattr(config, name), shape_of(hints[name]), rule_for(type(config), name))


def split_argument(arg: str, keys: List[str], prefix: str = "") -> Tuple[str, str]:
    """(key, value) of ``key=value``, refusing what no value may hold: control characters and ``${...}``."""
    if "=" not in arg:
        check_text(arg, None)
        raise UsageError(f"Argument '{arg}' is not key=value; valid keys: {', '.join(keys)}.")
    key, raw = arg.split("=", 1)
    check_text(key, None)
    top = key.split(".", 1)[0]
    if top not in keys:
        matches = close_matches(top, keys)
        hint = f" Did you mean '{matches[0]}'?" if matches else ""
        if "set" in keys and "." not in key:
            hint += f" Profile settings are written set.{key}=VALUE."
        raise UsageError(f"Unknown option '{prefix}{key}'.{hint} Valid keys: {', '.join(keys)}.")
    check_text(raw, prefix + key)
    if "${" in raw:
        raise UsageError(f"{prefix}{key}={raw} uses interpolation syntax (${{...}}), which bench does not resolve; "
                         f"write the value itself.")
    if not raw.strip():
        raise UsageError(f"{prefix}{key}= has no value; write {prefix}{key}=VALUE, or leave {prefix}{key} out for its default.")
    return key, raw


def check_text(text: str, key: Optional[str]) -> None:
    """Refuse control characters, line separators and undecodable bytes in a key (key None) or a value of ``key``."""
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp"):
            what = "an undecodable byte" if unicodedata.category(ch) == "Cs" else f"the control character U+{ord(ch):04X}"
            where = f"The value of {key} ({show(text)})" if key else f"The option name {show(text)}"
            raise UsageError(f"{where} contains {what}; write printable text only.")


def convert(key: str, raw: str, shape: Shape, rule: Rule, bad: str) -> Any:
    """The value of ``raw`` for a field of ``shape``; a UsageError starting with ``bad`` names the key and what it takes."""
    def fail() -> UsageError:
        return UsageError(f"{bad} {key}={show(raw)}: {key} takes {takes(rule, shape)}"
                          f"{f', e.g. {key}=[{_example(rule, shape)}]' if shape.is_list else ''}.")

    text = raw.strip()
    if shape.is_list:
        if not text.startswith("["):
            if "," in text:
                raise UsageError(f"Write lists in brackets: {key}=[{text}] instead of {key}={text}.")
            items = [text]
        elif not text.endswith("]"):
            raise UsageError(f"{key}={show(raw)} is not a closed list; write {key}=[A,B] with a closing bracket.")
        else:
            inner = text[1:-1]
            if "[" in inner or "]" in inner:
                raise UsageError(f"{key}={show(raw)} nests lists; write one flat list, {key}=[A,B].")
            items = [] if not inner.strip() else [_unquote(i.strip()) for i in inner.split(",")]
            if any(not i for i in items):
                raise UsageError(f"{key}={show(raw)} has an empty item; write {key}=[A,B] with no empty entries.")
        try:
            return [scalar(i, shape.kind) for i in items]
        except ValueError:
            raise fail() from None
    try:
        return scalar(_unquote(text), shape.kind)
    except ValueError:
        raise fail() from None


TRUE, FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def scalar(text: str, kind: type) -> Any:
    """``text`` as a ``kind`` (bool, int, float or str); ValueError when it is not one."""
    if kind is bool:
        if text.lower() in TRUE:
            return True
        if text.lower() in FALSE:
            return False
        raise ValueError(text)
    if kind is int:
        if not re.fullmatch(r"[+-]?\d+(_\d+)*", text):
            raise ValueError(text)
        return int(text)
    if kind is float:
        if not re.fullmatch(r"[+-]?(\d[\d_]*\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)", text, flags=re.IGNORECASE):
            raise ValueError(text)
        return float(text)
    if kind is str or kind is object:
        return text
    raise ValueError(text)


def any_value(key: str, raw: str) -> Any:
    """A value of unknown type (submitit parameters, report selections): a number, a boolean, a list or text."""
    text = raw.strip()
    if text.startswith("["):
        return convert(key, raw, Shape(object, is_list=True), Rule(may_be_empty=True), "Bad option")
    for kind in (int, float):
        try:
            return scalar(text, kind)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return _unquote(text)


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _example(rule: Rule, shape: Shape) -> str:
    if rule.choices:
        return show(rule.choices[0])
    if shape.kind is bool:
        return "false,true"
    if shape.kind in (int, float):
        low = rule.low if rule.low is not None else 1
        first = shape.kind(low + (1 if rule.low_open else 0))
        return ",".join(show(shape.kind(first + i)) for i in range(2))
    return "A,B"
