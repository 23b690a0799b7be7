"""Bahdanau's and Luong's RNN attention decoders: where the query comes from, and stepping equals teacher forcing."""

import pytest
import torch

from variants.models.seq2seq import build
from variants.seq2seq_spec import EOS, PAD, RNNSeq2SeqSpec, Seq2SeqTransformerSpec, resolve_seq2seq
from variants.spec import PresetConflictError

RNN = RNNSeq2SeqSpec(vocab_size=40, d_embed=8, d_hidden=12, n_layers=2)
TRANSFORMER = Seq2SeqTransformerSpec(vocab_size=40)


def model_of(expr, seed=0):
    torch.manual_seed(seed)
    return build(resolve_seq2seq(expr, RNN, TRANSFORMER)).eval()


def source():
    src = torch.randint(4, 40, (3, 6))
    src[0, 4:] = PAD  # one padded sentence
    src[:, -1] = EOS
    src[0, 3] = EOS
    return src


def record_queries(model):
    """Wrap the attention so every query (B, T, H) it receives is kept."""
    queries, forward = [], model.attention.forward

    def recording(query, *args):
        queries.append(query.detach().clone())
        return forward(query, *args)

    model.attention.forward = recording
    return queries


@pytest.mark.parametrize(
    "expr, attends_from",
    [
        # 1409.0473, 3.1: e_ij = a(s_{i-1}, h_j); the query at step i is the top layer's state before step i
        ("lstm+bahdanau+additive", "before"),
        ("gru+bahdanau+dot", "before"),
        ("rnn+bahdanau+general+bidirectional", "before"),
        # 1508.04025, 3: the new target state h_t is compared with each source state
        ("lstm+luong+additive", "after"),
        ("gru+dot", "after"),
        ("rnn+general+bidirectional", "after"),
    ],
)
def test_each_decoder_attends_from_the_state_its_paper_names(expr, attends_from):
    """Bahdanau's decoder queries with the state before the RNN step, Luong's with the state after it."""
    model = model_of(expr)
    queries = record_queries(model)
    state = model.start(source())
    with torch.no_grad():
        for token in (1, 5, 9):
            before = state["h"][:, -1]  # (B, H): s_{i-1} of the top layer (the initial state at step 0)
            _, state = model.step(state, torch.full((3,), token))
            after = state["h"][:, -1]
            used, other = (before, after) if attends_from == "before" else (after, before)
            assert torch.equal(queries[-1][:, 0], used)
            assert not torch.allclose(queries[-1][:, 0], other)


@pytest.mark.parametrize("expr", ["lstm+bahdanau+additive", "gru+bahdanau+dot+bidirectional", "lstm+luong+general"])
def test_stepwise_decoding_matches_teacher_forcing(expr):
    model = model_of(expr, seed=1)
    src, prefix = source(), torch.randint(4, 40, (3, 5))
    with torch.no_grad():
        full = torch.log_softmax(model(src, prefix), dim=-1)  # (B, T, V)
        state = model.start(src)
        for t in range(prefix.shape[1]):
            log_probs, state = model.step(state, prefix[:, t])
            assert torch.allclose(log_probs, full[:, t], atol=1e-5)


@pytest.mark.parametrize(
    "expr,decoder",
    [
        ("lstm+additive", "bahdanau"),
        ("lstm+dot", "luong"),
        ("gru+general", "luong"),
        ("lstm", "luong"),
        ("lstm+luong+additive", "luong"),
        ("gru+bahdanau+general", "bahdanau"),
        ("lstm+bahdanau+additive", "bahdanau"),
    ],
)
def test_additive_alone_is_bahdanaus_model_and_a_named_decoder_wins(expr, decoder):
    assert resolve_seq2seq(expr, RNN, TRANSFORMER).decoder == decoder
    assert resolve_seq2seq("lstm+additive", RNN, TRANSFORMER) == resolve_seq2seq(
        "lstm+bahdanau+additive", RNN, TRANSFORMER
    )


def test_bahdanau_without_a_scoring_or_on_a_transformer_is_an_error():
    with pytest.raises(PresetConflictError, match="no attention scoring"):
        resolve_seq2seq("lstm+bahdanau", RNN, TRANSFORMER)
    with pytest.raises(PresetConflictError, match="sets decoder"):
        resolve_seq2seq("transformer+luong", RNN, TRANSFORMER)
