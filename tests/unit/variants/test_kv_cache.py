"""KV-cache bytes (formula, published sizes, measured storages), cached greedy decoding, decode paths."""

import copy

import pytest
import torch

from variants.decode.cache_size import PUBLISHED, kv_cache_bytes, measured_cache_bytes
from variants.decode.generate import empty_caches, greedy_generate
from variants.kernel import tolerance
from variants.kernel._base import kernels
from variants.kernel._decode import DECODE_PATHS, GroupedDecode, grouped_decode, split_kv_decode, use_grouped_decode
from variants.models.transformer import build
from variants.position.alibi import alibi_slopes
from variants.spec import TransformerSpec, resolve

SMALL = TransformerSpec(vocab_size=31, d_model=32, n_layers=2, n_heads=8, max_len=64)


def test_the_formula_is_two_times_layers_kv_heads_head_dim_tokens_batch_bytes():
    assert (
        kv_cache_bytes(layers=3, kv_heads=2, head_dim=5, tokens=7, batch=11, bytes_per_element=4)
        == 2 * 3 * 2 * 5 * 7 * 11 * 4
    )


@pytest.mark.parametrize(
    "model,expected", [("Llama-2-7B", 2_147_483_648), ("Llama-2-13B", 3_355_443_200), ("Llama-2-70B", 1_342_177_280)]
)
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
        # started empty: the prefill allocates exactly its tokens; a step past that doubles the room
        _, caches = model(torch.randint(0, 31, (3, 10)), caches=empty_caches(model, 3))
        assert measured_cache_bytes(caches) == kv_cache_bytes(2, spec.kv_heads, 4, 10, 3, 4)
        _, caches = model(torch.randint(0, 31, (3, 1)), caches=caches)
        assert caches[0].length == 11 and caches[0].capacity == 20
        assert measured_cache_bytes(caches) == kv_cache_bytes(2, spec.kv_heads, 4, 20, 3, 4)
        # preallocated: the storage is the capacity, before and after decoding
        _, caches = model(torch.randint(0, 31, (3, 10)), caches=empty_caches(model, 3, capacity=16))
        assert measured_cache_bytes(caches) == kv_cache_bytes(2, spec.kv_heads, 4, 16, 3, 4)
        _, caches = model(torch.randint(0, 31, (3, 1)), caches=caches)
        assert measured_cache_bytes(caches) == kv_cache_bytes(2, spec.kv_heads, 4, 16, 3, 4)


def test_reserve_gives_room_once_and_then_steps_write_in_place():
    model = build(resolve("rope+gqa2", SMALL)).eval()
    with torch.inference_mode():
        tokens = torch.randint(0, 31, (2, 11))
        _, caches = model(tokens[:, :10], caches=empty_caches(model, 2))  # exactly 10 tokens of room
        roomy = [c.reserve(11) for c in caches]
        assert all(r.capacity == 11 and r.length == 10 and torch.equal(r.keys, c.keys) for r, c in zip(roomy, caches))
        assert roomy[0].reserve(5) is roomy[0]  # room enough already: nothing copied
        pointers = [r.key_buffer.data_ptr() for r in roomy]
        for _ in range(3):  # a repeated step (as timing repeats it) writes the same slots of the same buffers
            logits, after = model(tokens[:, 10:], caches=roomy)
            assert [a.key_buffer.data_ptr() for a in after] == pointers and after[0].length == 11
        assert torch.allclose(logits[:, -1], model(tokens)[:, -1], atol=1e-5, rtol=0)


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
    return kernels.get("naive").attend(
        q.double(), k.double(), v.double(), causal=True, bias=None if bias is None else bias.double()
    )


@pytest.mark.parametrize("kv_heads", [8, 2, 1])
@pytest.mark.parametrize("with_bias", [False, True])
def test_the_decode_paths_agree_with_naive(kv_heads, with_bias):
    q, k, v = torch.randn(2, 8, 1, 16), torch.randn(2, kv_heads, 37, 16), torch.randn(2, kv_heads, 37, 16)
    slopes = torch.tensor(alibi_slopes(8))
    bias = -slopes[:, None, None] * torch.arange(36, -1, -1.0)[None, None, :] if with_bias else None  # (H, 1, S)
    want = _naive_last_query(q, k, v, bias)
    for name, path in DECODE_PATHS.items():
        got = path(q, k, v, bias)
        assert got.shape == (2, 8, 1, 16), name
        assert torch.allclose(got.double(), want, atol=1e-5, rtol=0), name


