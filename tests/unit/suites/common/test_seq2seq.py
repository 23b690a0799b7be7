"""Seq2seq models and decoding: overfitting to BLEU 100, beam 1 = greedy, attention masks, padding invariance."""

import pytest
import torch

from harness.train import TrainSettings, train
from suites.common.bleu import corpus_scores
from suites.common.data.subword import SubwordVocab
from suites.common.seq2seq import seq2seq_loss, teacher_batch, translate
from variants.decode.beam_search import beam_search, greedy, length_penalty
from variants.models.seq2seq import build
from variants.seq2seq_spec import EOS, PAD, RNNSeq2SeqSpec, Seq2SeqTransformerSpec, resolve_seq2seq

PAIRS = [
    ("one hundred and five", "cent cinq"),
    ("ninety-seven; twelve", "quatre-vingt-dix-sept ; douze"),
    ("seventy-one thousand and two", "soixante et onze mille deux"),
    ("eighty; three; four hundred and one", "quatre-vingts ; trois ; quatre cent un"),
    ("twenty-one; sixty-six; zero", "vingt et un ; soixante-six ; zéro"),
    ("two thousand, three hundred and nine", "deux mille trois cent neuf"),
]
RNN = RNNSeq2SeqSpec(vocab_size=0, d_embed=16, d_hidden=32)
TRANSFORMER = Seq2SeqTransformerSpec(vocab_size=0, d_model=32, n_heads=2, n_layers=1, max_len=64)


@pytest.fixture(scope="module")
def vocab():
    return SubwordVocab.train([side for pair in PAIRS for side in pair], 80)


def spec(expr, vocab_size):
    import dataclasses

    return resolve_seq2seq(
        expr, dataclasses.replace(RNN, vocab_size=vocab_size), dataclasses.replace(TRANSFORMER, vocab_size=vocab_size)
    )


def encoded(vocab):
    src, tgt = vocab.encode([p[0] for p in PAIRS]), vocab.encode([p[1] for p in PAIRS])
    return [(s + [EOS], t) for s, t in zip(src, tgt)]


def test_subword_decoding_restores_the_text(vocab):
    texts = [side for pair in PAIRS for side in pair]
    assert vocab.decode(vocab.encode(texts)) == texts
    assert vocab.tokenizer.token_to_id("<pad>") == PAD and vocab.tokenizer.token_to_id("</s>") == EOS


@pytest.mark.parametrize(
    "expr", ["lstm", "gru+additive+bidirectional", "lstm+bahdanau+additive", "gru+luong+general", "transformer"]
)
def test_a_tiny_model_overfits_a_handful_of_pairs_to_bleu_100(vocab, expr):
    torch.manual_seed(0)
    model = build(spec(expr, vocab.size))
    batch = teacher_batch(encoded(vocab))
    result = train(
        model,
        lambda m, step: (seq2seq_loss(m, *batch), 1),
        TrainSettings(steps=120, lr=1e-2, warmup_steps=5, weight_decay=0.0),
        progress=False,
    )
    assert result.losses[-1] < 0.1 < result.losses[0]
    hyps = vocab.decode(translate(model, [s for s, _ in encoded(vocab)], beam_size=1))
    assert corpus_scores(hyps, [t for _, t in PAIRS]).bleu == pytest.approx(100.0)
    assert vocab.decode(translate(model, [s for s, _ in encoded(vocab)], beam_size=3, alpha=0.6)) == hyps


@pytest.mark.parametrize(
    "expr",
    [
        "rnn",
        "lstm+dot",
        "gru+general",
        "lstm+additive+bidirectional",
        "gru+bahdanau+dot",
        "lstm+luong+additive",
        "transformer+rope",
    ],
)
def test_beam_search_with_one_beam_is_greedy_decoding(vocab, expr):
    torch.manual_seed(1)
    model = build(spec(expr, vocab.size)).eval()
    src = teacher_batch(encoded(vocab))[0]
    assert beam_search(model, src, beam_size=1, alpha=1.0) == greedy(model, src)


class _Table:
    """A fake model whose next-token log-probabilities depend only on the previous token."""

    def __init__(self, table):
        self.table = torch.tensor(table).log()  # (V, V): row = previous token

    def start(self, src):
        return {"src": src}

    def step(self, state, tokens):
        return self.table[tokens], state


def test_beam_search_finds_the_sequence_greedy_misses():
    # tokens: 0 pad, 1 bos, 2 eos, 3 "a", 4 "b". Greedy takes a (0.6) then anything (0.34 best: a -> eos);
    # beam search finds b (0.4) -> eos (0.9): 0.36 > 0.6 * 0.34 = 0.204.
    eps = 1e-6
    table = [
        [1 - 4 * eps, eps, eps, eps, eps],  # after pad
        [eps, eps, eps, 0.6, 0.4 - 3 * eps],  # after bos
        [1 - 4 * eps, eps, eps, eps, eps],  # after eos
        [eps, eps, 0.34, 0.33, 0.33 - 3 * eps],  # after a
        [eps, eps, 0.9, 0.1 - 3 * eps, eps],  # after b
    ]
    model, src = _Table(table), torch.tensor([[3, EOS]])
    assert greedy(model, src) == [[3]]
    assert beam_search(model, src, beam_size=2) == [[4]]


