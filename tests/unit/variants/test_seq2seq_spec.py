"""Seq2seq specs: a variant picks its family, presets apply to the right fields, problems are gathered."""

import dataclasses

import pytest

from variants.presets import find_preset
from variants.seq2seq_spec import SUPPORTED_TRANSFORMER_FIELDS, RNNSeq2SeqSpec, Seq2SeqTransformerSpec, resolve_seq2seq
from variants.spec import PresetConflictError, TransformerSpec, problems

RNN, TRANSFORMER = RNNSeq2SeqSpec(vocab_size=100), Seq2SeqTransformerSpec(vocab_size=100, d_model=64, n_heads=4)


@pytest.mark.parametrize(
    "expr,cell,scoring,bidirectional",
    [
        ("rnn", "rnn", "none", False),
        ("gru", "gru", "none", False),
        ("lstm", "lstm", "none", False),
        ("lstm+noattn", "lstm", "none", False),
        ("lstm+additive", "lstm", "additive", False),
        ("lstm+dot", "lstm", "dot", False),
        ("lstm+general", "lstm", "general", False),
        ("lstm+additive+bidirectional", "lstm", "additive", True),
    ],
)
def test_a_cell_word_makes_an_rnn_encoder_decoder(expr, cell, scoring, bidirectional):
    spec = resolve_seq2seq(expr, RNN, TRANSFORMER)
    assert isinstance(spec, RNNSeq2SeqSpec)
    assert (spec.cell, spec.scoring, spec.bidirectional, spec.vocab_size) == (cell, scoring, bidirectional, 100)


def test_other_variants_are_the_transformer_encoder_decoder_with_its_presets():
    spec = resolve_seq2seq("transformer+rope+gqa2+naive", RNN, TRANSFORMER)
    assert isinstance(spec, Seq2SeqTransformerSpec) and isinstance(spec, TransformerSpec)
    assert (spec.position, spec.n_kv_heads, spec.kernel, spec.d_model) == ("rope", 2, "naive", 64)
    assert resolve_seq2seq("transformer", RNN, TRANSFORMER) == TRANSFORMER


@pytest.mark.parametrize(
    "expr,message",
    [
        ("lstm+none", "write 'noattn'"),
        ("gru+rope", "sets position"),
        ("transformer+bidirectional", "Name a cell"),
        ("gru+lstm", "disagree on cell"),
        ("lstm+additive+dot", "disagree on scoring"),
        ("rnn+transformer", "names both"),
    ],
)
def test_mixed_up_variants_are_clear_errors(expr, message):
    with pytest.raises(PresetConflictError, match=message):
        resolve_seq2seq(expr, RNN, TRANSFORMER)


def test_the_rnn_presets_are_registered_and_listed():
    assert find_preset("lstm").fields == {"cell": "lstm"}
    assert find_preset("noattn").fields == {"scoring": "none"}
    assert find_preset("bidirectional").fields == {"bidirectional": True}
    assert find_preset("transformer").fields == {}


def test_specs_of_the_two_families_hash_apart_and_describe_themselves():
    lstm, gru = resolve_seq2seq("lstm", RNN, TRANSFORMER), resolve_seq2seq("gru", RNN, TRANSFORMER)
    assert lstm.to_dict()["family"] == "rnn_seq2seq" and TRANSFORMER.to_dict()["family"] == "transformer_seq2seq"
    assert lstm.content_hash() == resolve_seq2seq("lstm+noattn", RNN, TRANSFORMER).content_hash()
    assert lstm.content_hash() != gru.content_hash()
    assert TRANSFORMER.content_hash() != dataclasses.replace(TRANSFORMER, norm_placement="post").content_hash()


def test_problems_gathers_each_familys_reasons():
    assert problems(resolve_seq2seq("lstm+general+bidirectional", RNN, TRANSFORMER)) == []
    assert problems(TRANSFORMER) == []
    bad_rnn = dataclasses.replace(RNN, cell="tcn", scoring="cosine", d_hidden=0)
    reasons = problems(bad_rnn)
    assert len(reasons) == 3 and "unknown cell 'tcn'" in reasons[0] and "no attention scoring 'cosine'" in reasons[1]
    bad_transformer = dataclasses.replace(TRANSFORMER, n_heads=3, norm_placement="sandwich")
    reasons = problems(bad_transformer)
    assert any("not divisible by n_heads 3" in r for r in reasons) and any("'sandwich'" in r for r in reasons)
    assert any(
        "even head dimension" in r
        for r in problems(dataclasses.replace(TRANSFORMER, d_model=24, n_heads=8, position="rope"))
    )


def test_every_transformer_axis_is_implemented_or_refused():
    """A TransformerSpec field the encoder-decoder ignores would be silently misreported; it must be listed."""
    unhandled = {f.name for f in dataclasses.fields(TransformerSpec)} - SUPPORTED_TRANSFORMER_FIELDS
    for name in unhandled:  # every other axis must keep its default, or problems() names it
        field = next(f for f in dataclasses.fields(TransformerSpec) if f.name == name)
        assert field.default is not dataclasses.MISSING
