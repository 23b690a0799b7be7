"""Architecture specs, preset expressions that build them, and the problems that stop them running.

A spec is a frozen dataclass with one field per axis: a registry key (``position="rope"``,
``scoring="additive"``, ``norm="rmsnorm"``, ``norm_placement="post"``, ``ffn="swiglu"``, ``kernel="flex"``)
or a number (``n_kv_heads=2``). A preset is a named partial spec; a variant is a preset expression such as
``alibi+sdpa``: presets compose with ``+``, and two presets that set one field differently are an error.

One name per concept along the path from the command line to the preset table: ``variants`` is a list of
variant expressions (``variants=[rope,alibi+gqa2]``), ``variant`` one of them (``alibi+gqa2``), ``preset``
one of its ``+``-separated parts (``gqa2``), and ``find_preset(preset)`` the Preset it stands for (its fields).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from ._registry import UnknownNameError, close_matches
from .attention._base import attentions
from .errors import UserError
from .ffn._base import ffns
from .kernel._base import kernels
from .models.init_scheme import init_problem
from .norm._base import norms, placements
from .position._base import positions
from .presets import Preset, all_preset_names, find_preset
from .rope_scaling._base import rope_scalings, scale_problem
from .scoring._base import scorings


class PresetConflictError(UserError, ValueError):
    """Two presets of one expression set the same field to different values."""


class PresetFieldError(UserError, ValueError):
    """A preset sets a field the suite's kind of spec does not have (``gru`` on a Transformer)."""


@dataclass(frozen=True)
class TransformerSpec:
    """A Transformer language model, one field per architectural axis."""

    vocab_size: int = 256
    d_model: int = 128
    n_layers: int = 2
    n_heads: int = 8
    #: key/value heads: None = one per query head (MHA), 1 = MQA, g = GQA with g groups
    n_kv_heads: int | None = None
    #: FFN hidden size of the two-matrix baseline; None = 4 x d_model (gated FFNs take 2/3 of it)
    d_ff: int | None = None
    #: the training length; a learned position table has this many rows
    max_len: int = 64
    position: str = "sinusoidal"
    #: how a query and a key become a score (variants/scoring/)
    scoring: str = "scaled_dot"
    #: norm layer (variants/norm/) and where blocks put it: "pre" (Pre-LN) or "post" (Post-LN)
    norm: str = "layernorm"
    norm_placement: str = "pre"
    #: position-wise feed-forward layer (variants/ffn/)
    ffn: str = "gelu"
    #: attention kernel (variants/kernel/); sdpa_<backend> pins one SDPA backend
    kernel: str = "sdpa"
    dropout: float = 0.0
    #: a RoPE context extension applied at evaluation (variants/rope_scaling/: pi, ntk, dynamic_ntk, yarn), or None
    rope_scaling: str | None = None
    #: its scale s: a number >= 1, or "auto" = max(1, evaluation length / max_len)
    rope_scale: str | float = "auto"
    #: the blocks' self-attention layer (variants/attention/): "grouped" (MHA/GQA/MQA by n_kv_heads) or "mla"
    attention: str = "grouped"
    #: sliding-window attention: each query sees its last ``window`` keys, itself included (None: every earlier key)
    window: int | None = None
    #: latent attention: an RMSNorm on the latent before its up-projections, as DeepSeek-V2's code and its 3.1.2 have
    #: it (the ``mla`` preset sets True; None for every other attention)
    latent_norm: bool | None = None
    #: weight initialisation (variants/models/init_scheme.py): "gpt2" (N(0, 0.02)) or "fan_in" (N(0, 1/fan_in))
    init: str = "gpt2"
    #: the output layer shares the token embedding's matrix (Press & Wolf 2017); False gives it its own
    tie_embeddings: bool = True

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    @property
    def kv_heads(self) -> int:
        return self.n_heads if self.n_kv_heads is None else self.n_kv_heads

    def to_dict(self) -> dict[str, Any]:
        """Every field, except fields added after results were stored when they keep their default (so the
        hashes of earlier jobs, and their stored results, stay valid)."""
        return without_late_defaults(dataclasses.asdict(self), LATE_DEFAULTS)

    def without_rope_scaling(self) -> TransformerSpec:
        """The spec a RoPE scaling is applied to: the same weights, trained with plain RoPE."""
        return dataclasses.replace(self, rope_scaling=None, rope_scale="auto")

    def content_hash(self) -> str:
        """A short stable hash of every field (part of a job's identity)."""
        return stable_hash(self.to_dict())