def test_length_penalty_follows_wu_et_al():
    assert length_penalty(torch.tensor([1]), 0.6).item() == pytest.approx(1.0)
    assert length_penalty(torch.tensor([7]), 1.0).item() == pytest.approx(2.0)
    assert length_penalty(torch.tensor([30]), 0.0).item() == 1.0


@pytest.mark.parametrize(
    "expr",
    [
        "lstm+additive",
        "lstm+dot",
        "gru+general",
        "rnn+dot+bidirectional",
        "lstm+luong+additive",
        "gru+bahdanau+general+bidirectional",
    ],
)
def test_attention_weights_sum_to_one_and_ignore_source_padding(vocab, expr):
    torch.manual_seed(2)
    model = build(spec(expr, vocab.size)).eval()
    src, tgt_in, _ = teacher_batch(encoded(vocab))
    assert src.eq(PAD).any()  # the batch holds sources of different lengths
    _, weights = model(src, tgt_in, return_attention=True)  # (B, T, S)
    assert torch.allclose(weights.sum(-1), torch.ones(weights.shape[:2]), atol=1e-6)
    assert torch.all(weights.masked_select(src.eq(PAD).unsqueeze(1).expand_as(weights)) == 0)


@pytest.mark.parametrize(
    "expr",
    [
        "lstm",
        "gru+additive+bidirectional",
        "lstm+bahdanau+dot",
        "transformer",
        "transformer+alibi+naive",
        "transformer+additive+naive+rmsnorm+swiglu+post_ln",
        "transformer+rope+gqa2+dot",
    ],
)
def test_padding_does_not_change_a_translation(vocab, expr):
    """A sentence alone or padded in a batch with a longer one gets the same output (to 1e-5)."""
    torch.manual_seed(3)
    model = build(spec(expr, vocab.size)).eval()
    pairs = encoded(vocab)
    short = min(pairs, key=lambda p: len(p[0]))
    long = max(pairs, key=lambda p: len(p[0]))
    alone = model(*teacher_batch([short])[:2])
    batched = model(*teacher_batch([short, long])[:2])[:1, : alone.shape[1]]
    assert torch.allclose(alone, batched, atol=1e-5)


def test_post_ln_transformer_trains_and_differs_from_pre_ln(vocab):
    import dataclasses

    pre = spec("transformer", vocab.size)
    post = dataclasses.replace(pre, norm_placement="post")
    src, tgt_in, _ = teacher_batch(encoded(vocab))
    torch.manual_seed(4)
    a = build(pre)(src, tgt_in)
    torch.manual_seed(4)
    b = build(post)(src, tgt_in)
    assert a.shape == b.shape and not torch.allclose(a, b)


@pytest.mark.parametrize(
    "expr", ["transformer", "transformer+rope+gqa2", "transformer+alibi+naive", "transformer+learned+post_ln"]
)
def test_cached_transformer_decoding_matches_the_full_prefix(vocab, expr):
    """Each step with the key/value cache gives the log-probabilities of a full forward pass over the prefix."""
    torch.manual_seed(5)
    model = build(spec(expr, vocab.size)).eval()
    src = teacher_batch(encoded(vocab))[0]
    state, prefix = model.start(src), torch.full((src.shape[0], 1), 1)
    with torch.no_grad():
        for _ in range(4):
            log_probs, state = model.step(state, prefix[:, -1])
            full = torch.log_softmax(model(src, prefix)[:, -1], dim=-1)
            assert torch.allclose(log_probs, full, atol=1e-5)
            prefix = torch.cat((prefix, log_probs.argmax(-1, keepdim=True)), dim=1)


def test_decoding_writes_the_self_attention_cache_in_place_and_grows_it_past_its_budget(vocab):
    """A step writes one slot of buffers allocated at start (no copy of the prefix); past their room they double."""
    torch.manual_seed(5)
    model = build(spec("transformer", vocab.size)).eval()
    src = teacher_batch(encoded(vocab))[0][:, :3]  # a short source: room for 2 x 3 + 10 = 16 target tokens
    state = model.start(src)
    buffer, capacity = state["k0"].data_ptr(), state["k0"].shape[2]
    assert capacity == 16 and state["length"] == 0
    tokens = torch.full((src.shape[0],), 1)
    with torch.inference_mode():
        for step in range(capacity + 1):
            _, state = model.step(state, tokens)
            if step < capacity:
                assert state["k0"].data_ptr() == buffer  # written in place
    assert state["length"] == capacity + 1 and state["k0"].shape[2] == 2 * capacity
