"""minGRU's log-space parallel scan against its step-by-step recurrence, and linear attention's parallel form
against its recurrent d x d state; both in a mixer LM whose stepped decoding matches its full forward pass."""

import pytest
import torch

from variants.mixer import mixers
from variants.mixer.linear_attention import feature_map
from variants.mixer.mingru import g, log_g, parallel_scan_log
from variants.mixer_lm import MixerSpec, build
from variants.presets import find_preset
from variants.spec import preset_fields


def test_log_g_is_log_of_g():
    x = torch.linspace(-30, 30, 601, dtype=torch.float64)
    assert torch.allclose(log_g(x).exp(), g(x), rtol=1e-8, atol=0)
    assert (g(x) > 0).all()


def test_parallel_scan_matches_the_recurrence():
    gen = torch.Generator().manual_seed(0)
    a = torch.rand(2, 50, 3, generator=gen, dtype=torch.float64) * 0.9 + 0.05
    b = torch.rand(2, 50, 3, generator=gen, dtype=torch.float64) + 0.1
    h, want = torch.zeros(2, 3, dtype=torch.float64), []
    for t in range(50):
        h = a[:, t] * h + b[:, t]
        want.append(h)
    got = parallel_scan_log(a.log(), b.log())
    assert torch.allclose(got, torch.stack(want, 1), rtol=1e-8, atol=0)


@pytest.mark.parametrize("name", ["mingru", "linear_attention"])
def test_parallel_form_equals_recurrent_form(name):
    torch.manual_seed(0)
    mixer = mixers.get(name)(16, 4).double()
    x = torch.randn(3, 40, 16, dtype=torch.float64)
    parallel, stepped = mixer(x), mixer.step_loop(x)
    assert parallel.shape == (3, 40, 16)
    assert torch.allclose(parallel, stepped, rtol=1e-9, atol=1e-11)
    # causal: changing the last token changes nothing before it
    y = x.clone()
    y[:, -1] += 1.0
    assert torch.allclose(mixer(y)[:, :-1], parallel[:, :-1], rtol=0, atol=1e-12)


def test_linear_attention_is_a_normalised_kernel_average():
    """Each output is the phi(q).phi(k)-weighted mean of the values seen so far (Katharopoulos et al. eq. 4)."""
    torch.manual_seed(1)
    mixer = mixers.get("linear_attention")(8, 2).double()
    x = torch.randn(1, 6, 8, dtype=torch.float64)
    q, k, v = mixer.qkv(x).unflatten(-1, (3, 2, 4)).unbind(-3)  # (1, T, H, d_h)
    t, h = 4, 1
    w = (feature_map(q[0, t, h]) * feature_map(k[0, : t + 1, h])).sum(-1)  # (t+1,)
    head_out = (w[:, None] * v[0, : t + 1, h]).sum(0) / w.sum()
    inner = {}
    mixer.out_proj.register_forward_hook(lambda m, inp, out: inner.setdefault("y", inp[0]))
    mixer(x)
    assert torch.allclose(inner["y"][0, t, 4 * h: 4 * h + 4], head_out, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", ["mingru", "linear_attention"])
def test_mixer_lm_decodes_step_by_step_as_its_forward_pass(name):
    torch.manual_seed(0)
    model = build(MixerSpec(vocab_size=11, mixer=name, d_model=16, n_layers=2, n_heads=2)).double().eval()
    tokens = torch.randint(0, 11, (2, 25))
    full = model(tokens)
    states = model.initial_states(2)
    for t in range(25):
        logits, states = model.step(tokens[:, t], states)
        assert torch.allclose(logits, full[:, t], rtol=1e-8, atol=1e-9)


def test_state_size_is_constant_and_as_stated():
    la = mixers.get("linear_attention")(16, 4)
    S, z = la.initial_state(1)
    assert la.state_numel() == S[0].numel() + z[0].numel() == 4 * (16 + 4)
    assert mixers.get("mingru")(16, 4).state_numel() == 16


def test_mixers_are_presets_of_their_axis():
    assert preset_fields("mingru") == {"mixer": "mingru"}
    assert find_preset("linear_attention").fields == {"mixer": "linear_attention"}
    assert MixerSpec(mixer="nope").problems()[0].startswith("Unknown mixer 'nope'")
    assert MixerSpec(mixer="linear_attention", d_model=10, n_heads=4).problems() == ["d_model 10 is not divisible by n_heads 4"]