#: TransformerSpec fields added after results were stored, with their defaults (left out of to_dict at these)
LATE_DEFAULTS: dict[str, Any] = {
    "rope_scaling": None,
    "rope_scale": "auto",
    "attention": "grouped",
    "window": None,
    "latent_norm": None,
    "init": "gpt2",
    "tie_embeddings": True,
}


def without_late_defaults(values: dict[str, Any], late: dict[str, Any]) -> dict[str, Any]:
    """A spec's fields without those added after results were stored that keep their default (so the hashes of
    earlier jobs, and their stored results, stay valid)."""
    return {name: value for name, value in values.items() if not (name in late and value == late[name])}


def stable_hash(obj: Any, length: int = 16) -> str:
    """SHA-256 of canonical JSON (sorted keys), truncated to ``length`` hex digits."""
    text = json.dumps(obj, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:length]


class FamilySpec:
    """The dict and hash of a spec of another model family than TransformerSpec's (a frozen dataclass that sets
    ``family``): its fields tagged with the family, so that two families' specs never share a dict or a hash."""

    family: ClassVar[str] = ""
    #: fields added after results were stored, with their defaults (left out of to_dict at these, so the hashes of
    #: earlier jobs stay valid)
    late_defaults: ClassVar[dict[str, Any]] = {}

    def to_dict(self) -> dict[str, Any]:
        return {"family": self.family, **without_late_defaults(dataclasses.asdict(self), self.late_defaults)}

    def content_hash(self) -> str:
        return stable_hash(self.to_dict())


def split_variant(variant: str) -> list[str]:
    """The presets of a variant: ``'alibi+gqa2'`` -> ``['alibi', 'gqa2']``; empty parts are an error."""
    presets = [preset.strip() for preset in str(variant).split("+")]
    if not variant or any(not preset for preset in presets):
        raise ValueError(
            f"Variant expression '{variant}' has an empty part; write presets joined by '+', e.g. 'alibi+sdpa'."
        )
    repeated = sorted({preset for preset in presets if presets.count(preset) > 1})
    if repeated:  # the same model under a second name would be trained again
        raise PresetConflictError(
            f"Variant expression '{variant}' names {', '.join(repeated)} more than once; name each preset once."
        )
    return presets


def preset_fields(variant: str) -> dict[str, Any]:
    """The merged field values of a variant's presets; unknown or disagreeing presets raise."""
    merged: dict[str, Any] = {}
    origin: dict[str, str] = {}  # spec field -> the preset that set it
    for preset in split_variant(variant):
        found = find_preset(preset)
        if found is None:
            from variants.presets import out_of_range

            refused = out_of_range(preset)
            if refused:
                raise UnknownNameError(f"{refused} (in '{variant}').")
            matches = close_matches(preset, all_preset_names())
            hint = f" Did you mean {' or '.join(repr(m) for m in matches)}?" if matches else ""
            raise UnknownNameError(
                f"Unknown variant preset '{preset}' in '{variant}'.{hint} Run `bench list variants` to see all."
            )
        for field, value in found.fields.items():
            if field in merged and merged[field] != value:
                raise PresetConflictError(
                    f"Presets '{origin[field]}' and '{preset}' in '{variant}' disagree on {field} "
                    f"({merged[field]!r} vs {value!r}); keep one of them."
                )
            merged[field], origin[field] = value, preset
    return merged


