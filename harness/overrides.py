"""A profile with ``set.FIELD=value`` overrides applied: each value converted to its field's type and checked.

``bench run ... set.FIELD=value`` and a suite's ``suite.yaml`` (harness/suite_file.py) both build profiles this way,
so a value reads the same written on the command line or in the file.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from harness.errors import UsageError
from harness.profile import Profile


def apply_overrides(profile: Profile, overrides: dict[str, Any]) -> Profile:
    """The profile with ``set.<field>=value`` overrides applied, each converted to its field's type.

    Text values (from the command line) are converted by the field's type (bench/config.py); a value of
    the wrong type is a UsageError naming ``set.FIELD``, the value and what the field takes. Ranges are
    checked with the whole profile (``Profile.check``) when the plan is made.
    """
    from harness.arguments import convert
    from harness.rules import rule_for, shapes, show
    from variants import close_matches

    names = [f.name for f in dataclasses.fields(profile) if f.name not in ("name", "description")]
    for key in overrides:
        if key not in names:
            matches = close_matches(key, names)
            hint = f" Did you mean 'set.{matches[0]}'?" if matches else ""
            raise UsageError(f"Unknown profile setting 'set.{key}'.{hint} Settings of this suite: {', '.join(names)}.")
    if not overrides:
        return profile
    kinds = shapes(type(profile))
    values = {}
    for key, value in overrides.items():
        shape, rule = kinds[key], rule_for(type(profile), key)
        text = value if isinstance(value, str) else show(value)  # a caller in code may pass typed values
        value = convert(f"set.{key}", text, shape, rule, "Bad profile override")
        if shape.kind is float:
            value = [float(v) for v in value] if shape.is_list else float(value)
        values[key] = tuple(value) if shape.is_list else value
    changed = dataclasses.replace(profile, **values)
    from harness.relations import warmup_problem
    from harness.rules import problems_of

    # a value out of its range is said first, by the plan's check (a negative step count is no short run)
    error = warmup_problem(changed, overrides) if not problems_of(changed) else None
    if error:
        raise UsageError(error)
    return changed
