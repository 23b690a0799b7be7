"""Specs of the sequence-to-sequence families and how a variant expression picks one.

Two families translate a source sentence into a target sentence:
- the RNN encoder-decoder (``RNNSeq2SeqSpec``): a cell (``rnn``, ``gru``, ``lstm``), an optional
  bidirectional encoder or reversed source (Sutskever et al. 2014), an attention ``scoring``: ``none`` (the fixed-vector bottleneck of Cho et al.
  2014 and Sutskever et al. 2014: the decoder starts from the encoder's final state and sees nothing
  else), ``additive`` (Bahdanau et al. 2014), ``dot`` or ``general`` (Luong et al. 2015), and the
  attention ``decoder`` that uses it: ``bahdanau`` (attend from the previous state, feed the context into
  the RNN step) or ``luong`` (attend from the new state, combine after it);
- the Transformer encoder-decoder (``Seq2SeqTransformerSpec``), a TransformerSpec with cross-attention,
  so every Transformer preset (``rope``, ``gqa2``, ``naive``, ...) applies to it.

A variant that names an RNN cell is an RNN encoder-decoder; any other is the Transformer. The attention
field of the RNN family is called ``scoring``, as the Transformer's score-function axis, so the words
``additive``, ``dot`` and ``general`` mean the same score function in both families; ``noattn`` is the
RNN's "no attention" word (``none`` already means position=none). Without ``bahdanau`` or ``luong`` the
decoder follows the paper of the score: ``additive`` alone is Bahdanau's model (``lstm+additive`` =
``lstm+bahdanau+additive``), ``dot`` and ``general`` are Luong's; ``lstm+luong+additive`` or
``gru+bahdanau+dot`` cross them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from .presets import find_preset
from .spec import FamilySpec, PresetConflictError, TransformerSpec, preset_fields, split_variant

#: token ids every sequence-to-sequence model and tokenizer agree on
PAD, BOS, EOS, UNK = 0, 1, 2, 3

#: the rows of variants/models/rnn_cells.py the encoder-decoder builds (the tanh Elman RNN, the GRU and the LSTM)
CELLS = ("rnn", "gru", "lstm")
RNN_SCORINGS = ("none", "additive", "dot", "general", "uniform")
#: where attention sits in the decoder step (variants/models/rnn.py): Bahdanau et al. 2014 or Luong et al. 2015
RNN_DECODERS = ("bahdanau", "luong")


@dataclass(frozen=True)
class RNNSeq2SeqSpec(FamilySpec):
    """An RNN encoder-decoder, one field per axis."""

    family = "rnn_seq2seq"
    late_defaults: ClassVar[dict[str, Any]] = {"reverse_source": False}

    vocab_size: int = 256
    #: the recurrent cell: rnn (Elman, tanh), gru (Cho et al. 2014) or lstm (Hochreiter & Schmidhuber 1997)
    cell: str = "lstm"
    #: attention score function: none (fixed-vector bottleneck), additive, dot or general
    scoring: str = "none"
    #: bahdanau: score from s_{i-1}, context into the RNN input; luong: score from h_t, tanh(W_c [c_t; h_t]) after it
    decoder: str = "luong"
    #: the encoder reads the source both ways (Bahdanau et al. 2014) and a bridge maps its states to the decoder's
    bidirectional: bool = False
    #: the encoder reads the source words in reverse order, EOS kept last (Sutskever et al. 2014, section 3.3)
    reverse_source: bool = False
    d_embed: int = 64
    d_hidden: int = 128
    n_layers: int = 1
    dropout: float = 0.0

    def problems(self, device: str = "cpu", dtype: torch.dtype = torch.float32) -> list[str]:
        """Every reason this spec cannot be built and run (empty if it can)."""
        reasons = []
        if self.cell not in CELLS:
            reasons.append(f"unknown cell '{self.cell}'; choose one of {', '.join(CELLS)}")
        if self.scoring not in RNN_SCORINGS:
            reasons.append(
                f"the RNN encoder-decoder has no attention scoring '{self.scoring}'; choose one of {', '.join(RNN_SCORINGS)}"
            )
        if self.decoder not in RNN_DECODERS:
            reasons.append(f"unknown RNN attention decoder '{self.decoder}'; choose one of {', '.join(RNN_DECODERS)}")
        elif self.decoder == "bahdanau" and self.scoring == "none":
            reasons.append(
                "the bahdanau decoder attends, so it needs a scoring (additive, dot or general); "
                "for no attention write the cell alone"
            )
        for name in ("vocab_size", "d_embed", "d_hidden", "n_layers"):
            if getattr(self, name) < 1:
                reasons.append(f"{name} must be at least 1, got {getattr(self, name)}")
        if device not in ("cpu", "cuda"):
            reasons.append(f"the RNN encoder-decoder runs on cpu/cuda, not {device}")
        return reasons


@dataclass(frozen=True)
class Seq2SeqTransformerSpec(TransformerSpec):
    """A Transformer encoder-decoder: the TransformerSpec axes, n_layers in the encoder and in the decoder."""

    def to_dict(self) -> dict[str, Any]:
        return {"family": "transformer_seq2seq", **super().to_dict()}

    def problems(self, device: str = "cpu", dtype: torch.dtype = torch.float32) -> list[str]:
        """Reasons beyond the Transformer's own (which ``variants.spec.problems`` adds)."""
        # a Transformer axis this model does not implement must not be silently ignored
        from .kernel._base import kernels

        defaults = TransformerSpec()
        reasons = [
            f"the Transformer encoder-decoder does not implement {f.name}={getattr(self, f.name)!r}"
            for f in dataclasses.fields(TransformerSpec)
            if f.name not in SUPPORTED_TRANSFORMER_FIELDS and getattr(self, f.name) != getattr(defaults, f.name)
        ]
        # source padding is masked by an additive score bias in the encoder's and the cross-attention
        if self.kernel in kernels and not kernels.get(self.kernel).takes_score_bias_on(device):
            reasons.append(
                f"kernel '{self.kernel}' takes no score bias on {device}, which the encoder-decoder needs "
                f"to mask source padding"
            )
        return reasons


