"""What an axis reads of a spec: the fields a position, scoring, kernel, attention layer or RoPE scaling asks for.

A ``typing.Protocol``, so the axes' protocols (each folder's ``_base.py``) name the type they read without importing
``variants.spec``, which imports every axis to check a spec: the spec sits above the axes, and this module below
them. ``TransformerSpec`` and the encoder-decoder's ``Seq2SeqTransformerSpec`` have every field.
"""

from __future__ import annotations

from typing import Protocol


class AxisSpec(Protocol):
    """The fields of a Transformer spec that the axes read (read-only; variants/spec.py documents each)."""

    @property
    def d_model(self) -> int: ...

    @property
    def n_heads(self) -> int: ...

    @property
    def n_kv_heads(self) -> int | None: ...

    @property
    def head_dim(self) -> int: ...

    @property
    def kv_heads(self) -> int: ...

    @property
    def max_len(self) -> int: ...

    @property
    def position(self) -> str: ...

    @property
    def scoring(self) -> str: ...

    @property
    def window(self) -> int | None: ...

    @property
    def rope_scaling(self) -> str | None: ...

    @property
    def rope_scale(self) -> str | float: ...
