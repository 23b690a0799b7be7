"""A variant's design: the fields of its resolved spec that say what it is, not how big it is.

Suites train or time models of different sizes (d_model, layers, heads, vocabulary), so two suites'
records of one variant are joined on the design of their resolved specs: position encoding, score,
key/value grouping, norm placement, norm, FFN, FFN width and kernel. The index's quality x cost table
has one row per design; each cost column matches only the fields its measurement depends on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: the design fields, in the order a design is written
FIELDS = ("position", "scoring", "grouping", "norm_placement", "norm", "ffn", "ffn_width", "kernel")
#: what the default Transformer spec has; a design is written as its differences from these
DEFAULTS = {
    "position": "none",
    "scoring": "scaled_dot",
    "grouping": "MHA",
    "norm_placement": "pre",
    "norm": "layernorm",
    "ffn": "gelu",
    "ffn_width": "4 x d_model",
    "kernel": "sdpa",
}

Design = tuple[tuple[str, Any], ...]


def grouping(spec: Mapping[str, Any]) -> str:
    """'MHA', 'MQA' or 'GQA-<k>' for k key/value heads (the name of the gqa<k> preset)."""
    kv = spec.get("n_kv_heads")
    if kv is None or kv == spec.get("n_heads"):
        return "MHA"
    return "MQA" if kv == 1 else f"GQA-{kv}"


def is_transformer(spec: Any) -> bool:
    """Whether a stored spec is a decoder Transformer's trained on its suite's schedule (the only kind the quality x
    cost table joins). A spec with a warm-up of its own (language_modeling's ``long_warmup`` control arm) is a
    training recipe, not a design: joined on its design it would be averaged with the same design's own runs."""
    return (
        isinstance(spec, Mapping)
        and "n_heads" in spec
        and spec.get("family") in (None, "transformer")
        and spec.get("warmup_fraction") is None
    )


def score_bias(position: Any) -> str:
    """The position encoding when it adds a bias to attention scores (what attention alone costs), else 'none'."""
    from variants.position import adds_score_bias, positions

    if position is None or position not in positions:
        return "none"
    return str(position) if adds_score_bias(positions.get(position)) else "none"


def design_of(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The design fields of a stored (resolved) Transformer spec, and ``score_bias`` derived from its position."""
    return {
        "score_bias": score_bias(spec.get("position")),
        "position": spec.get("position"),
        "scoring": spec.get("scoring"),
        "grouping": grouping(spec),
        "norm_placement": spec.get("norm_placement"),
        "norm": spec.get("norm"),
        "ffn": spec.get("ffn"),
        "ffn_width": "4 x d_model" if spec.get("d_ff") is None else "widened to match MHA parameters",
        "kernel": spec.get("kernel"),
    }


def key(design: Mapping[str, Any], fields: tuple[str, ...] = FIELDS) -> Design:
    """A hashable key of the named fields of a design (FIELDS, or any of them and ``score_bias``)."""
    return tuple((f, design.get(f)) for f in fields)


def describe(design: Mapping[str, Any]) -> str:
    """The design as its differences from the defaults: 'alibi, GQA-2' ('default' when it has none)."""
    parts = []
    for f in FIELDS:
        value = design.get(f)
        if value is None or value == DEFAULTS[f]:
            continue
        parts.append({"norm_placement": f"{value}-LN", "ffn_width": f"d_ff {value}"}.get(f, str(value)))
    return ", ".join(parts) or "default"
