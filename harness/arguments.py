"""Reading one ``key=value`` argument: splitting it, refusing what no value may hold (control characters,
``${...}`` interpolation), and converting its text to a field's type (bool, int, float, str, or a list in
brackets). bench/config.py parses whole command lines with these and re-exports them."""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

from harness.errors import UsageError
from harness.rules import Rule, Shape, show, takes
from variants import close_matches


def split_argument(arg: str, keys: list[str], prefix: str = "") -> tuple[str, str]:
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
        raise UsageError(
            f"{prefix}{key}={raw} uses interpolation syntax (${{...}}), which bench does not resolve; "
            f"write the value itself."
        )
    if not raw.strip():
        raise UsageError(
            f"{prefix}{key}= has no value; write {prefix}{key}=VALUE, or leave {prefix}{key} out for its default."
        )
    return key, raw


def check_text(text: str, key: str | None) -> None:
    """Refuse control characters, line separators and undecodable bytes in a key (key None) or a value of ``key``."""
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp"):
            what = (
                "an undecodable byte" if unicodedata.category(ch) == "Cs" else f"the control character U+{ord(ch):04X}"
            )
            where = f"The value of {key} ({show(text)})" if key else f"The option name {show(text)}"
            raise UsageError(f"{where} contains {what}; write printable text only.")


def convert(key: str, raw: str, shape: Shape, rule: Rule, bad: str) -> Any:
    """The value of ``raw`` for a field of ``shape``; a UsageError starting with ``bad`` names the key and what it takes."""

    def fail() -> UsageError:
        return UsageError(
            f"{bad} {key}={show(raw)}: {key} takes {takes(rule, shape)}"
            f"{f', e.g. {key}=[{_example(rule, shape)}]' if shape.is_list else ''}."
        )

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
        value = float(text)
        # 1e-400 reads as 0 and 1e400 as inf: the number written is not the one a job would use
        if (value == 0 and re.search(r"[1-9]", text.lower().partition("e")[0])) or (
            math.isinf(value) and "inf" not in text.lower()
        ):
            raise ValueError(text)
        return value
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
