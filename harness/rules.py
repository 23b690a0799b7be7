"""What values a setting accepts, declared once per field and checked before any compute.

Every field of a Profile (and of the command-line configs) has a rule from its type unless its class
declares another in its ``rules`` class attribute: a whole number (``int``) is at least 1, a real
number (``float``) is finite and above 0, text is not empty, and a tuple or list is non-empty with
distinct items that each follow the field's rule. Classes declare only the exceptions
(``"warmup_steps": at_least(0, "0 = none")``, ``"protocol": one_of(*PROTOCOLS)``) and, in
``problems()``, the relations between fields (those every profile shares: harness/relations.py). A value
outside its rule is a UsageError of one sentence that names the setting, the value and what the setting takes.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from harness.errors import UsageError


@dataclass(frozen=True)
class Rule:
    """The values one setting (or each item of a list setting) accepts."""

    low: float | None = None
    high: float | None = None
    #: whether ``low`` / ``high`` themselves are excluded
    low_open: bool = False
    high_open: bool = False
    choices: tuple[Any, ...] | None = None
    #: lists: whether the empty list is allowed, and whether items must be strictly increasing
    may_be_empty: bool = False
    increasing: bool = False
    #: what a special value means, said after the range ("0 = none")
    meaning: str = ""
    #: a further check of the whole value: (key, value) -> a full sentence when the value is unusable
    check: Callable[[str, Any], str | None] | None = None

    def describe(self, kind: type) -> str:
        """What one item takes, e.g. 'a whole number >= 1' or 'one of nonoverlapping, sliding'."""
        if self.choices is not None:
            return "one of " + ", ".join(show(c) for c in self.choices)
        noun = {int: "a whole number", float: "a finite number", bool: "true or false", str: "non-empty text"}.get(
            kind, "a value"
        )
        bounds = []
        if self.low is not None:
            bounds.append(f"{'>' if self.low_open else '>='} {_num(self.low)}")
        if self.high is not None:
            bounds.append(f"{'<' if self.high_open else '<='} {_num(self.high)}")
        return noun + (" " + " and ".join(bounds) if bounds else "") + (f" ({self.meaning})" if self.meaning else "")

    def item_ok(self, value: Any, kind: type) -> bool:
        """Whether one scalar ``value`` has type ``kind`` and lies within the rule."""
        if kind is bool:
            ok = isinstance(value, bool)
        elif kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        elif kind is str:
            ok = isinstance(value, str) and value.strip() != ""
        else:
            ok = True
        if not ok:
            return False
        if self.choices is not None:
            return value in self.choices
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            return False
        if self.high is not None and (value > self.high or (self.high_open and value == self.high)):
            return False
        return True


def at_least(low: float, meaning: str = "") -> Rule:
    return Rule(low=low, meaning=meaning)


def above(low: float, meaning: str = "") -> Rule:
    return Rule(low=low, low_open=True, meaning=meaning)


def between(low: float, high: float, *, low_open: bool = False, high_open: bool = False, meaning: str = "") -> Rule:
    return Rule(low=low, high=high, low_open=low_open, high_open=high_open, meaning=meaning)


def one_of(*choices: Any) -> Rule:
    return Rule(choices=tuple(choices))


#: the rule of a field whose class declares none, by the type of the field (or of its items)
DEFAULTS: dict[type, Rule] = {int: at_least(1), float: above(0), str: Rule(), bool: Rule()}

#: fields no rule applies to (labels, not settings)
UNCHECKED = ("name", "description")


@dataclass(frozen=True)
class Shape:
    """A field's type as the rules see it: the scalar type and whether it is a list, optional or a mapping."""

    kind: type
    is_list: bool = False
    optional: bool = False
    is_dict: bool = False


def shape_of(hint: Any) -> Shape:
    """``list[int] | None`` (or ``Optional[List[int]]``) -> Shape(int, is_list=True, optional=True), and so on."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return (
            dataclasses.replace(shape_of(inner[0]), optional=True) if len(inner) == 1 else Shape(object, optional=True)
        )
    if origin in (tuple, list):
        item = args[0] if args else object
        return Shape(item if isinstance(item, type) else object, is_list=True)
    if origin is dict:
        return Shape(object, is_dict=True)
    return Shape(hint if isinstance(hint, type) else object)


def shapes(cls: type) -> dict[str, Shape]:
    """Field name -> Shape of a dataclass's fields."""
    hints = typing.get_type_hints(cls)
    return {f.name: shape_of(hints[f.name]) for f in dataclasses.fields(cls)}


