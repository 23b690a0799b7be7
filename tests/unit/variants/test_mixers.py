"""minGRU's log-space parallel scan against its step-by-step recurrence, and linear attention's parallel form
against its recurrent d x d state; both in a mixer LM whose stepped decoding matches its full forward pass."""

import pytest
import torch

from variants.mixer import mixers
from variants.mixer.linear_attention import feature_map
from variants.mixer.mingru import g, log_g, parallel_scan_log
from variants.models.mixer_lm import MixerSpec, build
from variants.presets import find_preset
from variants.spec import preset_fields, resolve


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


MIXERS = ["mingru", "linear_attention", "mamba2", "gla", "deltanet", "gated_deltanet", "softmax_attention"]
#: the matrix-state mixers, whose chunk (8 here) does not divide the 40 tokens, so padding is exercised too
CHUNKED = {"mamba2", "gla", "deltanet", "gated_deltanet"}


def _mixer(name, d=16, heads=4):
    return mixers.get(name)(d, heads, chunk_size=8) if name in CHUNKED else mixers.get(name)(d, heads)


@pytest.mark.parametrize("name", MIXERS)
def test_parallel_form_equals_recurrent_form(name):
    torch.manual_seed(0)
    mixer = _mixer(name).double()
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
    assert torch.allclose(inner["y"][0, t, 4 * h : 4 * h + 4], head_out, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", MIXERS)
def test_mixer_lm_decodes_step_by_step_as_its_forward_pass(name):
    assert_steps_match_forward(MixerSpec(vocab_size=11, mixer=name, d_model=16, n_layers=2, n_heads=2))


def assert_steps_match_forward(spec, batch: int = 2, length: int = 25):
    """Decoding token by token from the initial states gives the forward pass's logits at every position (float64)."""
    torch.manual_seed(0)
    model = build(spec).double().eval()
    tokens = torch.randint(0, spec.vocab_size, (batch, length))
    full = model(tokens)
    states = model.initial_states(batch)
    for t in range(length):
        logits, states = model.step(tokens[:, t], states)
        assert torch.allclose(logits, full[:, t], rtol=1e-8, atol=1e-9)


def test_state_size_is_constant_and_as_stated():
    la = mixers.get("linear_attention")(16, 4)
    S, z = la.initial_state(1)
    assert la.state_numel() == S[0].numel() + z[0].numel() == 4 * (16 + 4)
    assert mixers.get("mingru")(16, 4).state_numel() == 16


@pytest.mark.parametrize("name", sorted(CHUNKED))
def test_a_matrix_state_is_counted_from_its_live_tensors(name):
    mixer = _mixer(name)
    state = mixer.initial_state(1)
    tensors = state if isinstance(state, tuple) else (state,)
    assert mixer.state_numel() == sum(t.numel() for t in tensors)
    # the state stays this size after a step: decoding memory does not grow with the context
    _, after = mixer.step(torch.randn(1, 16), state)
    assert sum(t.numel() for t in (after if isinstance(after, tuple) else (after,))) == mixer.state_numel()


def test_the_state_size_is_the_key_dimension_per_head():
    # DeltaNet at d 16, 4 heads: H K V = 4 x 8 x 4 for state8, and the short convolution's 3 taps of 2 H K + d channels
    assert mixers.get("deltanet")(16, 4, state_size=8).state_numel() == 4 * 8 * 4 + 3 * (2 * 4 * 8 + 16)
    # Mamba-2 at d 16, 4 heads: inner 32, P = 8; H N P = 4 x 16 x 8, the window 3 x (32 + 2 x 16)
    assert mixers.get("mamba2")(16, 4, state_size=16).state_numel() == 4 * 16 * 8 + 3 * (32 + 2 * 16)
    assert mixers.get("gla")(16, 4, state_size=8).state_numel() == 4 * 8 * 4


def test_state_and_chunk_presets_set_the_options_and_bad_values_are_refused():
    assert find_preset("state16").fields == {"state_size": 16}
    assert find_preset("chunk8").fields == {"chunk_size": 8}
    assert MixerSpec(mixer="mamba2", state_size=16, chunk_size=8).problems() == []
    bad = MixerSpec(mixer="gla", chunk_size=0).problems()
    assert bad and bad[0].startswith("chunk_size=0 cannot run GLA") and "at least 1" in bad[0]
    assert MixerSpec(mixer="deltanet", state_size=-2).problems()[0].startswith("state_size=-2 cannot build DeltaNet")
    refused = MixerSpec(mixer="mingru", state_size=16).problems()
    assert refused == [
        "state_size=16 does not apply to MinGRU, which takes no options; leave it unset, or choose a "
        "mixer that has it (mamba2, gla, deltanet, gated_deltanet)."
    ]
    assert MixerSpec(mixer="mamba2", d_model=10, n_heads=3).problems() == [
        "the inner width 2 x d_model 20 is not divisible by n_heads 3"
    ]


def test_new_mixer_options_leave_earlier_specs_hashes_alone():
    # state_size and chunk_size were added after minGRU and linear attention records were stored
    assert "state_size" not in MixerSpec(mixer="mingru").to_dict()
    assert MixerSpec(mixer="mamba2", state_size=16).to_dict()["state_size"] == 16


def test_mixers_are_presets_of_their_axis():
    assert preset_fields("mingru") == {"mixer": "mingru"}
    assert {n: preset_fields(n) for n in ("mamba2", "gla", "deltanet", "gated_deltanet")} == {
        n: {"mixer": n} for n in ("mamba2", "gla", "deltanet", "gated_deltanet")
    }
    assert find_preset("linear_attention").fields == {"mixer": "linear_attention"}
    assert MixerSpec(mixer="nope").problems()[0].startswith("Unknown mixer 'nope'")
    assert MixerSpec(mixer="linear_attention", d_model=10, n_heads=4).problems() == [
        "d_model 10 is not divisible by n_heads 4"
    ]


@pytest.mark.parametrize("variant", ["mamba2+hybrid2", "gated_deltanet+hybrid2+window5", "softmax_attention+window3"])
def test_a_hybrid_decodes_step_by_step_as_its_forward_pass(variant):
    assert_steps_match_forward(resolve(variant, MixerSpec(vocab_size=11, d_model=16, n_layers=2, n_heads=2)))


def test_a_hybrid_puts_attention_in_every_kth_block_and_its_cache_grows_to_the_window():
    spec = resolve("mamba2+hybrid2+window8", MixerSpec(vocab_size=11, d_model=16, n_layers=4, n_heads=2))
    assert spec.attention_layers() == [1, 3]
    model = build(spec)
    names = [type(b.mixer).__name__ for b in model.blocks]
    assert names == ["Mamba2", "SoftmaxAttention", "Mamba2", "SoftmaxAttention"]
    fixed = model.state_numel(0)
    assert model.state_numel(5) == fixed + 2 * (2 * 16 * 5)  # two attention blocks, keys and values of d each
    assert model.state_numel(100) == model.state_numel(8)  # the window bounds the cache


def test_a_hybrid_pattern_naming_no_block_is_refused():
    assert resolve("mamba2+hybrid3", MixerSpec(n_layers=2)).problems() == [
        "attention_every=3 names no block of a 2-block stack: give k from 1 to 2, or 0 for no attention blocks."
    ]
    assert resolve("mingru+window4", MixerSpec()).problems()[0].startswith("window=4 applies to attention blocks")
    assert find_preset("hybrid4").fields == {"attention_every": 4}


def test_the_optional_fla_backend_says_in_one_sentence_why_it_is_not_used(monkeypatch):
    import importlib.util

    from variants.mixer import _backends

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert _backends.fla_unavailable("cuda").startswith("flash-linear-attention is not installed")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object())
    assert "need a CUDA device, and cpu is not one" in _backends.fla_unavailable("cpu")
    monkeypatch.setattr(_backends.torch.cuda, "is_available", lambda: True)
    assert _backends.fla_unavailable("cuda") == ""
