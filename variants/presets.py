"""Named partial specs that variant expressions are written in (``alibi``, ``mqa``, ``gqa4``, ``post_ln``).

Three kinds of names resolve to presets: every registered component of an axis is a preset of that axis
(``rope`` sets position, ``naive`` kernel, ``additive`` scoring, ``rmsnorm`` norm, ``swiglu`` ffn); the
named presets registered here; and the parametric ``gqa<g>`` (grouped-query attention with g key/value
heads, Ainslie et al. 2023), ``window<W>`` (sliding-window attention over the last W keys),
``<rope scaling><s>`` (``yarn4``: YaRN at a fixed s = 4 instead of ``auto``), and ``state<N>`` / ``chunk<C>``
(a matrix-state mixer's key dimension per head and its training chunk: ``mamba2+state16``). A name registered on two axes would be ambiguous and is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ._registry import Registry
from .attention._base import attentions
from .errors import UserError
from .ffn._base import ffns
from .kernel._base import kernels
from .mixer._base import mixers
from .norm._base import norms
from .position._base import positions
from .rope_scaling._base import rope_scalings
from .scoring._base import scorings


class AmbiguousPresetError(UserError, ValueError):
    """A preset name registered on more than one axis."""


@dataclass(frozen=True)
class Preset:
    """A named partial spec: the fields it sets and a one-line description."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)
    summary: str = ""


presets: Registry[Preset] = Registry("preset", list_command="bench list variants")

#: (registry, spec field): every key of the registry is a preset setting that field
AXES: tuple[tuple[Registry, str], ...] = (
    (positions, "position"),
    (kernels, "kernel"),
    (scorings, "scoring"),
    (norms, "norm"),
    (ffns, "ffn"),
    (rope_scalings, "rope_scaling"),
    (mixers, "mixer"),
    (attentions, "attention"),
)

_GQA = re.compile(r"^gqa(\d+)$")
_WINDOW = re.compile(r"^window(\d+)$")
_STATE = re.compile(r"^state(\d+)$")
_HYBRID = re.compile(r"^hybrid(\d+)$")
_CHUNK = re.compile(r"^chunk(\d+)$")
_SCALED = re.compile(r"^([a-z_]+?)(\d+(?:\.\d+)?)$")  # a rope scaling at a fixed s: yarn4, pi2.5


#: the numbered presets and the numbers each takes, for the sentence that refuses a number out of range
NUMBERED = (
    (_GQA, "gqa<G> takes G >= 1 key/value heads"),
    (_WINDOW, "window<W> takes W >= 1 tokens"),
    (_STATE, "state<N> takes N >= 1 (the key or state dimension per head)"),
    (_HYBRID, "hybrid<k> takes k >= 1 (every k-th block attention)"),
    (_CHUNK, "chunk<C> takes C >= 1 tokens"),
)


def out_of_range(preset: str) -> str:
    """The sentence for a numbered preset whose number no layer can take (``state0``), or '' if it is not one."""
    for pattern, rule in NUMBERED:
        if pattern.match(preset):
            return f"Preset '{preset}' is out of range: {rule}"
    return ""


def _add(preset: str, summary: str, **fields: Any) -> None:
    presets.add(preset, Preset(preset, fields, summary), summary=summary)


_add("baseline", "The suite's base spec unchanged (scaled_dot, MHA, Pre-LN, layernorm, gelu, sdpa).")
_add("mha", "Multi-head attention: one key/value head per query head (Vaswani et al. 2017).", n_kv_heads=None)
_add("mqa", "Multi-query attention: one key/value head shared by all query heads (Shazeer 2019).", n_kv_heads=1)
_add(
    "unmatched",
    "Keep the FFN at its default width: language_modeling then compares gqa<g>/mqa at fewer parameters "
    "instead of widening d_ff to the baseline's count.",
    d_ff=None,
)
_add("pre_ln", "Pre-LN: x + f(norm(x)), final norm before the output (Xiong et al. 2020).", norm_placement="pre")
_add("post_ln", "Post-LN: norm(x + f(x)), as in the original Transformer (Vaswani et al. 2017).", norm_placement="post")
# model families named by their recurrent cell (variants/seq2seq_spec.py, variants/models/recurrent.py): in translation a
# cell selects the RNN encoder-decoder, in gradient_flow a recurrent LM; any other expression is the Transformer
_add("rnn", "Elman RNN, tanh cells (Elman 1990); in translation the RNN encoder-decoder (Cho et al. 2014).", cell="rnn")
_add("rnn_relu", "Elman RNN with ReLU cells (Le et al. 2015, arXiv 1504.00941).", cell="rnn_relu")
_add(
    "irnn",
    "IRNN: Elman RNN with ReLU cells, recurrent weight the identity and biases 0 (Le, Jaitly & Hinton 2015, arXiv "
    "1504.00941).",
    cell="rnn_relu",
    recurrent_init="identity",
)
_add(
    "rnn_orthogonal",
    "Elman RNN with tanh cells, recurrent weight a random orthogonal matrix (Saxe, McClelland & Ganguli 2014, arXiv "
    "1312.6120).",
    cell="rnn",
    recurrent_init="orthogonal",
)
_add("gru", "GRU cells (Cho et al. 2014); in translation the RNN encoder-decoder.", cell="gru")
_add(
    "lstm",
    "LSTM cells (Hochreiter & Schmidhuber 1997); in translation the RNN encoder-decoder (Sutskever et al. 2014).",
    cell="lstm",
)
_add("noattn", "RNN encoder-decoder without attention: the fixed-vector bottleneck (Cho et al. 2014).", scoring="none")
_add(
    "bahdanau",
    "RNN attention decoder of Bahdanau et al. 2014: score from s_{i-1}, context fed into the RNN step "
    "(1409.0473, 3.1); the default with additive.",
    decoder="bahdanau",
)
_add(
    "luong",
    "RNN attention decoder of Luong et al. 2015: score from the new h_t, then tanh(W_c [c_t; h_t]) "
    "(1508.04025, 3); the default with dot and general.",
    decoder="luong",
)
_add("bidirectional", "RNN encoder that reads the source both ways (Bahdanau et al. 2014).", bidirectional=True)
_add(
    "reversed",
    "RNN encoder that reads the source words in reverse order, EOS last (Sutskever et al. 2014, arXiv 1409.3215, 3.3).",
    reverse_source=True,
)
_add(
    "loop",
    "A recurrent layer run as a Python loop over nn.LSTMCell/nn.GRUCell, one call per token, instead of the "
    "fused multi-step module (sequence_cost).",
    recurrence="loop",
)
_add(
    "transformer",
    "The Transformer (Vaswani et al. 2017); in translation the encoder-decoder, elsewhere the suite's decoder.",
)
# initialisation and output tying of the Transformer and the mixer LMs (variants/models/init_scheme.py)
_add(
    "fan_in",
    "Weights drawn from N(0, 1/fan_in), a projection keeping its input's scale at any width (LeCun et al. "
    "1998); the recall suite's default.",
    init="fan_in",
)
_add(
    "gpt2_init",
    "Weights drawn from N(0, 0.02), GPT-2's scale (Radford et al. 2019); the default outside recall.",
    init="gpt2",
)
_add(
    "untied",
    "An output layer of its own instead of the token embedding's transpose; the recall suite's default.",
    tie_embeddings=False,
)
_add(
    "tied",
    "The output layer shares the token embedding's matrix (Press & Wolf 2017, arXiv 1608.05859).",
    tie_embeddings=True,
)