def resolve(variant: str, base: Any | None = None) -> Any:
    """The spec a variant describes, on top of ``base`` (a profile's model size; any spec dataclass)."""
    base = base or TransformerSpec()
    fields = preset_fields(variant)
    unknown = set(fields) - {f.name for f in dataclasses.fields(base)}
    if unknown:
        raise PresetFieldError(
            f"Preset expression '{variant}' sets {', '.join(sorted(unknown))}, which a "
            f"{type(base).__name__} does not have; this suite does not compare such variants."
        )
    return dataclasses.replace(base, **fields)


def problems(
    spec: TransformerSpec, device: str = "cpu", dtype: torch.dtype = torch.float32, *, training: bool = True
) -> list[str]:
    """Every reason ``spec`` cannot be built and run on ``device`` in ``dtype`` (empty if it can).

    ``training`` asks for a backward pass too (a suite that only runs forward passes sets it False).
    A spec type may list reasons of its own with a ``problems(device, dtype)`` method: a spec of another
    family (the RNN encoder-decoder) gives all of them there; a TransformerSpec subclass adds to these.
    """
    own = spec.problems(device, dtype) if hasattr(spec, "problems") else []
    if not isinstance(spec, TransformerSpec):
        return own
    reasons: list[str] = list(own)
    if spec.n_heads < 1 or spec.d_model % spec.n_heads:
        reasons.append(f"d_model {spec.d_model} is not divisible by n_heads {spec.n_heads}")
    if spec.n_kv_heads is not None and (spec.n_kv_heads < 1 or spec.n_heads % spec.n_kv_heads):
        reasons.append(f"n_kv_heads {spec.n_kv_heads} must divide n_heads {spec.n_heads}")
    if spec.window is not None and (
        not isinstance(spec.window, int) or isinstance(spec.window, bool) or spec.window < 1
    ):
        reasons.append(f"window {spec.window!r} must be a whole number of keys >= 1 (or None for no window)")
    if bad_init := init_problem(spec.init):
        reasons.append(bad_init)
    if not isinstance(spec.tie_embeddings, bool):
        reasons.append(f"tie_embeddings must be true or false, not {spec.tie_embeddings!r}")
    axes = (
        (positions, spec.position),
        (scorings, spec.scoring),
        (norms, spec.norm),
        (placements, spec.norm_placement),
        (ffns, spec.ffn),
        (kernels, spec.kernel),
        (attentions, spec.attention),
    )
    unknown = [registry.unknown_message(key) for registry, key in axes if key not in registry]
    if unknown:
        return reasons + unknown
    reasons += positions.get(spec.position).problems(spec)
    reasons += _rope_scaling_problems(spec)
    reasons += scorings.get(spec.scoring).problems(spec)
    reasons += attentions.get(spec.attention).problems(spec, device, dtype, training)
    reasons += kernels.get(spec.kernel).problems(spec, device, dtype, training=training)
    return reasons


def _rope_scaling_problems(spec: TransformerSpec) -> list[str]:
    """Why the spec's RoPE scaling cannot apply: a scale without a scaling, an unknown name, a position that does not
    rotate by RoPE, or the scaling's own reasons."""
    if spec.rope_scaling is None:
        problem = scale_problem(spec.rope_scale)
        if spec.rope_scale != "auto":
            return [
                problem or f"rope_scale={spec.rope_scale!r} is set but no rope scaling is named (pi, ntk, yarn, ...)"
            ]
        return []
    if spec.rope_scaling not in rope_scalings:
        return [rope_scalings.unknown_message(spec.rope_scaling)]
    scaling = rope_scalings.get(spec.rope_scaling)
    reasons = []
    if spec.position in positions and not getattr(positions.get(spec.position), "rotary", False):
        reasons.append(
            f"rope scaling '{scaling.name}' changes RoPE's frequencies, and position '{spec.position}' does "
            f"not rotate queries and keys by RoPE; write rope+{scaling.name}"
        )
    return reasons + scaling.problems(spec)


__all__ = [
    "TransformerSpec",
    "Preset",
    "resolve",
    "problems",
    "preset_fields",
    "stable_hash",
    "PresetConflictError",
    "PresetFieldError",
]
