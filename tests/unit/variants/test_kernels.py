"""Every kernel that trains on CPU matches the naive reference, and every model is causal.

Tolerance: the kernel layer's float32 row (variants/kernel/_tolerance.py; the fused SDPA kernel sums in a
different order). The full gate over position x scoring x head grouping x kernel, in other dtypes and on GPU
too, is test_equivalence.py.
"""

import itertools

import pytest
import torch

from variants.kernel import kernels, tolerance
from variants.models.transformer import build
from variants.position._base import positions
from variants.spec import TransformerSpec, problems, resolve

POSITIONS = positions.names()
SMALL = TransformerSpec(vocab_size=23, d_model=32, n_layers=2, n_heads=4, max_len=16)
#: kernels that can run and train here on CPU (the others are declared for CUDA, need a package or cannot train)
KERNELS = [k for k in kernels.names() if not kernels.get(k).problems(SMALL, "cpu")]


def assert_matches(got: torch.Tensor, want: torch.Tensor) -> None:
    error, allowed = tolerance(torch.float32).check(got, want)
    assert error <= allowed, f"max |error| {error:.3g} > allowed {allowed:.3g}"


def tiny(expr: str, **overrides) -> torch.nn.Module:
    torch.manual_seed(0)
    spec = resolve(expr, SMALL)
    for key, value in overrides.items():
        spec = type(spec)(**{**spec.to_dict(), key: value})
    return build(spec).eval()


@pytest.mark.parametrize("position", POSITIONS)
def test_sdpa_matches_naive_in_fp32_for_every_position(position):
    tokens = torch.randint(0, 23, (3, 16))
    naive, sdpa = tiny(f"{position}+naive"), tiny(f"{position}+sdpa")
    sdpa.load_state_dict(naive.state_dict())
    assert_matches(sdpa(tokens), naive(tokens))


@pytest.mark.parametrize("position", POSITIONS)
def test_sdpa_gradients_match_naive(position):
    tokens = torch.randint(0, 23, (2, 12))
    grads = []
    for kernel in ("naive", "sdpa"):
        model = tiny(f"{position}+{kernel}")
        model(tokens).logsumexp(-1).sum().backward()
        grads.append(torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None]))
    assert_matches(grads[1], grads[0])


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("groups", [1, 2])
def test_kernels_match_naive_directly_with_bias_and_gqa(kernel, groups):
    q = torch.randn(2, 4, 9, 8)
    k, v = torch.randn(2, groups, 9, 8), torch.randn(2, groups, 9, 8)
    bias = torch.randn(4, 9, 9)
    ref = kernels.get("naive").attend(q, k, v, causal=True, bias=bias)
    out = kernels.get(kernel).attend(q, k, v, causal=True, bias=bias)
    assert_matches(out, ref)


@pytest.mark.parametrize(
    "position,kernel",
    [(p, k) for p, k in itertools.product(POSITIONS, KERNELS) if not problems(resolve(f"{p}+{k}", SMALL), "cpu")],
)  # t5_bias+sdpa_flash: no bias gradient
def test_changing_a_later_token_never_changes_an_earlier_logit(position, kernel):
    model = tiny(f"{position}+{kernel}")
    tokens = torch.randint(0, 23, (1, 16))
    changed = tokens.clone()
    changed[0, 10:] = (changed[0, 10:] + 1) % 23
    a, b = model(tokens), model(changed)
    assert torch.allclose(a[:, :10], b[:, :10], atol=1e-6)
    assert not torch.allclose(a[:, 10:], b[:, 10:])


@pytest.mark.parametrize("kernel", KERNELS)
def test_gqa_with_as_many_kv_heads_as_heads_equals_mha(kernel):
    tokens = torch.randint(0, 23, (2, 10))
    mha, gqa = tiny(f"rope+{kernel}"), tiny(f"rope+{kernel}+gqa4")
    gqa.load_state_dict(mha.state_dict())
    assert torch.equal(mha(tokens), gqa(tokens))


@pytest.mark.parametrize("position", POSITIONS)
def test_decoding_with_a_kv_cache_matches_the_full_forward(position):
    model = tiny(f"{position}+sdpa+gqa2")
    tokens = torch.randint(0, 23, (2, 12))
    full = model(tokens)
    logits, caches = model(tokens[:, :8], caches=[(torch.zeros(2, 2, 0, 8), torch.zeros(2, 2, 0, 8))] * 2)
    steps = [logits]
    for t in range(8, 12):
        logits, caches = model(tokens[:, t : t + 1], caches=caches)
        steps.append(logits)
    assert_matches(torch.cat(steps, dim=1), full)


def test_one_tolerance_per_dtype_every_kernel_dtype_covered_and_looser_as_precision_drops():
    from variants.kernel import TOLERANCES
    from variants.kernel._base import ALL_DTYPES

    assert set(ALL_DTYPES) <= set(TOLERANCES)
    order = [TOLERANCES[d] for d in (torch.float64, torch.float32, torch.float16, torch.bfloat16)]
    assert all(a.atol < b.atol and a.rtol < b.rtol for a, b in zip(order, order[1:]))
    assert tolerance(None) == tolerance(torch.float32)  # a dtype the table lacks reads float32's


def test_tolerance_scales_with_the_largest_reference_magnitude_and_measures_in_float64():
    tol = tolerance(torch.float32)
    want = torch.tensor([0.0, -10.0, 2.0])
    assert tol.allowed(want) == tol.atol + tol.rtol * 10.0
    error, allowed = tol.check(want + torch.tensor([0.0, 0.0, 5e-4]), want)
    assert allowed == tol.allowed(want) and abs(error - 5e-4) < 1e-7 and error <= allowed
    atol, rtol = tol  # (atol, rtol) unpacks, as the checks that print both read it
    assert (atol, rtol) == (tol.atol, tol.rtol)


def test_flex_gets_a_block_mask_for_the_full_mask_too(monkeypatch):
    """Without one (block_mask=None) PyTorch makes a single block over the whole sequence, and flex's peak memory
    grows about quadratically with length; the full mask is an all-true mask of 128 x 128 blocks, cached per shape."""
    pytest.importorskip("torch.nn.attention.flex_attention")
    from torch.nn.attention.flex_attention import BlockMask

    from variants.kernel import flex

    calls = []
    monkeypatch.setattr(flex, "_compiled_flex", lambda: lambda q, k, v, **kw: calls.append(kw) or q)
    q = k = v = torch.zeros(1, 2, 300, 8)
    for causal in (False, True):
        kernels.get("flex").attend(q, k, v, causal=causal)
    full, causal = calls[0]["block_mask"], calls[1]["block_mask"]
    assert isinstance(full, BlockMask) and isinstance(causal, BlockMask)

    def blocks(mask):  # key blocks each query block visits: partial ones plus full ones
        return (mask.kv_num_blocks + mask.full_kv_num_blocks).flatten().tolist()

    assert full.BLOCK_SIZE == (128, 128) and blocks(full) == [3, 3, 3]  # 300 tokens: 3 blocks of keys per query block
    assert full.to_dense().bool().all()  # every block kept: nothing is masked
    assert blocks(causal) == [1, 2, 3]  # the causal one skips the blocks above the diagonal
    assert flex.block_mask(300, 300, "cpu", causal=False) is full  # cached per shape


def test_only_naive_and_sdpa_math_materialise_the_scores():
    """attention_cost judges Dao et al.'s linear memory on the fused kernels only; the math path is unfused by design."""
    assert {k for k in kernels.names() if kernels.get(k).materialises_scores} == {"naive", "sdpa_math"}
