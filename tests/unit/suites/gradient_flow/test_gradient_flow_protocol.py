"""gradient_flow's task and initialisation as the literature runs them: a gap of random distractors, chrono gates."""

import math

import pytest
import torch

from harness.errors import UsageError
from suites.common.data.copy_task import IGNORE, CopyTask
from suites.gradient_flow.suite import PROFILES, GradientFlow
from variants.models.recurrent import RecurrentSpec, build


@pytest.mark.parametrize("profile", ["quick", "standard", "large"])
def test_every_profile_fills_the_gap_with_distractors_and_chrono_initialises_the_gates(profile):
    """The blank gap with forget bias 1 was a latch a tanh RNN holds in an attractor while the LSTM forgets."""
    p = PROFILES[profile]
    assert p.gap == "distractors" and p.gate_init == "chrono"
    for cell in ("lstm", "gru"):
        spec = GradientFlow().spec_for(cell, p, {})
        assert spec.chrono_t_max == max(p.lags)
    assert GradientFlow().spec_for("rnn", p, {}).chrono_t_max == 0  # no gate to initialise


def test_the_gap_holds_random_distractors_of_their_own_tokens():
    task = CopyTask(lag=20, symbols=3, alphabet=4, distractors=5)
    x, y = task.batch(64, torch.Generator().manual_seed(0))
    gap = x[:, 3:19]
    assert task.vocab_size == 4 + 2 + 5
    assert torch.all((gap >= task.first_distractor) & (gap < task.vocab_size))
    assert len(gap.unique()) == 5  # every distractor turns up: not a constant blank
    assert torch.all(x[:, :3] < 4) and torch.all(x[:, 19] == task.cue)
    assert torch.equal(y[:, 20:], x[:, :3]) and torch.all(y[:, :20] == IGNORE)


def test_the_blank_gap_is_a_named_alternative():
    task = CopyTask(lag=10, symbols=1, gap="blank")
    x, _ = task.batch(8, torch.Generator().manual_seed(0))
    assert torch.all(x[:, 1:9] == task.blank) and task.vocab_size == 10
    with pytest.raises(ValueError, match="gap 'zeros' is not one of distractors, blank"):
        CopyTask(lag=10, gap="zeros")


def test_an_unknown_gap_or_gate_init_is_a_usage_error():
    from dataclasses import replace

    with pytest.raises(UsageError, match="gap"):
        replace(PROFILES["quick"], gap="zeros").check()
    with pytest.raises(UsageError, match="gate_init"):
        replace(PROFILES["quick"], gate_init="forget3").check()


def test_chrono_spreads_the_lstm_forget_biases_over_log_1_to_log_t_max_minus_1():
    torch.manual_seed(0)
    H, T = 256, 100
    model = build(RecurrentSpec(cell="lstm", d_hidden=H, chrono_t_max=T))
    forget = (model.rnn.bias_ih_l0[H : 2 * H] + model.rnn.bias_hh_l0[H : 2 * H]).detach()
    inputs = (model.rnn.bias_ih_l0[:H] + model.rnn.bias_hh_l0[:H]).detach()
    assert float(forget.min()) >= 0.0 and float(forget.max()) <= math.log(T - 1) + 1e-6
    assert float(forget.max()) > 4.0  # time constants 1 + u up to T: some units keep sigmoid(4) = 0.98 per step
    torch.testing.assert_close(inputs, -forget)
    # the constant bias 1 keeps sigmoid(1)^50 ~ 1.6e-7 of the cell over 50 steps; chrono's top units keep far more
    assert torch.sigmoid(forget.max()) ** 50 > 0.1 > torch.sigmoid(torch.tensor(1.0)) ** 50


def test_chrono_sets_the_grus_update_gate_which_keeps_the_old_state():
    torch.manual_seed(0)
    H = 64
    model = build(RecurrentSpec(cell="gru", d_hidden=H, chrono_t_max=50))
    update = (model.rnn.bias_ih_l0[H : 2 * H] + model.rnn.bias_hh_l0[H : 2 * H]).detach()
    assert float(update.min()) >= 0.0 and float(update.max()) <= math.log(49) + 1e-6 and float(update.std()) > 0.3
    # PyTorch's GRU: h' = (1 - z) n + z h, so a large update bias keeps the state: one step on a zero input
    x = torch.zeros(1, 1, H)
    h = torch.ones(1, 1, H)
    _, h1 = model.rnn(x, h)
    z = torch.sigmoid(
        model.rnn.weight_ih_l0[H : 2 * H] @ x[0, 0]
        + model.rnn.bias_ih_l0[H : 2 * H]
        + model.rnn.weight_hh_l0[H : 2 * H] @ h[0, 0]
        + model.rnn.bias_hh_l0[H : 2 * H]
    )
    assert float(torch.corrcoef(torch.stack([z, (h1[0, 0] - h[0, 0]).abs()]))[0, 1]) < 0


def test_a_chrono_t_max_of_one_is_a_problem():
    from variants.spec import problems

    assert "chrono_t_max" in problems(RecurrentSpec(cell="lstm", chrono_t_max=1))[0]
