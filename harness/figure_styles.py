"""How a figure tells variants apart: families by hue, the members of a family by shade, marker and line style.

A figure of fifteen variants in fifteen near-identical hues cannot be read; one in which RoPE and its scalings share
a hue, each with its own marker and dash, can. A variant's family is the first preset of its expression
(``rope+ntk`` -> ``rope``) when every variant of the figure leads with a preset of the same axis (position_extrapolation:
each is a position encoding), else the axis its first preset sets (language_modeling: position, scoring, K/V heads,
normalisation, FFN, recurrence; a suite's own training arms, which set no spec field, are a training recipe).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

#: spec field a preset sets -> the axis a family is named after
AXES = {
    "position": "position",
    "rope_scaling": "position",
    "window": "position",
    "scoring": "scoring",
    "kernel": "kernel",
    "n_kv_heads": "K/V heads",
    "attention": "K/V heads",
    "norm_placement": "normalisation",
    "norm": "normalisation",
    "ffn": "FFN",
    "mixer": "recurrence",
    "attention_every": "recurrence",
}
#: a variant whose first preset sets no spec field (a suite's training arm: depth6, steps2000, no_warmup)
RECIPE = "training recipe"
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p")
#: matplotlib dash patterns: solid, dashed, dotted, dash-dot, long dash, ...
DASHES = ("", (4, 2), (1, 1), (4, 1, 1, 1), (6, 2), (2, 2), (4, 1, 1, 1, 1, 1), (8, 2, 2, 2))


@dataclass(frozen=True)
class Style:
    """One variant's look: its family, colour (an RGB tuple), marker and dash pattern ("" solid)."""

    family: str
    colour: tuple[float, float, float]
    marker: str
    dashes: str | tuple[float, ...]


def axis_of(variant: str) -> str:
    """The axis the first preset of ``variant`` sets ('baseline' for the baseline, RECIPE for a suite's own arm)."""
    from variants.presets import find_preset

    head = variant.split("+")[0]
    if head == "baseline":
        return "baseline"
    preset = find_preset(head)
    if preset is None or not preset.fields:
        return RECIPE
    return AXES.get(next(iter(preset.fields)), next(iter(preset.fields)))


def families(variants: Iterable[str]) -> dict[str, str]:
    """variant -> family: its first preset when every variant's first preset sets one axis, else that axis."""
    names = list(dict.fromkeys(variants))
    axes = {v: axis_of(v) for v in names}
    if len(set(axes.values()) - {"baseline"}) <= 1:
        return {v: v.split("+")[0] for v in names}
    return axes


def styles(variants: Iterable[str]) -> dict[str, Style]:
    """variant -> Style, in the order given: a hue per family (tab10, tab20 past ten families), and within a family
    a shade of it, a marker and a dash pattern per member, in order."""
    import seaborn as sns

    names = list(dict.fromkeys(variants))
    family = families(names)
    order = list(dict.fromkeys(family[v] for v in names))
    palette = sns.color_palette("tab10" if len(order) <= 10 else "tab20", len(order))
    colour = dict(zip(order, palette))
    size = {f: sum(1 for v in names if family[v] == f) for f in order}
    seen: dict[str, int] = {}
    out = {}
    for v in names:
        f = family[v]
        k = seen[f] = seen.get(f, -1) + 1
        out[v] = Style(f, shade(colour[f], k, size[f]), MARKERS[k % len(MARKERS)], DASHES[k % len(DASHES)])
    return out


def shade(base, k: int, n: int) -> tuple[float, float, float]:
    """The k-th of n members' colour: the family's hue, each later member mixed a little more with white (at most
    55%, so the last is still the family's hue)."""
    t = 0.55 * k / (n - 1) if n > 1 else 0.0
    return tuple(float(c) * (1 - t) + t for c in base)