def find_preset(preset: str) -> Preset | None:
    """The Preset one part of a variant stands for (``gqa2`` of ``rope+gqa2``), or None when no kind of preset matches."""
    axes = [(registry, spec_field) for registry, spec_field in AXES if preset in registry]
    if len(axes) + (preset in presets) > 1:
        kinds = [r.kind for r, _ in axes] + (["named preset"] if preset in presets else [])
        raise AmbiguousPresetError(
            f"Preset '{preset}' is ambiguous: it is registered as a {' and a '.join(kinds)}; rename one."
        )
    if preset in presets:
        return presets.get(preset)
    if axes:
        registry, spec_field = axes[0]
        # a component may set the other spec fields it reads (latent attention: its latent's norm)
        extra = getattr(registry.get(preset), "preset_fields", {})
        return Preset(preset, {spec_field: preset, **extra}, registry._entries[preset].summary)
    match = _GQA.match(preset)
    if match and int(match.group(1)) >= 1:
        groups = int(match.group(1))
        return Preset(
            preset,
            {"n_kv_heads": groups},
            f"Grouped-query attention with {groups} key/value heads (Ainslie et al. 2023).",
        )
    match = _WINDOW.match(preset)
    if match and int(match.group(1)) >= 1:
        window = int(match.group(1))
        return Preset(
            preset,
            {"window": window},
            f"Sliding-window attention: each query sees its last {window} keys, a "
            f"rolling cache of {window} slots (Beltagy et al. 2020, arXiv 2004.05150; Jiang et al. 2023, Mistral 7B, "
            f"arXiv 2310.06825).",
        )
    match = _STATE.match(preset)
    if match and int(match.group(1)) >= 1:
        size = int(match.group(1))
        return Preset(
            preset,
            {"state_size": size},
            f"A matrix-state mixer (mamba2, gla, deltanet, gated_deltanet) with "
            f"key (Mamba-2: state) dimension {size} per head: the size of what it can remember.",
        )
    match = _HYBRID.match(preset)
    if match and int(match.group(1)) >= 1:
        k = int(match.group(1))
        return Preset(
            preset,
            {"attention_every": k},
            f"A hybrid mixer stack: every {k}-th block softmax attention in "
            "place of the recurrence (Waleffe et al. 2024, arXiv 2406.07887); with window<W>, sliding-window "
            "attention (Arora et al. 2024, Based, arXiv 2402.18668).",
        )
    match = _CHUNK.match(preset)
    if match and int(match.group(1)) >= 1:
        size = int(match.group(1))
        return Preset(
            preset,
            {"chunk_size": size},
            f"A chunked mixer's training form in chunks of {size} tokens (the same function, summed in another order).",
        )
    match = _SCALED.match(preset)
    if match and match.group(1) in rope_scalings:
        scaling, s = match.group(1), float(match.group(2))
        return Preset(
            preset,
            {"rope_scaling": scaling, "rope_scale": s},
            f"Rope scaling '{scaling}' at a fixed s = {s:g} instead of auto (evaluation length / training length).",
        )
    return None


def all_preset_names() -> list[str]:
    """Every concrete preset name (the parametric family shown as examples)."""
    names = set(presets.names()) | {"gqa2", "gqa4", "yarn4", "window64"}
    for registry, _ in AXES:
        names |= set(registry.names())
    return sorted(names)
