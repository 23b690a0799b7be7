"""Relations between settings that every suite's profile obeys where it has the fields, checked before any compute.

A field's own rule (harness/rules.py) checks one value; these check several together: the heads divide the width,
the key/value heads divide the heads, a copy buffer fits in memory, no whole number is too large for torch, and a
warm-up the user set is not longer than the run. Each broken relation is one sentence naming the settings and what
to give instead; bench/run/plan.py applies them to every profile (a suite adds its own in ``problems``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from harness.rules import show

#: the largest whole number any setting takes: seeds, steps and sizes reach torch as 32-bit values
MAX_INT = 2**31 - 1


def heads_problem(d_model: int, n_heads: int) -> str | None:
    """The sentence saying that set.n_heads does not divide set.d_model (each head has d_model / n_heads
    dimensions), or None: no variant can be built then, so it is an input error, not a skipped job."""
    if isinstance(n_heads, int) and n_heads >= 1 and isinstance(d_model, int) and d_model % n_heads:
        small = [h for h in range(1, int(d_model**0.5) + 1) if d_model % h == 0]  # O(sqrt(d_model)) for huge widths
        divisors = sorted(set(small + [d_model // h for h in small]))
        shown = ", ".join(str(h) for h in divisors[:16]) + (", ..." if len(divisors) > 16 else "")
        return f"set.n_heads={n_heads} does not divide set.d_model={d_model}; give one of {shown}."
    return None


def _heads(profile: Any) -> str | None:
    return heads_problem(profile.d_model, profile.n_heads)


def _kv_heads(profile: Any) -> str | None:
    n_heads, n_kv = profile.n_heads, profile.n_kv_heads
    if isinstance(n_kv, int) and n_kv >= 1 and n_heads % n_kv:
        return f"set.n_kv_heads={n_kv} does not divide set.n_heads={n_heads}; give a divisor of {n_heads}."
    return None


def _memory(profile: Any, name: str) -> str | None:
    """A buffer of ``name`` MiB, copied (source and destination), must fit in this machine's memory."""
    from harness.footprint import memory_bytes

    memory = memory_bytes()
    if not memory:
        return None
    total = memory // 2**20
    value = getattr(profile, name)
    if isinstance(value, int) and 2 * value > total:
        return (
            f"set.{name}={value} asks for {2 * value} MiB (a source and a destination buffer), more than this "
            f"machine's {total} MiB of memory; give at most {total // 2}."
        )
    return None


#: relations between settings that every suite's profile obeys where it has the fields: (fields, check).
#: One table, applied by bench/run/plan.py to every profile before any compute (a suite adds its own in ``problems``).
RELATIONS: tuple[tuple[tuple[str, ...], Callable[[Any], str | None]], ...] = (
    (("d_model", "n_heads"), _heads),
    (("n_heads", "n_kv_heads"), _kv_heads),
    (("copy_mib",), lambda p: _memory(p, "copy_mib")),
)


def relation_problems(profile: Any) -> list[str]:
    """Every shape rule of ``RELATIONS`` the profile breaks, and every whole-number setting above ``MAX_INT``."""
    names = {f.name for f in dataclasses.fields(profile)}
    out = []
    for fields, check in RELATIONS:
        if set(fields) <= names:
            problem = check(profile)
            if problem:
                out.append(problem)
    for f in dataclasses.fields(profile):
        value = getattr(profile, f.name)
        items = value if isinstance(value, (tuple, list)) else [value]
        big = [v for v in items if isinstance(v, int) and not isinstance(v, bool) and v > MAX_INT]
        if big:
            out.append(f"set.{f.name}={show(value)} is larger than any setting takes; give at most {MAX_INT}.")
    return out


def warmup_problem(profile: Any, given: Iterable[str]) -> str | None:
    """The sentence refusing a warm-up the user set longer than the run (the learning rate would never peak),
    or None. A profile's own warm-up above a lowered ``set.steps`` is left alone: short smoke runs are common,
    and the warm-up is then the user's choice to keep."""
    given = set(given)
    for warm in ("warmup_steps", "transformer_warmup_steps"):
        if warm not in given or not hasattr(profile, warm) or not hasattr(profile, "steps"):
            continue
        value, steps = getattr(profile, warm), profile.steps
        if isinstance(value, int) and isinstance(steps, int) and value > steps:
            return (
                f"set.{warm}={value} is longer than the run (set.steps={steps}): the learning rate would never "
                f"reach its peak; give set.{warm} at most {steps}."
            )
    return None
