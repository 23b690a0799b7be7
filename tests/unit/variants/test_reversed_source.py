"""The reversed source of Sutskever et al. 2014: the encoder reads the words last to first, EOS last, and a reversed
model is the forward model run on reversed sentences."""

import torch

from variants.models.rnn import reversed_words
from variants.models.seq2seq import build
from variants.seq2seq_spec import EOS, PAD, RNNSeq2SeqSpec, Seq2SeqTransformerSpec, resolve_seq2seq

RNN = RNNSeq2SeqSpec(vocab_size=40, d_embed=8, d_hidden=12)
TRANSFORMER = Seq2SeqTransformerSpec(vocab_size=40)


def test_each_row_is_reversed_before_its_eos_and_padding_stays():
    src = torch.tensor([[5, 6, 7, EOS, PAD, PAD], [8, 9, EOS, PAD, PAD, PAD], [4, EOS, PAD, PAD, PAD, PAD]])
    order = reversed_words(src.ne(PAD).sum(1), src.shape[1])
    assert src.gather(1, order).tolist() == [
        [7, 6, 5, EOS, PAD, PAD],
        [9, 8, EOS, PAD, PAD, PAD],
        [4, EOS, PAD, PAD, PAD, PAD],
    ]
    assert torch.equal(src.gather(1, order).gather(1, order), src)  # its own inverse


def test_the_reversed_model_is_the_forward_model_on_reversed_sentences():
    spec = resolve_seq2seq("lstm+reversed+additive", RNN, TRANSFORMER)
    assert spec.reverse_source and not spec.bidirectional
    torch.manual_seed(0)
    reversed_model = build(spec).eval()
    forward_model = build(resolve_seq2seq("lstm+additive", RNN, TRANSFORMER)).eval()
    forward_model.load_state_dict(reversed_model.state_dict())
    src = torch.tensor([[5, 6, 7, EOS, PAD], [8, 9, 10, 11, EOS]])
    flipped = torch.tensor([[7, 6, 5, EOS, PAD], [11, 10, 9, 8, EOS]])
    prefix = torch.randint(4, 40, (2, 4))
    with torch.no_grad():
        a, wa = reversed_model(src, prefix, return_attention=True)
        b, wb = forward_model(flipped, prefix, return_attention=True)
    assert torch.allclose(a, b, atol=1e-6)
    # the attention weights stay in the source's own order: the reversed model's weight on word j is the forward
    # model's weight on the position word j was read at
    assert torch.allclose(wa[0, :, :3], wb[0, :, :3].flip(-1), atol=1e-6)


def test_a_stored_forward_spec_keeps_its_hash():
    assert "reverse_source" not in resolve_seq2seq("lstm", RNN, TRANSFORMER).to_dict()
    assert resolve_seq2seq("lstm+reversed", RNN, TRANSFORMER).to_dict()["reverse_source"] is True