#: TransformerSpec fields the encoder-decoder honours; any other field must keep its default
SUPPORTED_TRANSFORMER_FIELDS = frozenset(
    {
        "vocab_size",
        "d_model",
        "n_layers",
        "n_heads",
        "n_kv_heads",
        "d_ff",
        "max_len",
        "position",
        "scoring",
        "norm",
        "norm_placement",
        "ffn",
        "kernel",
        "dropout",
    }
)

Seq2SeqSpec = RNNSeq2SeqSpec | Seq2SeqTransformerSpec


def resolve_seq2seq(variant: str, rnn_base: RNNSeq2SeqSpec, transformer_base: Seq2SeqTransformerSpec) -> Seq2SeqSpec:
    """The spec of a translation variant: ``lstm+additive`` -> RNNSeq2SeqSpec, ``transformer+rope`` -> Transformer."""
    presets = split_variant(variant)
    cells = [preset for preset in presets if preset in CELLS]
    if cells and "transformer" in presets:
        raise PresetConflictError(
            f"'{variant}' names both the Transformer and an RNN cell ({cells[0]}); keep one of them."
        )
    rnn = bool(cells)
    fields = preset_fields(variant)
    base = rnn_base if rnn else transformer_base
    own = {f.name for f in dataclasses.fields(base)}
    for preset in presets:
        foreign = sorted(set(find_preset(preset).fields) - own)
        if foreign:
            family = "the RNN encoder-decoder" if rnn else "the Transformer encoder-decoder"
            hint = " For an RNN without attention write 'noattn'." if rnn and preset == "none" else ""
            hint = hint or (" Name a cell (rnn, gru, lstm) for the RNN encoder-decoder." if not rnn else "")
            raise PresetConflictError(
                f"Preset '{preset}' in '{variant}' sets {', '.join(foreign)}, which {family} ({type(base).__name__}) does not have.{hint}"
            )
    if rnn and "decoder" not in fields:
        fields["decoder"] = default_decoder(fields.get("scoring", base.scoring))
    elif rnn and fields["decoder"] == "bahdanau" and fields.get("scoring", base.scoring) == "none":
        raise PresetConflictError(
            f"'{variant}' names the bahdanau attention decoder but no attention scoring; "
            f"add one (additive is Bahdanau's model: {variant}+additive)."
        )
    return dataclasses.replace(base, **fields)


def default_decoder(scoring: str) -> str:
    """The decoder of the paper a scoring comes from: additive -> bahdanau (1409.0473), dot/general/none -> luong."""
    return "bahdanau" if scoring == "additive" else "luong"
