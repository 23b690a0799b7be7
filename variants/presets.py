"""Named partial specs that variant expressions are written in (``alibi``, ``mqa``, ``gqa4``).

Three kinds of names resolve to presets: every registered position encoding and kernel is a preset of
its own axis (``rope`` sets position, ``naive`` sets kernel); the named presets registered here; and
the parametric ``gqa<g>`` (grouped-query attention with g key/value heads, Ainslie et al. 2023).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ._registry import Registry
from .kernel._base import kernels
from .position._base import positions


@dataclass(frozen=True)
class Preset:
    """A named partial spec: the fields it sets and a one-line description."""

    name: str
    fields: Dict[str, Any] = field(default_factory=dict)
    summary: str = ""


presets: Registry[Preset] = Registry("preset", list_command="bench list variants")

_GQA = re.compile(r"^gqa(\d+)$")


def _add(name: str, summary: str, **fields: Any) -> None:
    presets.add(name, Preset(name, fields, summary), summary=summary)


_add("mha", "Multi-head attention: one key/value head per query head (Vaswani et al. 2017).", n_kv_heads=None)
_add("mqa", "Multi-query attention: one key/value head shared by all query heads (Shazeer 2019).", n_kv_heads=1)
# Model families for suites that compare recurrent models with the Transformer (variants/recurrent.py).
_add("transformer", "The Transformer decoder (Vaswani et al. 2017) with the suite's default axes.")
_add("rnn_tanh", "Elman RNN with tanh (Elman 1990).", cell="tanh")
_add("rnn_relu", "Elman RNN with ReLU (Le et al. 2015, arXiv 1504.00941).", cell="relu")
_add("gru", "Gated recurrent unit (Cho et al. 2014, arXiv 1406.1078).", cell="gru")
_add("lstm", "Long short-term memory (Hochreiter & Schmidhuber 1997).", cell="lstm")


def find_preset(name: str) -> Optional[Preset]:
    """The preset a name stands for, or None when no kind of preset matches."""
    if name in presets:
        return presets.get(name)
    if name in positions:
        return Preset(name, {"position": name}, positions._entries[name].summary)
    if name in kernels:
        return Preset(name, {"kernel": name}, kernels._entries[name].summary)
    match = _GQA.match(name)
    if match and int(match.group(1)) >= 1:
        groups = int(match.group(1))
        return Preset(name, {"n_kv_heads": groups}, f"Grouped-query attention with {groups} key/value heads (Ainslie et al. 2023).")
    return None


def all_preset_names() -> List[str]:
    """Every concrete preset name (the parametric family shown as examples)."""
    return sorted(set(presets.names()) | set(positions.names()) | set(kernels.names()) | {"gqa2", "gqa4"})
