"""The attention probes: replacing weights (uniform, permuted, detached) and restoring them, the importance
measures' shapes and zeros (the verdicts' tests are in claims/)."""

import pandas as pd
import torch

from suites.attention_explanation import probes
from variants.models.seq2seq import build
from variants.seq2seq_spec import EOS, PAD, RNNSeq2SeqSpec, Seq2SeqTransformerSpec, resolve_seq2seq

RNN = RNNSeq2SeqSpec(vocab_size=30, d_embed=8, d_hidden=12)


def _model(expr="lstm+luong+additive+bidirectional"):
    torch.manual_seed(0)
    return build(resolve_seq2seq(expr, RNN, Seq2SeqTransformerSpec(vocab_size=30))).eval()


def _batch():
    src = torch.tensor([[5, 6, 7, 8, EOS], [9, 10, EOS, PAD, PAD]])
    tgt_in = torch.tensor([[1, 11, 12], [1, 13, 14]])
    tgt_out = torch.tensor([[11, 12, EOS], [13, EOS, PAD]])
    return src, tgt_in, tgt_out


def test_uniform_scoring_and_uniform_reweighing_weigh_every_unpadded_word_alike():
    src, tgt_in, _ = _batch()
    _, weights = _model("lstm+luong+uniform+bidirectional")(src, tgt_in, return_attention=True)
    assert torch.allclose(weights[1, 0], torch.tensor([1 / 3, 1 / 3, 1 / 3, 0, 0]))
    model = _model()
    with probes.reweighed(model, probes.uniform):
        _, flat = model(src, tgt_in, return_attention=True)
    assert torch.allclose(flat[0, 2], torch.full((5,), 0.2))
    assert "forward" not in vars(model.attention)  # the class's forward is back


def test_a_permutation_shuffles_each_steps_weights_within_the_source():
    model = _model()
    src, tgt_in, _ = _batch()
    _, weights = model(src, tgt_in, return_attention=True)
    with probes.reweighed(model, probes.permuted(torch.Generator().manual_seed(0))):
        _, shuffled = model(src, tgt_in, return_attention=True)
    assert torch.allclose(weights.sort(-1).values, shuffled.sort(-1).values)
    assert torch.all(shuffled[1, :, 3:] == 0)  # padding keeps weight 0


def test_importance_is_zero_off_the_words_and_the_probe_ranks_every_step():
    model = _model()
    src, tgt_in, tgt_out = _batch()
    with torch.no_grad():
        logits = model(src, tgt_in)
    grads = probes._gradient_importance(model, src, tgt_in, logits.argmax(-1), tgt_out.ne(PAD))
    assert grads.shape == (2, 3, 5) and torch.all(grads[1, :, 3:] == 0) and torch.all(grads[0, 0, :4] > 0)
    loo = probes._leave_one_out(model, src, tgt_in, logits.softmax(-1), src.ne(PAD).sum(1))
    assert torch.all(loo[0, :, 4] == 0) and torch.all(loo[1, :, 2:] == 0) and torch.all(loo[0, :, :4] > 0)
    found = probes.probe(model, [([5, 6, 7, 8, EOS], [11, 12]), ([9, 10, EOS], [13])], 2, 3, 0, "cpu")
    assert len(found.permutation_tvd) == 5  # 3 + 2 target steps
    assert len(found.tau_attention_gradient) == 3  # the second source has 2 words: too few to rank


def test_the_uniform_scoring_runs_only_on_kernels_that_materialise_scores():
    from variants.spec import TransformerSpec, problems, resolve

    base = TransformerSpec(vocab_size=20, d_model=32, n_layers=1, n_heads=4, max_len=16)
    assert problems(resolve("uniform+naive", base)) == []
    assert any("not one" in p for p in problems(resolve("uniform+sdpa", base)))  # SDPA gives NaN at scale 0
