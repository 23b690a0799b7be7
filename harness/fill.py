"""The command that would fill a gap: a `bench run` for a suite, with a variant expression it resolves as wanted.

A claim no record tests, or a cell of the quality x cost table no record measures, says "not run" and
gives the command to run. The variant expression is checked against the suite's own resolution of it
(its base spec for the profile), so the command measures the design the row stands for.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional, Sequence

from harness.design import FIELDS, design_of, key, preset_for


def run_command(suite: str, variants: Sequence[str] = (), profile: Optional[str] = None,
                results_dir: Optional[str] = None) -> str:
    """'bench run suite=kv_cache variants=[rope,rope+mqa] profile=standard' (defaults left out)."""
    parts = ["bench run", f"suite={suite}"]
    if variants:
        parts.append(f"variants=[{','.join(variants)}]")
    if profile:
        parts.append(f"profile={profile}")
    if results_dir and str(results_dir) != "results":
        parts.append(f"results_dir={results_dir}")
    return " ".join(parts)


def _resolved_design(suite, variant: str, profile) -> Optional[dict]:
    try:
        spec = suite.spec_for(variant, profile, {})
    except Exception:  # a variant this suite cannot resolve is simply not a candidate
        return None
    data = spec.to_dict() if hasattr(spec, "to_dict") else dict(spec)
    return design_of(data) if "n_heads" in data else None


def variant_for(suite, wanted: Mapping[str, Any], fields: Sequence[str] = FIELDS, profile_name: Optional[str] = None,
                   candidates: Iterable[str] = ()) -> Optional[str]:
    """A variant expression whose spec in ``suite`` has ``wanted``'s values of ``fields``, or None.

    ``candidates`` (the names the variant ran under elsewhere) first, unless the kernel is among ``fields``;
    then an expression made of the presets that set each field differing from the suite's base spec, with
    one round of presets for fields it still misses (language_modeling widens a grouped variant's FFN unless
    told ``unmatched``).
    """
    name = profile_name if profile_name in suite.profiles else suite.default_profile
    profile = suite.resolved_profile(suite.profiles[name], {})
    goal = key(wanted, tuple(fields))

    def fits(variant: str) -> bool:
        got = _resolved_design(suite, variant, profile)
        return got is not None and key(got, tuple(fields)) == goal

    if "kernel" not in fields:  # a kernel-keyed column (attention_cost) reads best as the kernel's own name
        named = next((variant for variant in dict.fromkeys(candidates) if fits(variant)), None)
        if named:
            return named
    base = _resolved_design(suite, "baseline", profile)
    if base is None:
        return None
    presets = []
    for field in fields:
        if base.get(field) != wanted.get(field):
            presets.append(preset_for(field, wanted.get(field)))
    if None in presets:
        return next((variant for variant in dict.fromkeys(candidates) if fits(variant)), None)
    # no field differs from the base spec: name the kernel when it matters (attention_cost's variants are kernels)
    variant = "+".join(presets) or (str(wanted["kernel"]) if "kernel" in fields and wanted.get("kernel") else "baseline")
    if fits(variant):
        return variant
    got = _resolved_design(suite, variant, profile) or {}
    extra = [preset_for(f, wanted.get(f)) for f in fields if got.get(f) != wanted.get(f)]
    if extra and None not in extra and fits("+".join(presets + extra)):
        return "+".join(presets + extra)
    return next((variant for variant in dict.fromkeys(candidates) if fits(variant)), None)
