"""The command that would fill a gap: a `bench run` for a suite, with a variant expression it resolves as wanted.

A claim no record tests, or a cell of the quality x cost table no record measures, says "not run" and
gives the command to run. The variant expression is checked against the suite's own resolution of it
(its base spec for the profile), so the command measures the design the row stands for.
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.index.design import design_of


def run_command(
    suite: str, variants: Sequence[str] = (), profile: str | None = None, results_dir: str | None = None
) -> str:
    """'bench run suite=kv_cache variants=[rope,rope+mqa] profile=standard' (defaults left out)."""
    parts = ["bench run", f"suite={suite}"]
    if variants:
        parts.append(f"variants=[{','.join(variants)}]")
    if profile:
        parts.append(f"profile={profile}")
    if results_dir and str(results_dir) != "results":
        parts.append(f"results_dir={results_dir}")
    return " ".join(parts)


def _resolved_design(suite, variant: str, profile) -> dict | None:
    try:
        spec = suite.spec_for(variant, profile, {})
    except Exception:  # a variant this suite cannot resolve is simply not a candidate
        return None
    data = spec.to_dict() if hasattr(spec, "to_dict") else dict(spec)
    return design_of(data) if "n_heads" in data else None
