"""KV-cache bytes (formula, published sizes, measured storages), cached greedy decoding, decode paths."""

import copy

import pytest
import torch

from variants.kernel._base import kernels
from variants.kernel._decode import DECODE_PATHS, GroupedDecode, grouped_decode, use_grouped_decode
from variants.kv_cache import PUBLISHED, empty_caches, greedy_generate, kv_cache_bytes, measured_cache_bytes
from variants.position.alibi import alibi_slopes
from variants.spec import TransformerSpec, resolve
from variants.transformer import build

SMALL = TransformerSpec(vocab_size=31, d_model=32, n_layers=2, n_heads=8, max_len=64)


def test_the_formula_is_two_times_layers_kv_heads_head_dim_tokens_batch_bytes():
    assert kv_cache_bytes(layers=3, kv_heads=2, head_dim=5, tokens=7, batch=11, bytes_per_element=4) == 2 * 3 * 2 * 5 * 7 * 11 * 4


@pytest.mark.parametrize("model,expected", [
    ("Llama-2-7B", 2_147_483_648), ("Llama-2-13B", 3_355_443_200), ("Llama-2-70B", 1_342_177_280)])
def test_llama2_cache_at_4096_tokens_in_fp16(model, expected):
    assert PUBLISHED[model].cache_bytes(tokens=4096, batch=1, bytes_per_element=2) == expected


def test_llama2_70b_would_need_10_gib_as_mha():
    s = PUBLISHED["Llama-2-70B"]
    assert kv_cache_bytes(s.layers, s.heads, s.head_dim, 4096, 1, 2) == 10 * 2**30


@pytest.mark.parametrize("grouping", ["mha", "gqa2", "mqa"])
def test_measured_cache_bytes_equal_the_formula_after_prefill_and_decode(grouping):
    model = build(resolve(f"rope+{grouping}", SMALL)).eval()
    spec = model.spec
    with torch.inference_mode():
        _, caches = model(torch.randint(0, 31, (3, 10)), caches=empty_caches(model, 3))
        assert measured_cache_bytes(caches) == kv_cache_bytes(2, spec.kv_heads, 4, 10, 3, 4)
        _, caches = model(torch.randint(0, 31, (3, 1)), caches=caches)
        assert measured_cache_bytes(caches) == kv_cache_bytes(2, spec.kv_heads, 4, 11, 3, 4)


def test_a_cache_that_views_a_larger_buffer_is_measured_whole():
    buffer = torch.zeros(2, 1, 4, 100, 8)  # K and V preallocated for 100 tokens
    caches = [(buffer[0, :, :, :10], buffer[1, :, :, :10])]
    assert measured_cache_bytes(caches) == buffer.nbytes > kv_cache_bytes(1, 4, 8, 10, 1, 4)


@pytest.mark.parametrize("expr", ["rope", "rope+gqa2", "rope+mqa", "alibi", "alibi+gqa2", "alibi+mqa"])
def test_greedy_generation_gives_the_same_tokens_with_and_without_the_cache(expr):
    torch.manual_seed(0)
    model = build(resolve(expr, SMALL)).eval()
    fast = use_grouped_decode(copy.deepcopy(model))
    prompt = torch.randint(0, 31, (2, 5))
    cached, margin = greedy_generate(fast, prompt, 12, use_cache=True)
    full, _ = greedy_generate(model, prompt, 12, use_cache=False)
    assert cached.shape == (2, 12) and margin > 1e-4  # no near-tie could excuse a difference
    assert torch.equal(cached, full)


def _naive_last_query(q, k, v, bias):
    return kernels.get("naive").attend(q.double(), k.double(), v.double(), causal=True,
                                       bias=None if bias is None else bias.double())


@pytest.mark.parametrize("kv_heads", [8, 2, 1])
@pytest.mark.parametrize("with_bias", [False, True])
def test_the_three_decode_paths_agree_with_naive(kv_heads, with_bias):
    q, k, v = torch.randn(2, 8, 1, 16), torch.randn(2, kv_heads, 37, 16), torch.randn(2, kv_heads, 37, 16)
    slopes = torch.tensor(alibi_slopes(8))
    bias = -slopes[:, None, None] * torch.arange(36, -1, -1.0)[None, None, :] if with_bias else None  # (H, 1, S)
    want = _naive_last_query(q, k, v, bias)
    for name, path in DECODE_PATHS.items():
        got = path(q, k, v, bias)
        assert got.shape == (2, 8, 1, 16), name
        assert torch.allclose(got.double(), want, atol=1e-5, rtol=0), name


def test_grouped_decode_serves_query_head_h_from_kv_head_h_over_group():
    q = torch.randn(1, 4, 1, 8)
    k, v = torch.randn(1, 2, 5, 8), torch.randn(1, 2, 5, 8)
    v[:, 1] += 100.0  # K/V head 1 serves query heads 2 and 3 only
    out = grouped_decode(q, k, v)
    assert (out[:, :2] < 50).all() and (out[:, 2:] > 50).all()


def test_grouped_decode_takes_one_query_position():
    with pytest.raises(ValueError, match="one query position"):
        grouped_decode(torch.randn(1, 4, 2, 8), torch.randn(1, 2, 5, 8), torch.randn(1, 2, 5, 8))


def test_the_wrapper_routes_only_single_token_steps_and_keeps_full_forwards_bit_identical():
    model = build(resolve("alibi+gqa2", SMALL)).eval()
    fast = use_grouped_decode(copy.deepcopy(model))
    assert all(isinstance(b.attn.kernel, GroupedDecode) for b in fast.blocks)
    tokens = torch.randint(0, 31, (2, 9))
    with torch.inference_mode():
        assert torch.equal(model(tokens), fast(tokens))
    use_grouped_decode(fast)  # wrapping twice changes nothing
    assert all(isinstance(b.attn.kernel.inner, type(kernels.get("sdpa"))) for b in fast.blocks)
