"""position_extrapolation scores randomized positions with Ruoss et al. 2023's test protocol (arXiv 2305.16843).

Their official code (google-deepmind/randomized_positional_encodings) draws a sorted sample without replacement
of 0..noise_max_length-1 for every forward pass, at test time too (models/positional_encodings.py
``noisy_fixed_positional_encodings``, keys from ``hk.PRNGSequence(1)`` in experiments/range_evaluation.py), and
averages the scores. The suite's ``loss`` is the mean over TEST_DRAWS fixed-seed draws; positions 0..T-1 are
only the labelled extra ``consecutive_loss``.
"""

import pytest
import torch

from harness.contract import JobContext
from suites.common.lm import evaluate_nll
from suites.position_extrapolation.suite import PROFILES, TEST_DRAWS, PositionExtrapolation
from variants.models.transformer import build
from variants.position.randomized import RANGE_FACTOR, sorted_sample
from variants.spec import TransformerSpec, resolve

SMALL = TransformerSpec(vocab_size=11, d_model=16, n_heads=2, n_layers=1, max_len=8)


def _model():
    torch.manual_seed(0)
    model = build(resolve("randomized", SMALL))
    with torch.no_grad():  # sharp attention, so positions change the scores
        for name, p in model.named_parameters():
            if name.endswith(("q_proj.weight", "kv_proj.weight")):
                p.mul_(50)
    return model.eval()


def test_sorted_sample_is_the_papers_draw_from_a_fixed_seed():
    a = sorted_sample(4, 8, 16 * 8, generator=torch.Generator().manual_seed(3))
    b = sorted_sample(4, 8, 16 * 8, generator=torch.Generator().manual_seed(3))
    assert torch.equal(a, b) and (a[:, 1:] > a[:, :-1]).all() and a.min() >= 0 and a.max() < 128
    assert RANGE_FACTOR == 16
    # a draw of every position of the range is 0..M-1, the only draw at the longest length
    assert torch.equal(
        sorted_sample(2, 16, 16, generator=torch.Generator().manual_seed(0)), torch.arange(16).expand(2, 16)
    )


def test_the_suite_scores_randomized_positions_at_test_time_draws_not_at_0_to_t():
    model, ids = _model(), torch.randint(0, 11, (16 * 4 + 1,), generator=torch.Generator().manual_seed(1))
    profile = PROFILES["quick"]
    out = {m.metric: m for m in PositionExtrapolation()._scored(model, ids, 16, 2, profile, JobContext())}
    consecutive = evaluate_nll(model, ids, 16)
    assert out["consecutive_loss"].value == pytest.approx(consecutive[0] / consecutive[1])
    assert out["loss"].value != pytest.approx(out["consecutive_loss"].value, rel=1e-3)  # 0..T-1 is not the protocol
    draws = []
    for k in range(TEST_DRAWS):
        model.position.draw_at_test(torch.Generator().manual_seed(k))
        nll, count = evaluate_nll(model, ids, 16)
        draws.append(nll / count)
    model.position.draw_at_test(None)
    assert out["loss"].value == pytest.approx(sum(draws) / TEST_DRAWS)
    assert out["loss"].extra["draws"] == TEST_DRAWS == len(set(draws)) and TEST_DRAWS >= 2
    assert out["perplexity"].value == pytest.approx(torch.tensor(out["loss"].value).exp().item(), rel=1e-6)


def test_other_positions_are_scored_once_without_a_consecutive_extra():
    torch.manual_seed(0)
    model = build(resolve("rope", SMALL)).eval()
    ids = torch.randint(0, 11, (33,), generator=torch.Generator().manual_seed(1))
    out = {m.metric for m in PositionExtrapolation()._scored(model, ids, 16, 2, PROFILES["quick"], JobContext())}
    assert out == {"loss", "perplexity"}
