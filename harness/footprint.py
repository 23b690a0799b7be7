"""What a job's settings ask of the machine, known before any compute: a lower bound on its largest tensors' bytes,
and the longest sequence it feeds a model.

Each estimate is one tensor the job must hold at once (float32, 4 bytes an element), counted from the profile's
fields and the suite's base spec alone, and kept a lower bound (a projection's weights, not the whole layer's), so
that a refusal is never wrong: a setting whose tensor cannot fit in this machine's memory is refused at planning
with one sentence, instead of every job failing to allocate it after the training before it.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any

from harness.rules import show

#: bytes of one float32 element
FLOAT_BYTES = 4
#: profile fields that set a vocabulary's size (besides the corpus's), named when an embedding is too large
VOCAB_FIELDS = ("vocab_size", "mqar_keys", "mqar_values", "copy_alphabet")


@dataclass(frozen=True)
class Tensor:
    """One tensor a job must hold: what it is, the settings it grows with, and its element count."""

    what: str
    keys: tuple[str, ...]
    elements: int

    @property
    def bytes(self) -> int:
        return self.elements * FLOAT_BYTES


def memory_bytes() -> int | None:
    """This machine's physical memory in bytes, or None where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _value(profile: Any, name: str) -> int | None:
    """The whole number a field holds (the largest, for a list), or None where the profile lacks it."""
    value = getattr(profile, name, None)
    items = value if isinstance(value, (tuple, list)) else [value]
    numbers = [v for v in items if isinstance(v, int) and not isinstance(v, bool)]
    return max(numbers) if numbers else None


def longest_sequence(profile: Any) -> int | None:
    """The longest sequence, in positions, that a job of ``profile`` feeds a model (None where no field says)."""
    v = lambda name: _value(profile, name)  # noqa: E731
    train, multipliers = v("train_len"), v("eval_multipliers")
    candidates = [
        train * multipliers if train and multipliers else train,
        v("lengths"),
        v("decode_contexts"),
        v("path_contexts"),
        v("stream_len"),
        v("max_len"),
        v("map_len"),
        v("contexts") + (v("generate") or 0) if v("contexts") else None,
    ]
    found = [c for c in candidates if c]
    return max(found) if found else None


def estimates(profile: Any, spec: Any = None) -> list[Tensor]:
    """The tensors, each a lower bound for any variant and kernel, that a job of ``profile`` (and its suite's base
    ``spec``) must hold: weights, embeddings, one layer's activations and logits; never attention scores, which a
    fused kernel or a recurrence does not materialise."""
    v = lambda name: _value(profile, name)  # noqa: E731
    width = v("d_model") or getattr(spec, "d_model", None)
    layers = v("n_layers") or v("depths") or v("transformer_layers") or 1
    vocab = getattr(spec, "vocab_size", None) or v("vocab_size")
    batch, length = v("batch_size") or v("batch") or 1, v("train_len")
    vocab_keys = tuple(k for k in VOCAB_FIELDS if v(k) is not None)
    out: list[Tensor] = []
    if width:
        # the query, key, value and output projections of every layer (the feed-forward comes on top)
        out.append(Tensor("the attention weights", ("d_model", "n_layers", "depths"), 4 * layers * width * width))
    if width and vocab:
        out.append(Tensor(f"the embedding table of {vocab} symbols", (*vocab_keys, "d_model"), vocab * width))
    if v("d_hidden"):
        out.append(Tensor("the recurrent weights", ("d_hidden",), 4 * v("d_hidden") ** 2))
    if length and width:
        out.append(
            Tensor(
                "one layer's activations of a training batch",
                ("batch_size", "train_len", "d_model"),
                batch * length * width,
            )
        )
        if v("eval_multipliers"):
            out.append(
                Tensor(
                    "one layer's activations at the longest evaluation length",
                    ("train_len", "eval_multipliers", "d_model"),
                    length * v("eval_multipliers") * width,
                )
            )
    if length and vocab:
        out.append(
            Tensor(
                f"the logits of a training batch over {vocab} symbols",
                ("batch_size", "train_len", *vocab_keys),
                batch * length * vocab,
            )
        )
    if v("lengths"):
        per_token = (v("n_heads") or 1) * v("head_dim") if v("head_dim") else width
        if per_token:
            out.append(
                Tensor(
                    "the queries at the longest length",
                    ("batch", "n_heads", "head_dim", "lengths", "d_model"),
                    (v("batch") or 1) * v("lengths") * per_token,
                )
            )
    if v("matmul_sizes"):
        out.append(Tensor("the matrix product's operands and result", ("matmul_sizes",), 3 * v("matmul_sizes") ** 2))
    for name in ("contexts", "decode_contexts"):
        if v(name) and width:
            out.append(
                Tensor(
                    "one layer's activations at the longest context",
                    ("batch", name, "generate", "d_model"),
                    (v("batch") or 1) * (v(name) + (v("generate") or 0)) * width,
                )
            )
    if v("path_contexts") and v("path_head_dim"):  # at least one key/value head
        out.append(
            Tensor(
                "the key-value cache of the paths' longest context",
                ("path_contexts", "path_head_dim"),
                2 * v("path_contexts") * v("path_head_dim"),
            )
        )
    if v("max_len") and vocab and v("decode_batch"):
        out.append(
            Tensor(
                f"the logits of a decoding step over {vocab} symbols",
                ("decode_batch", "beam_size", "vocab_size"),
                v("decode_batch") * (v("beam_size") or 1) * vocab,
            )
        )
    return out


def human_bytes(n: float) -> str:
    """``n`` bytes in the largest binary unit that keeps it at least 1 (``'3.5 GiB'``)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"


def footprint_problem(profile: Any, spec: Any = None, memory: int | None = None) -> str | None:
    """The sentence refusing settings whose largest tensor alone exceeds this machine's memory, or None."""
    memory = memory_bytes() if memory is None else memory
    if not memory:
        return None
    too_big = [t for t in estimates(profile, spec) if t.bytes > memory]
    if not too_big:
        return None
    worst = max(too_big, key=lambda t: t.bytes)
    names = {f.name for f in dataclasses.fields(profile)}
    settings = ", ".join(f"set.{k}={show(getattr(profile, k))}" for k in dict.fromkeys(worst.keys) if k in names)
    verb = "make" if "," in settings else "makes"
    return (
        f"{settings} {verb} {worst.what} alone at least {human_bytes(worst.bytes)}, more than this machine's "
        f"{human_bytes(memory)} of memory (counted from the settings, before any compute); give smaller values."
    )


def window_problem(variant: str, spec: Any, longest: int | None) -> str | None:
    """The sentence refusing a sliding window longer than ``longest``, every sequence the suite feeds (full
    attention under another name, and a second identity for the same model), or None."""
    window = getattr(spec, "window", None)
    if not isinstance(window, int) or isinstance(window, bool) or longest is None or window <= longest:
        return None
    return (
        f"variants=[{variant}] asks for a window of {window} keys, longer than the longest sequence this run feeds "
        f"a model ({longest} positions), where it is full attention; give a window of at most {longest}."
    )