def declared(cls: type, attribute: str) -> dict[str, Any]:
    """The dict class attribute ``attribute`` (``rules``, ``limits``) declared by ``cls`` and its bases, merged,
    the subclass's entries winning."""
    merged: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        merged.update(klass.__dict__.get(attribute, None) or {})
    return merged


def declared_rules(cls: type) -> dict[str, Rule]:
    """The ``rules`` declared by ``cls`` and its bases, the subclass's winning."""
    return declared(cls, "rules")


def rule_for(cls: type, name: str) -> Rule:
    return declared_rules(cls).get(name) or DEFAULTS.get(shapes(cls)[name].kind, Rule())


def takes(rule: Rule, shape: Shape) -> str:
    """What a field takes, in words: 'a whole number >= 1', 'a non-empty list of distinct items, each ...'."""
    if shape.is_dict:
        return "FIELD=VALUE entries"
    if not shape.is_list:
        return rule.describe(shape.kind)
    size = "a possibly empty" if rule.may_be_empty else "a non-empty"
    order = "increasing " if rule.increasing else ""
    return f"{size} list of distinct {order}items, each {rule.describe(shape.kind)}"


def value_problem(key: str, value: Any, shape: Shape, rule: Rule) -> str | None:
    """One sentence on why ``value`` of setting ``key`` breaks ``rule``, or None."""
    if value is None and shape.optional:
        return None
    if shape.is_dict:
        return None
    what = takes(rule, shape)
    if shape.is_list:
        items = list(value) if isinstance(value, (tuple, list)) else None
        if items is None:
            return f"{key}={show(value)} is not a list; {key} takes {what}."
        if not items and not rule.may_be_empty:
            return f"{key}=[] is empty; {key} takes {what}."
        for item in items:
            if not rule.item_ok(item, shape.kind):
                return f"{key}={show(items)} has the item {show(item)}; {key} takes {what}."
        if len(set(items)) != len(items):
            twice = next(i for i in items if items.count(i) > 1)
            return f"{key}={show(items)} has {show(twice)} twice; {key} takes {what}."
        if rule.increasing and any(b <= a for a, b in zip(items, items[1:])):
            return f"{key}={show(items)} is not increasing; {key} takes {what}."
    elif not rule.item_ok(value, shape.kind):
        return f"{key}={show(value)} is not allowed; {key} takes {what}."
    return rule.check(key, value) if rule.check else None


def field_problem(obj: Any, name: str, prefix: str = "set.") -> str | None:
    """Why field ``name`` of dataclass ``obj`` breaks its rule (the setting named ``prefix + name``), or None."""
    cls = type(obj)
    return value_problem(prefix + name, getattr(obj, name), shapes(cls)[name], rule_for(cls, name))


def check_fields(obj: Any, prefix: str = "set.", skip: Iterable[str] = UNCHECKED) -> None:
    """Raise a UsageError on the first field of ``obj`` that breaks its rule."""
    for problem in problems_of(obj, prefix, skip):
        raise UsageError(problem)


def problems_of(obj: Any, prefix: str = "set.", skip: Iterable[str] = UNCHECKED) -> list[str]:
    """Every field rule ``obj`` breaks, in field order."""
    out = []
    for f in dataclasses.fields(obj):
        if f.name not in skip:
            problem = field_problem(obj, f.name, prefix)
            if problem:
                out.append(problem)
    return out


def limit_problems(obj: Any) -> list[str]:
    """One sentence per setting of ``obj`` above the setting its class's ``limits`` bound it by:
    ``limits = {"map_len": ("train_len", why it may not exceed it)}``, merged along the bases as ``rules`` are."""
    out = []
    for key, (limit, why) in declared(type(obj), "limits").items():
        value, most = getattr(obj, key), getattr(obj, limit)
        if value > most:
            out.append(f"set.{key}={show(value)} exceeds set.{limit}={show(most)}: {why}; give at most {show(most)}.")
    return out


def show(value: Any) -> str:
    """A value as it is written on the command line; text with odd characters is escaped."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return value if value and value.isprintable() and value.strip() == value else repr(value)
    if isinstance(value, (tuple, list)):
        return "[" + ",".join(show(i) for i in value) + "]"
    return str(value)


def _num(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)
