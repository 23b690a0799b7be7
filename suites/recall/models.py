"""The recall suite's model families at matched parameters: the Transformer, the LSTM and the mixer LMs.

A variant expression picks the family: one that sets a recurrent ``cell`` (``lstm``) builds a RecurrentSpec, one
that sets a ``mixer`` (``mingru``, ``linear_attention``) a MixerSpec, any other a TransformerSpec on the profile's
base (``rope``, ``alibi``, ``t5_bias``, ``none``). The Transformer's width is the profile's ``d_model``; every
other family gets the width whose model, built for the task with the largest vocabulary, has the parameter
count nearest the Transformer's (counted on the built model, on the meta device).
"""

from __future__ import annotations

import dataclasses

import torch

from variants.models import mixer_lm
from variants.models.mixer_lm import MixerSpec
from variants.models.recurrent import RecurrentSpec
from variants.spec import TransformerSpec


def for_task(spec, vocab_size: int, max_len: int):
    """The spec with a task's vocabulary (and, for a Transformer, its training length)."""
    if isinstance(spec, TransformerSpec):
        return dataclasses.replace(spec, vocab_size=vocab_size, max_len=max_len)
    return dataclasses.replace(spec, vocab_size=vocab_size)


def state_numbers(spec, tokens: int) -> int:
    """Numbers a model keeps per sequence to decode the next token after ``tokens`` tokens: a Transformer's KV cache
    (2 x layers x kv_heads x head_dim x tokens, variants/decode/cache_size.py), an LSTM's h and c per layer (one vector for
    the other cells), a mixer LM's states (each mixer's ``state_numel``: fixed for a recurrence, growing for a
    hybrid's attention blocks). Counted from the spec on the meta device, no weights drawn."""
    if isinstance(spec, RecurrentSpec):
        return (2 if spec.cell == "lstm" else 1) * spec.n_layers * spec.d_hidden
    if isinstance(spec, MixerSpec):
        with torch.device("meta"):
            return mixer_lm.build(spec).state_numel(tokens)
    from variants.decode.cache_size import spec_cache_bytes

    return spec_cache_bytes(spec, tokens, bytes_per_element=1)


def spec_from_record(fields: dict):
    """The spec a record's ``spec`` column describes (its ``family`` picks the class; none is the Transformer)."""
    fields = dict(fields)
    family = fields.pop("family", None)
    kind = {"recurrent": RecurrentSpec, "mixer": MixerSpec}.get(family, TransformerSpec)
    known = {f.name for f in dataclasses.fields(kind)}
    return kind(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items() if k in known})
