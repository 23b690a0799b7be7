"""``bench list``: what is registered, printed: suites, variant presets, each axis's components, kernels, support
and plugins.

    bench list [suites|variants|positions|scorings|norms|ffns|kernels|support|plugins]
"""

from __future__ import annotations

from tabulate import tabulate

from harness.errors import UsageError

SECTIONS = ("suites", "variants", "positions", "scorings", "norms", "ffns", "kernels", "support", "plugins")


def _suites() -> str:
    from harness.contract import suites

    rows = [[e.name, ", ".join(e.obj.profiles), e.summary] for e in suites.entries()]
    return tabulate(rows, headers=["suite", "profiles", "description"], tablefmt="simple")


def _variants() -> str:
    from variants.presets import all_preset_names, find_preset

    rows = []
    for preset in all_preset_names():
        found = find_preset(preset)
        fields = ", ".join(f"{k}={v}" for k, v in found.fields.items())
        rows.append([preset, fields, found.summary])
    text = tabulate(rows, headers=["preset", "sets", "description"], tablefmt="simple")
    return text + (
        "\nCompose presets with '+', e.g. variants=[alibi+naive,rope+gqa2,rope+yarn]; gqa<g> works for any g, "
        "window<W> for any W, <rope scaling><s> (yarn4, pi2) fixes a RoPE scaling's s, and state<N> / "
        "chunk<C> set a matrix-state mixer's key dimension per head and chunk (mamba2+state16)."
    )


def _axis(registry, heading: str) -> str:
    rows = [[e.name, e.summary] for e in registry.entries()]
    return tabulate(rows, headers=[heading, "description"], tablefmt="simple")


def _positions() -> str:
    from variants.position import positions
    from variants.rope_scaling import rope_scalings

    return (
        _axis(positions, "position")
        + "\n\n"
        + _axis(rope_scalings, "rope_scaling")
        + "\nA RoPE scaling extends a rope model at evaluation: rope+yarn (s = evaluation length / training length), "
        "rope+yarn4 (s = 4)."
    )


def _scorings() -> str:
    from variants.scoring import scorings

    return (
        _axis(scorings, "scoring")
        + "\nDot-product scorings run on every kernel; the others only on kernels that materialise scores (naive)."
    )


def _norms() -> str:
    from variants.norm import norms, placements

    return (
        _axis(norms, "norm")
        + "\n\n"
        + _axis(placements, "norm_placement")
        + "\nPresets pre_ln and post_ln set norm_placement."
    )


def _ffns() -> str:
    from variants.ffn import ffns

    return _axis(ffns, "ffn")


def _kernels() -> str:
    from bench.report.support import availability_table

    table = availability_table()
    return tabulate(table.values.tolist(), headers=list(table.columns), tablefmt="simple")


def _support() -> str:
    from bench.report.support import render_markdown

    return render_markdown()


def _plugins() -> str:
    from variants import plugin_statuses

    statuses = plugin_statuses()
    if not statuses:
        return "No plugins installed (entry-point group 'bench.plugins')."
    rows = [[s.name, s.target, "loaded" if s.error is None else f"BROKEN: {s.error}"] for s in statuses]
    return tabulate(rows, headers=["plugin", "entry point", "status"], tablefmt="simple")


RENDERERS = {
    "suites": _suites,
    "variants": _variants,
    "positions": _positions,
    "scorings": _scorings,
    "norms": _norms,
    "ffns": _ffns,
    "kernels": _kernels,
    "support": _support,
    "plugins": _plugins,
}


def render(what: str = "all") -> str:
    """The text of one section, or of every section."""
    # the support matrix is long; `bench list support` prints it on its own
    from variants import plugin_statuses

    names: list[str] = [s for s in SECTIONS if s != "support"] if what == "all" else [what]
    parts = []
    for name in names:
        body = RENDERERS[name]()
        parts.append(f"== {name} ==\n{body}" if what == "all" else body)
    broken = [s for s in plugin_statuses() if s.error]
    if broken and what != "plugins":
        parts.append(
            "Warning: "
            + "; ".join(f"plugin '{s.name}' failed to load ({s.error})" for s in broken)
            + ". The other components are listed above."
        )
    return "\n\n".join(parts)


def run(args: list[str]) -> int:
    """Print the section the first argument names, or every section but the support matrix."""
    what = args[0] if args else "all"
    if what not in SECTIONS and what != "all":
        raise UsageError(f"Unknown list '{what}'; choose one of {', '.join(SECTIONS)}.")
    print(render(what))
    return 0
