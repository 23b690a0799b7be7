"""Microbenchmarks of every available attention kernel and of the three decode paths (pytest-benchmark).

Each kernel's output is compared with naive attention on the same input before it is timed, within the kernel
layer's float32 tolerance (variants/kernel/_tolerance.py). Run with
``make bench``; save a run with ``--benchmark-save=NAME`` and compare runs with ``--benchmark-compare``.
"""

import pytest
import torch

from variants.kernel import DECODE_PATHS, kernels, tolerance
from variants.spec import TransformerSpec

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
SPEC = TransformerSpec(d_model=512, n_heads=8)


def matches(got: torch.Tensor, want: torch.Tensor) -> bool:
    error, allowed = tolerance(torch.float32).check(got, want)
    return error <= allowed


def _available():
    return [n for n in kernels.names() if not kernels.get(n).problems(SPEC, DEVICE, torch.float32)]


@pytest.fixture(autouse=True)
def _pinned():
    torch.set_flush_denormal(True)  # recorded in every suite; pinned here too so runs compare
    yield


@pytest.mark.parametrize("kernel", _available())
@pytest.mark.parametrize("length", [512, 2048])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_forward(benchmark, kernel, length, causal):
    q, k, v = (torch.randn(1, 8, length, 64, device=DEVICE) for _ in range(3))
    attend = kernels.get(kernel).attend
    want = kernels.get("naive").attend(q, k, v, causal=causal)
    assert matches(attend(q, k, v, causal=causal), want)
    benchmark.extra_info.update(kernel=kernel, length=length, causal=causal, threads=torch.get_num_threads())
    benchmark(
        lambda: (
            attend(q, k, v, causal=causal)
            if DEVICE == "cpu"
            else (attend(q, k, v, causal=causal), torch.cuda.synchronize())
        )
    )


@pytest.mark.parametrize("kernel", _available())
def test_forward_backward_gqa(benchmark, kernel):
    q = torch.randn(1, 8, 1024, 64, device=DEVICE, requires_grad=True)
    k, v = (torch.randn(1, 2, 1024, 64, device=DEVICE, requires_grad=True) for _ in range(2))
    grad = torch.randn(1, 8, 1024, 64, device=DEVICE)
    attend = kernels.get(kernel).attend

    def step():
        return torch.autograd.grad(attend(q, k, v, causal=True), (q, k, v), grad)

    want = torch.autograd.grad(kernels.get("naive").attend(q, k, v, causal=True), (q, k, v), grad)
    assert all(matches(a, b) for a, b in zip(step(), want))
    benchmark.extra_info.update(kernel=kernel, length=1024, kv_heads=2)
    benchmark(step)


@pytest.mark.parametrize("path", list(DECODE_PATHS))
@pytest.mark.parametrize("kv_heads", [32, 8, 1], ids=["mha", "gqa8", "mqa"])
def test_decode_step(benchmark, path, kv_heads):
    q = torch.randn(1, 32, 1, 128, device=DEVICE)
    k, v = (torch.randn(1, kv_heads, 1024, 128, device=DEVICE) for _ in range(2))
    fn = DECODE_PATHS[path]
    want = kernels.get("naive").attend(q, k, v, causal=True)
    assert matches(fn(q, k, v), want)
    benchmark.extra_info.update(path=path, kv_heads=kv_heads, cached_tokens=1024)
    benchmark(lambda: fn(q, k, v))