@pytest.mark.parametrize("chunk", [1, 8, 37, 64])  # one position each, 4 chunks and a tail of 5, one whole, all tail
@pytest.mark.parametrize("kv_heads", [8, 2])
def test_split_kv_merges_its_chunks_into_the_exact_softmax(chunk, kv_heads):
    q, k, v = torch.randn(2, 8, 1, 16), torch.randn(2, kv_heads, 37, 16), torch.randn(2, kv_heads, 37, 16)
    bias = -torch.tensor(alibi_slopes(8))[:, None, None] * torch.arange(36, -1, -1.0)[None, None, :]  # (H, 1, S)
    for b in (None, bias, bias.expand(2, 8, 1, 37)):
        want = _naive_last_query(q, k, v, b)
        assert torch.allclose(split_kv_decode(q, k, v, b, chunk=chunk).double(), want, atol=1e-5, rtol=0)


def test_split_kv_keeps_large_scores_finite_and_reads_a_view_of_a_larger_buffer():
    q, k, v = torch.randn(1, 4, 1, 8), torch.randn(1, 2, 64, 8), torch.randn(1, 2, 64, 8)
    q[..., 0] = 300.0  # scores in the thousands: exp() overflows unless each chunk subtracts its max
    buffer = torch.zeros(1, 2, 100, 8)
    buffer[:, :, :64] = k
    got = split_kv_decode(q, buffer[:, :, :64], v, chunk=16)  # a LayerCache reads such views of its buffers
    assert torch.isfinite(got).all()
    assert torch.allclose(got.double(), _naive_last_query(q, k, v, None), atol=1e-4, rtol=0)


def test_a_model_decoding_in_split_kv_chunks_from_some_length_on_gives_the_same_logits():
    model = build(resolve("alibi+gqa2", SMALL)).eval()
    grouped = use_grouped_decode(copy.deepcopy(model))
    split = use_grouped_decode(copy.deepcopy(model), split_from=8)
    assert all(b.attn.kernel.split_from == 8 for b in split.blocks)
    tokens = torch.randint(0, 31, (2, 13))
    last = []
    with torch.inference_mode():
        for net in (grouped, split):  # 12 cached tokens, then a step over 13: split from 8 on
            _, caches = net(tokens[:, :12], caches=empty_caches(net, 2, capacity=13))
            last.append(net(tokens[:, 12:], caches=caches)[0])
    assert torch.allclose(last[1], last[0], atol=1e-5, rtol=0)


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


# --- the cache is written in place and read as views: decoding equals full-prefix decoding


def _step_logits_with_and_without_the_cache(model, tokens, prompt_len, capacity):
    """(logits of each position from a prefill then one-token cached steps, logits of the full forward)."""
    with torch.inference_mode():
        full = model(tokens)
        caches = empty_caches(model, tokens.shape[0], capacity=capacity)
        logits, caches = model(tokens[:, :prompt_len], caches=caches)
        steps = [logits]
        for t in range(prompt_len, tokens.shape[1]):
            logits, caches = model(tokens[:, t : t + 1], caches=caches)
            steps.append(logits)
    return torch.cat(steps, dim=1), full, caches


@pytest.mark.parametrize(
    "expr",
    [
        "rope",
        "rope+gqa2",
        "alibi+mqa",
        "sinusoidal",
        "learned+naive",
        "t5_bias",
        "alibi+gqa2+sdpa_math",
        "rope+mqa+sdpa_flash",
        "randomized",
        "rope+dynamic_ntk",
    ],
)
@pytest.mark.parametrize("capacity", [0, 7, 40])  # grown from empty, outgrown mid-way, preallocated
def test_cached_decoding_equals_the_full_forward_at_every_position(expr, capacity):
    torch.manual_seed(0)
    model = build(resolve(expr, SMALL)).eval()
    tokens = torch.randint(0, 31, (2, 20))
    stepped, full, caches = _step_logits_with_and_without_the_cache(model, tokens, 5, capacity)
    assert caches[0].length == 20 and caches[0].capacity >= 20
    error, allowed = tolerance(torch.float32).check(stepped, full)
    assert error <= allowed, f"{error:.3g} > {allowed:.3g}"


