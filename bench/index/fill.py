"""The command that would fill a gap: a `bench run` of a suite, with the variants and profile a row stands for.

A claim no record tests, or a cell of the quality x cost table no record measures, says "not run" and
gives the command to run.
"""

from __future__ import annotations

from collections.abc import Sequence


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
