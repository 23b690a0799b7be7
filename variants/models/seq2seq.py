"""The model a sequence-to-sequence spec describes: the RNN encoder-decoder or the Transformer encoder-decoder.

The specs and how a translation variant picks its family are variants/seq2seq_spec.py; the models are rnn.py and
seq2seq_transformer.py beside this module. Both offer ``start(src)`` and ``step(state, tokens)``, which the greedy
and beam searches of variants/decode/beam_search.py decode with.
"""

from __future__ import annotations

from ..seq2seq_spec import RNNSeq2SeqSpec, Seq2SeqSpec
from .rnn import RNNSeq2Seq
from .seq2seq_transformer import TransformerSeq2Seq


def build(spec: Seq2SeqSpec) -> RNNSeq2Seq | TransformerSeq2Seq:
    """The model a sequence-to-sequence spec describes (RNNSeq2Seq or TransformerSeq2Seq)."""
    if isinstance(spec, RNNSeq2SeqSpec):
        return RNNSeq2Seq(spec)
    return TransformerSeq2Seq(spec)
