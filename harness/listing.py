"""What ``bench list`` prints: suites, variant presets, positions, kernels and plugins."""

from __future__ import annotations

from typing import List

from tabulate import tabulate

SECTIONS = ("suites", "variants", "positions", "kernels", "plugins")


def _suites() -> str:
    from suites._suite import suites

    rows = [[e.name, ", ".join(e.obj.profiles), e.summary] for e in suites.entries()]
    return tabulate(rows, headers=["suite", "profiles", "description"], tablefmt="simple")


def _variants() -> str:
    from variants.presets import all_preset_names, find_preset

    rows = []
    for name in all_preset_names():
        preset = find_preset(name)
        fields = ", ".join(f"{k}={v}" for k, v in preset.fields.items())
        rows.append([name, fields, preset.summary])
    text = tabulate(rows, headers=["preset", "sets", "description"], tablefmt="simple")
    text += "\nCompose presets with '+', e.g. variants=[alibi+naive,rope+gqa2]; gqa<g> works for any g."
    from variants.seq2seq_spec import RNN_SCORING_PRESETS

    rnn_only = [p for name, p in RNN_SCORING_PRESETS.items() if find_preset(name) is None]
    if rnn_only:  # attention words of the RNN encoder-decoder (suite translation), e.g. lstm+additive
        text += "\nWith an RNN cell (rnn, gru, lstm): " + "; ".join(f"{p.name}: {p.summary.rstrip('.')}" for p in rnn_only) + "."
    return text


def _positions() -> str:
    from variants.position._base import positions

    rows = [[e.name, e.summary] for e in positions.entries()]
    return tabulate(rows, headers=["position", "description"], tablefmt="simple")


def _kernels() -> str:
    from variants.kernel._base import kernels

    rows = []
    for e in kernels.entries():
        k = e.obj
        missing = k.unavailable()
        rows.append([e.name, "no: " + missing if missing else "yes", "/".join(k.devices),
                     "yes" if k.takes_score_bias else "no", "yes" if k.native_gqa else "no", e.summary])
    return tabulate(rows, headers=["kernel", "available", "devices", "score bias", "native GQA", "description"],
                    tablefmt="simple")


def _plugins() -> str:
    from variants._registry import plugin_statuses

    statuses = plugin_statuses()
    if not statuses:
        return "No plugins installed (entry-point group 'bench.plugins')."
    rows = [[s.name, s.target, "loaded" if s.error is None else f"BROKEN: {s.error}"] for s in statuses]
    return tabulate(rows, headers=["plugin", "entry point", "status"], tablefmt="simple")


RENDERERS = {"suites": _suites, "variants": _variants, "positions": _positions, "kernels": _kernels, "plugins": _plugins}


def render(what: str = "all") -> str:
    """The text of one section, or of every section."""
    names: List[str] = list(SECTIONS) if what == "all" else [what]
    parts = []
    for name in names:
        body = RENDERERS[name]()
        parts.append(f"== {name} ==\n{body}" if what == "all" else body)
    broken = [s for s in __import__("variants._registry", fromlist=["x"]).plugin_statuses() if s.error]
    if broken and what != "plugins":
        parts.append("Warning: " + "; ".join(f"plugin '{s.name}' failed to load ({s.error})" for s in broken)
                     + ". The other components are listed above.")
    return "\n\n".join(parts)
