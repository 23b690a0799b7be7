"""Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434): the absorbed decode equals the unabsorbed forward,
the cache holds (d_c + d_h^R) values per token and layer, and every kernel that runs it matches naive."""

import pytest
import torch

from tests.attention_gate import gate, gate_cases
from variants.attention import attentions, latent_dims
from variants.decode.cache_size import kv_cache_bytes, measured_cache_bytes, spec_cache_bytes
from variants.decode.generate import empty_caches
from variants.decode.latent_cache import LatentCache
from variants.kernel import kernels, tolerance, use_grouped_decode
from variants.models.transformer import build
from variants.spec import TransformerSpec, problems, resolve

SMALL = TransformerSpec(vocab_size=23, d_model=64, n_layers=2, n_heads=4, max_len=24)


def _decode(model, tokens, prefill, capacity=0):
    """Logits of tokens[:, prefill:] decoded one token at a time after a cached prefill, (B, T - prefill, V)."""
    _, caches = model(tokens[:, :prefill], caches=empty_caches(model, tokens.shape[0], capacity=capacity))
    steps = []
    for t in range(prefill, tokens.shape[1]):
        logits, caches = model(tokens[:, t : t + 1], caches=caches)
        steps.append(logits)
    return torch.cat(steps, dim=1), caches


@pytest.mark.parametrize(
    "expr", ["rope+mla", "rope+mla+naive", "alibi+mla", "rope+mla+dot", "rope+mla+general", "rope+mla+rmsnorm+swiglu"]
)
@pytest.mark.parametrize("capacity", [0, 24])
def test_absorbed_decode_equals_the_unabsorbed_forward_in_float64(expr, capacity):
    torch.manual_seed(0)
    model = build(resolve(expr, SMALL)).double().eval()
    tokens = torch.randint(0, 23, (2, 24), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        full = model(tokens)  # no cache: per-head keys and values expanded from the latent
        stepped, caches = _decode(model, tokens, 9, capacity)  # cached: W_UK in the query, W_UV on the output
        grouped, _ = _decode(use_grouped_decode(model), tokens, 9, capacity)  # the same through grouped_decode
    assert isinstance(caches[0], LatentCache)
    error, allowed = tolerance(torch.float64).check(stepped, full[:, 9:])
    assert error <= allowed
    assert tolerance(torch.float64).check(grouped, full[:, 9:])[0] <= allowed


def test_the_absorbed_query_scores_the_latent_as_the_expanded_key_would():
    torch.manual_seed(0)
    layer = build(resolve("rope+mla", SMALL)).double().blocks[0].attn
    q_c = torch.randn(2, 4, 3, layer.head_dim, dtype=torch.float64)
    c = torch.randn(2, 5, layer.latent_dim, dtype=torch.float64)
    expanded = layer.k_up(c).view(2, 5, 4, layer.head_dim).transpose(1, 2)  # (B, H, S, dh)
    want = q_c @ expanded.transpose(-2, -1)
    got = layer.absorbed_query(q_c) @ c[:, None].transpose(-2, -1)
    assert torch.allclose(got, want, atol=1e-12)


def test_the_cache_holds_the_latent_and_the_rope_key_per_token_and_layer():
    model = build(resolve("rope+mla", SMALL)).eval()
    d_c, d_r = latent_dims(model.spec)
    assert (d_c, d_r) == (4 * 16, 8)  # d_c = 4 d_h, d_h^R = d_h / 2 at d_h = 16
    with torch.inference_mode():
        _, caches = model(torch.randint(0, 23, (3, 10)), caches=empty_caches(model, 3))
    assert caches[0].keys.shape == (3, 1, 10, d_c + d_r)
    assert measured_cache_bytes(caches) == 2 * (d_c + d_r) * 10 * 3 * 4 == spec_cache_bytes(model.spec, 10, 3, 4)


def test_the_cache_equals_gqa_with_two_and_a_quarter_groups():
    """DeepSeek-V2, 2.1.4: (d_c + d_h^R) = 4.5 d_h values per token and layer, GQA's 2 n_g d_h at n_g = 2.25."""
    spec = resolve("rope+mla", SMALL)
    per_group = kv_cache_bytes(spec.n_layers, 1, spec.head_dim, 100, 1, 2)
    assert spec_cache_bytes(spec, 100, 1, 2) / per_group == 2.25


def test_a_step_decodes_through_the_cached_latent_without_expanding_keys(monkeypatch):
    model = build(resolve("rope+mla", SMALL)).eval()
    layer = type(model.blocks[0].attn)
    monkeypatch.setattr(layer, "_expanded", lambda *a, **k: pytest.fail("a cached step expanded per-head keys"))
    with torch.inference_mode():
        _decode(model, torch.randint(0, 23, (1, 12)), 6, 12)


def test_the_latent_cache_keeps_the_protocol_of_every_kv_cache():
    """update(latent, latent) writes one buffer and gives its view as keys and as values; bias and reserve as the
    other caches give them."""
    layer = build(resolve("alibi+mla", SMALL)).blocks[0].attn
    cache = layer.empty_cache(2, capacity=4)
    latent = torch.randn(2, 1, 3, layer.latent_dim + layer.rope_dim)
    cache, keys, values = cache.update(latent, latent)
    assert torch.equal(keys, latent) and keys.data_ptr() == values.data_ptr() == cache.buffer.data_ptr()
    with pytest.raises(ValueError, match="one latent"):
        cache.update(latent, latent.clone())
    assert cache.reserve(4) is cache and cache.reserve(8).capacity == 8
    assert torch.equal(cache.reserve(8).keys, latent)
    got = cache.bias(layer, 1, 4, 3, torch.float32, None, True).dense()
    assert torch.equal(got, layer.position.attention_bias(1, 4, 3, torch.float32).dense())


def test_clearing_the_caches_asks_each_layer_for_its_own():
    model = build(resolve("rope+mla", SMALL))
    mine = object()
    model.blocks[1].attn.empty_cache = lambda batch, capacity, dtype, device: mine
    caches = empty_caches(model, 2)
    assert isinstance(caches[0], LatentCache) and caches[1] is mine


def test_mla_declares_what_it_cannot_run():
    assert any("dot-product" in r for r in problems(resolve("rope+mla+additive+naive", SMALL)))
    assert any("sliding window" in r for r in problems(resolve("rope+mla+window8", SMALL)))
    odd = TransformerSpec(vocab_size=23, d_model=12, n_layers=1, n_heads=4, max_len=8)  # d_h 3: d_h^R 1
    assert any("even" in r for r in problems(resolve("rope+mla", odd)))
    assert "mla" in attentions and "grouped" in attentions


@pytest.mark.parametrize("kernel,device,dtype", gate_cases(lambda k: f"rope+mla+{k}", SMALL))
def test_every_kernel_that_runs_mla_matches_naive(kernel, device, dtype):
    """The equivalence gate for latent attention: logits and gradients against naive on the same weights."""
    gate("rope+mla", kernel, device, dtype, SMALL)


@pytest.mark.parametrize("attention", attentions.names())
def test_every_registered_attention_layer_trains_and_decodes(attention):
    """Registry-driven: each attention layer builds, takes a backward pass and decodes through its own cache."""
    torch.manual_seed(0)
    model = build(resolve(f"rope+{attention}", SMALL))
    tokens = torch.randint(0, 23, (2, 12))
    model(tokens).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    with torch.no_grad():
        full = model.eval()(tokens)
        stepped, caches = _decode(model, tokens, 4)
        _, prefilled = model(tokens[:, :5], caches=empty_caches(model, 2))
    assert torch.allclose(stepped, full[:, 4:], atol=1e-4)
    assert measured_cache_bytes(prefilled) == spec_cache_bytes(model.spec, 5, 2, 4)


def test_the_latent_is_rms_normalised_as_the_authors_code_does_and_the_job_is_new():
    # DeepSeek-V2 3.1.2 and its code (kv_a_layernorm): RMSNorm on c before W_UK and W_UV; a spec without the field
    # (the form earlier records measured, without the norm) has another hash, so those records are not reused
    import dataclasses

    from variants.models.transformer import build
    from variants.spec import TransformerSpec, resolve

    base = TransformerSpec(vocab_size=11, d_model=32, n_layers=1, n_heads=2, max_len=8, position="rope", kernel="naive")
    spec = resolve("mla", base)
    assert spec.latent_norm is True and build(spec).blocks[0].attn.latent_norm is not None
    unnormed = dataclasses.replace(spec, latent_norm=None)
    assert build(unnormed).blocks[0].attn.latent_norm is None
    assert spec.content_hash() != unnormed.content_hash()
    assert "latent_norm" not in resolve("rope", base).to_dict()  # every other spec keeps its dict and hash