def test_a_preallocated_cache_is_written_in_place_and_read_without_copies():
    model = use_grouped_decode(build(resolve("rope+gqa2", SMALL)).eval())
    tokens = torch.randint(0, 31, (2, 12))
    with torch.inference_mode():
        caches = empty_caches(model, 2, capacity=12)
        buffers = [(c.key_buffer.data_ptr(), c.value_buffer.data_ptr()) for c in caches]
        _, caches = model(tokens[:, :4], caches=caches)
        for t in range(4, 12):
            _, caches = model(tokens[:, t : t + 1], caches=caches)
            assert [(c.key_buffer.data_ptr(), c.value_buffer.data_ptr()) for c in caches] == buffers
            keys, values = caches[0]
            assert keys.data_ptr() == buffers[0][0] and keys.shape[2] == t + 1  # a view, not a copy
    assert caches[0].length == 12


def test_the_projection_path_concatenates_nothing_while_decoding(monkeypatch):
    model = build(resolve("alibi+mqa", SMALL)).eval()
    tokens = torch.randint(0, 31, (2, 9))
    with torch.inference_mode():
        _, caches = model(tokens[:, :4], caches=empty_caches(model, 2, capacity=9))
        sizes = []
        real_cat = torch.cat
        monkeypatch.setattr(
            torch, "cat", lambda xs, *a, **k: sizes.append([x.shape for x in xs]) or real_cat(xs, *a, **k)
        )
        for t in range(4, 9):
            _, caches = model(tokens[:, t : t + 1], caches=caches)
    assert sizes == []


def test_a_step_repeated_from_the_same_cache_writes_the_same_slot():
    """The kv_cache suite times one step many times from the same cache: each call must give the same logits."""
    model = build(resolve("rope+mqa", SMALL)).eval()
    tokens = torch.randint(0, 31, (2, 9))
    with torch.inference_mode():
        _, caches = model(tokens[:, :8], caches=empty_caches(model, 2, capacity=16))
        first, after = model(tokens[:, 8:], caches=caches)
        again, _ = model(tokens[:, 8:], caches=caches)
    assert torch.equal(first, again) and caches[0].length == 8 and after[0].length == 9


def test_old_style_key_value_pairs_still_serve_as_caches():
    model = build(resolve("rope+gqa2", SMALL)).eval()
    tokens = torch.randint(0, 31, (2, 6))
    kv = model.spec.kv_heads
    with torch.inference_mode():
        full = model(tokens)
        pairs = [(torch.zeros(2, kv, 0, 4), torch.zeros(2, kv, 0, 4)) for _ in range(2)]
        logits, caches = model(tokens[:, :5], caches=pairs)
        last, _ = model(tokens[:, 5:], caches=[(c.keys, c.values) for c in caches])
    assert torch.allclose(torch.cat((logits, last), 1), full, atol=1e-5)


def test_decoding_under_autograd_keeps_every_step_differentiable():
    model = build(resolve("rope", SMALL))
    tokens = torch.randint(0, 31, (1, 6))
    logits, caches = model(tokens[:, :5], caches=empty_caches(model, 1, capacity=8))
    last, _ = model(tokens[:, 5:], caches=caches)
    (logits.sum() + last.sum()).backward()
    assert all(p.grad is not None for p in model.parameters() if p.requires_grad)


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", ["sdpa", "sdpa_flash", "sdpa_efficient", "sdpa_cudnn", "naive"])
def test_cached_decoding_on_cuda_reads_strided_views_of_the_buffers(kernel):
    from variants.spec import problems

    spec = resolve(
        f"rope+gqa2+{kernel}", TransformerSpec(vocab_size=31, d_model=128, n_layers=2, n_heads=8, max_len=64)
    )
    found = problems(spec, "cuda", torch.bfloat16, training=False)
    if found:
        pytest.skip("; ".join(found))
    torch.manual_seed(0)
    model = build(spec).to(device="cuda", dtype=torch.bfloat16).eval()
    tokens = torch.randint(0, 31, (2, 24), device="cuda")
    stepped, full, caches = _step_logits_with_and_without_the_cache(model, tokens, 8, 32)
    assert caches[0].capacity == 32 and caches[0].keys.stride(1) == 32 * spec.head_dim  # strided views
    error, allowed = tolerance(torch.bfloat16).check(stepped.float(), full.float())
    assert error <= allowed, f"{error:.3g} > {allowed:.3g}"
