"""A dedicated attention sink: the ``sink_token`` part of a streaming variant expression (``rope+sink_token``).

Xiao et al. 2023 (StreamingLLM, arXiv 2309.17453, section 3.3 and table 3) pre-train with "an extra learnable token
at the beginning of all training samples to serve as a designated attention sink"; such a model streams with that
one token kept (1 + 1023 entries: 18.01 PPL, as with 4 initial tokens), where a vanilla model needs several.

Here the sink is one extra vocabulary entry (id = the corpus's vocabulary size, which no text contains), so its
embedding is learned like any other: every training window and every stream starts with it, and the sink policy
of such a model keeps that one token. It is a way of training, not an axis of the architecture, so no preset of
``variants/`` sets it: this suite reads ``sink_token`` off the expression, resolves the rest as usual and records it
in the job's spec (``sink_token``, and the vocabulary one larger), so the job has its own identity and its records
say how it was trained. Every other spec keeps its dict and hash.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import torch

from variants.spec import TransformerSpec, split_variant

#: the expression part that asks for a dedicated sink token
SINK_TOKEN = "sink_token"


@dataclass(frozen=True)
class SinkTokenSpec(TransformerSpec):
    """A TransformerSpec trained with a dedicated sink token: the last vocabulary id, first in every sequence."""

    sink_token: bool = False

    def to_dict(self) -> dict[str, Any]:
        values = super().to_dict()
        if not values.get("sink_token"):  # a spec without the token keeps the plain spec's dict and hash
            values.pop("sink_token", None)
        return values


def split_sink(variant: str) -> tuple[str, bool]:
    """(the architecture's expression, whether it asks for the sink token): ``'rope+sink_token'`` -> ``('rope', True)``."""
    parts = split_variant(variant)
    rest = [p for p in parts if p != SINK_TOKEN]
    return "+".join(rest) or "baseline", len(rest) < len(parts)


def with_sink(spec: TransformerSpec, wanted: bool) -> TransformerSpec:
    """The spec trained with the sink token (its vocabulary one larger), or ``spec`` unchanged."""
    if not wanted:
        return spec
    fields = dataclasses.asdict(spec)
    fields["vocab_size"] = spec.vocab_size + 1
    return SinkTokenSpec(**fields, sink_token=True)


def sink_id(spec: TransformerSpec) -> int | None:
    """The id of the spec's sink token, or None without one."""
    return spec.vocab_size - 1 if getattr(spec, "sink_token", False) else None


def led_by_sink(tokens: torch.Tensor, sink: int | None) -> torch.Tensor:
    """(B, T) -> (B, T): the sink first and the first T - 1 tokens after it (unchanged without a sink)."""
    if sink is None:
        return tokens
    first = torch.full_like(tokens[:, :1], sink)
    return torch.cat((first, tokens[:, :-1]), dim=1)


def is_sink_spec(spec: Any) -> bool:
    """Whether a stored spec (a dict) or a spec was trained with the sink token."""
    return bool(spec.get("sink_token") if isinstance(spec, dict) else getattr(spec, "sink_token", False))
