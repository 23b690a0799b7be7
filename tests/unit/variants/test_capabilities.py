"""Kernel capabilities on CUDA, checked on any machine against a faked device capability table.

What the first H200 run found: the cost suites refused bfloat16, sdpa_efficient declared native
GQA that PyTorch's memory-efficient backend does not have, xformers counted as available when its ops did
not load, flex failed in Inductor below a head dimension of 16, and counting the FLOPs of a fused SDPA call
with grouped K/V raised in torch's flop formula. Each is a declaration or a probe, tested here without a GPU.
"""

import pytest
import torch
import torch.nn.functional as F

from variants.kernel import kernels
from variants.kernel._capabilities import DeviceTable, current, faked, probe
from variants.spec import TransformerSpec, problems, resolve

H200 = DeviceTable(cuda=True, compute_capability=(9, 0))
HEAD8 = TransformerSpec(vocab_size=23, d_model=32, n_layers=1, n_heads=4, max_len=16)  # head dimension 8
HEAD16 = TransformerSpec(vocab_size=23, d_model=64, n_layers=1, n_heads=4, max_len=16)


def test_a_faked_table_replaces_the_machine_and_is_restored():
    before = current()
    with faked(H200) as table:
        assert current() is table and table.faked and table.present("cuda")
        assert kernels.get("sdpa_cudnn").unavailable() != "needs a cuda device and torch sees none"
    assert current() is before
    with faked(DeviceTable(cuda=False)):
        assert kernels.get("sdpa_efficient").unavailable() == "needs a cuda device and torch sees none"


def test_the_cost_suites_compute_in_bfloat16():
    from harness.contract import suites

    for name in ("attention_cost", "kv_cache"):
        assert "bfloat16" in suites.get(name).dtypes and "float32" in suites.get(name).dtypes, name


def test_the_cli_accepts_bfloat16_for_the_cost_suites(tmp_path, capsys):
    from bench.cli import main

    for suite in ("attention_cost", "kv_cache"):
        code = main(
            [
                "run",
                f"suite={suite}",
                "dtype=bfloat16",
                "dry_run=true",
                f"results_dir={tmp_path}",
                "variants=[sdpa]" if suite == "attention_cost" else "variants=[rope]",
                "progress=false",
            ]
        )
        assert code == 0, capsys.readouterr().err


# --- flex: a head dimension of at least 16 on CUDA


def test_flex_declares_its_smallest_head_dimension_on_cuda_only():
    flex = kernels.get("flex")
    assert flex.min_head_dim_on("cuda") == 16 and flex.min_head_dim_on("cpu") == 1
    with faked(H200):
        found = problems(resolve("rope+flex", HEAD8), "cuda", torch.bfloat16)
        assert any("head dimension of at least 16 on cuda, got 8" in r for r in found), found
        assert not any("head dimension" in r for r in problems(resolve("rope+flex", HEAD16), "cuda", torch.bfloat16))
    assert not any("head dimension" in r for r in problems(resolve("rope+flex", HEAD8), "cpu", training=False))


def test_compiling_flex_lets_dynamo_keep_enough_compilations_for_a_sweep():
    """Past Dynamo's limit flex would run eagerly (scores materialised) and be timed as if compiled."""
    from torch._dynamo import config

    from variants.kernel.flex import RECOMPILE_LIMIT, _compiled_flex

    if kernels.get("flex").missing():
        pytest.skip(kernels.get("flex").missing())
    _compiled_flex()  # wraps without compiling
    assert config.recompile_limit >= RECOMPILE_LIMIT >= 32


def test_no_other_kernel_declares_a_head_dimension_floor():
    assert [k for k in kernels.names() if kernels.get(k).min_head_dim_on("cuda") > 1] == ["flex"]


# --- sdpa_efficient: grouped K/V repeated, not enable_gqa


@pytest.mark.parametrize("kv_heads", [2, 1])
def test_sdpa_efficient_repeats_grouped_key_value_heads_itself(kv_heads):
    efficient = kernels.get("sdpa_efficient")
    assert not efficient.native_gqa
    q = torch.empty(2, 8, 5, 16, device="meta")
    k = torch.empty(2, kv_heads, 5, 16, device="meta")
    k2, v2, kwargs = efficient._inputs(q, k, k, True, None)
    assert k2.shape == v2.shape == (2, 8, 5, 16)
    assert kwargs.get("enable_gqa", False) is False


def test_repeating_for_sdpa_efficient_is_the_grouping_naive_uses():
    efficient, naive = kernels.get("sdpa_efficient"), kernels.get("naive")
    q, k, v = torch.randn(1, 4, 6, 8), torch.randn(1, 2, 6, 8), torch.randn(1, 2, 6, 8)
    k2, v2, kwargs = efficient._inputs(q, k, v, True, None)
    got = F.scaled_dot_product_attention(q, k2, v2, **kwargs)  # the call it makes, on CPU's default backend
    assert torch.allclose(got, naive.attend(q, k, v, causal=True), atol=1e-6)


def test_sdpa_efficient_plans_every_grouping_on_cuda():
    with faked(H200):
        for grouping in ("mha", "gqa2", "mqa"):
            assert not problems(resolve(f"rope+{grouping}+sdpa_efficient", HEAD16), "cuda", torch.bfloat16), grouping
    assert kernels.get("sdpa").native_gqa and kernels.get("sdpa_flash").native_gqa


# --- xformers: available only when its op runs, probed once


def _installed(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: object() if name == "xformers" else real(name, *a)
    )


def test_xformers_whose_op_fails_is_unavailable_with_the_reason(monkeypatch):
    _installed(monkeypatch)
    broken = DeviceTable(
        cuda=True,
        compute_capability=(9, 0),
        probes={"xformers": "NotImplementedError: No operator found for `memory_efficient_attention_forward`"},
    )
    with faked(broken):
        reason = kernels.get("xformers").unavailable()
        assert reason and "installed but its attention op does not run here" in reason
        assert "No operator found" in reason
        found = problems(resolve("rope+xformers", HEAD16), "cuda", torch.bfloat16)
        assert any("does not run here" in r for r in found)


def test_xformers_whose_op_runs_is_available(monkeypatch):
    _installed(monkeypatch)
    with faked(DeviceTable(cuda=True, compute_capability=(9, 0), probes={"xformers": None})):
        assert kernels.get("xformers").unavailable() is None
        assert not problems(resolve("rope+mqa+xformers", HEAD16), "cuda", torch.bfloat16)


def test_xformers_without_a_gpu_names_the_missing_device_not_a_probe(monkeypatch):
    _installed(monkeypatch)
    with faked(DeviceTable(cuda=False)):
        assert kernels.get("xformers").unavailable() == "needs a cuda device and torch sees none"


def test_a_probe_runs_once_and_keeps_its_answer_with_the_reason():
    calls = []

    def fails():
        calls.append(1)
        raise RuntimeError("CUDA extension built for torch 2.9\nmore detail")

    table = DeviceTable(cuda=True)
    import variants.kernel._capabilities as caps

    caps._FAKES.append(table)  # an unfaked table: probes run for real
    try:
        assert probe("thing", fails) == "RuntimeError: CUDA extension built for torch 2.9"
        assert probe("thing", fails) == "RuntimeError: CUDA extension built for torch 2.9"
        assert probe("fine", lambda: None) is None
    finally:
        caps._FAKES.pop()
    assert calls == [1]


def test_a_faked_table_never_runs_a_probe():
    with faked(H200):
        assert probe("anything", lambda: 1 / 0) is None


def test_the_support_matrix_reports_xformers_reason_on_a_faked_gpu(monkeypatch):
    from bench.report.support import availability_table

    _installed(monkeypatch)
    with faked(DeviceTable(cuda=True, probes={"xformers": "ImportError: xformers._C"})):
        rows = availability_table().set_index("kernel")["available here"]
    assert rows["xformers"].startswith("no: the xformers package is installed but its attention op does not run")
    assert rows["sdpa_efficient"] == "yes"


# --- counting FLOPs of SDPA with grouped K/V


def test_flops_of_grouped_sdpa_are_counted_as_broadcast_heads():
    from harness.measure import count_flops

    q, k = torch.randn(1, 8, 32, 16), torch.randn(1, 1, 32, 16)
    grouped, _ = count_flops(lambda: F.scaled_dot_product_attention(q, k, k, is_causal=True, enable_gqa=True))
    full = k.expand(1, 8, 32, 16).contiguous()
    mha, _ = count_flops(lambda: F.scaled_dot_product_attention(q, full, full, is_causal=True))
    assert grouped == mha > 0


def test_a_flop_formula_that_asserts_equal_heads_still_counts_grouped_attention(monkeypatch):
    """torch before 2.12 asserted equal head counts (the bf16 sdpa+mqa failure of attention_cost on CUDA)."""
    from torch.utils import flop_counter as fc

    import harness.measure as measure

    def old_forward(query_shape, key_shape, value_shape):
        b, h, s_q, d = query_shape
        assert h == key_shape[1] == value_shape[1], "sdpa_flop_count: query/key/value shapes are incompatible"
        return 4 * b * h * s_q * key_shape[2] * d

    def old_backward(grad_out_shape, query_shape, key_shape, value_shape):
        assert query_shape[1] == key_shape[1] == value_shape[1]
        return 2 * old_forward(query_shape, key_shape, value_shape)

    monkeypatch.setattr(fc, "sdpa_flop_count", old_forward)
    monkeypatch.setattr(fc, "sdpa_backward_flop_count", old_backward)
    measure._count_grouped_attention_flops()
    assert fc.sdpa_flop_count((2, 8, 5, 4), (2, 1, 7, 4), (2, 1, 7, 4)) == 4 * 2 * 8 * 5 * 7 * 4
    assert fc.sdpa_backward_flop_count((2, 8, 5, 4), (2, 8, 5, 4), (2, 2, 7, 4), (2, 2, 7, 4)) == 8 * 2 * 8 * 5 * 7 * 4
    assert fc.sdpa_flop_count((2, 8, 5, 4), (2, 8, 7, 4), (2, 8, 7, 4)) == 4 * 2 * 8 * 5 * 7 * 4


# --- dtype=auto: bfloat16 autocast for training on CUDA, float32 on CPU (CPU jobs keep their identity)


def test_auto_dtype_is_bfloat16_for_training_suites_on_cuda_and_float32_elsewhere():
    from bench.run.checks import resolve_dtype
    from harness.contract import suites

    extrapolation, cost, lm = (suites.get(n) for n in ("position_extrapolation", "attention_cost", "language_modeling"))
    assert resolve_dtype("auto", extrapolation, "cuda") == resolve_dtype("auto", extrapolation, "cuda:1") == "bfloat16"
    assert resolve_dtype("auto", extrapolation, "cpu") == "float32"
    assert resolve_dtype("auto", cost, "cuda") == "float32"  # a cost suite measures what it is told to
    assert resolve_dtype("auto", lm, "cuda") == ("bfloat16" if "bfloat16" in lm.dtypes else "float32")
    assert resolve_dtype("float32", extrapolation, "cuda") == "float32"


def test_the_default_dtype_on_cpu_plans_float32_jobs(tmp_path, capsys):
    from bench.cli import main

    args = ["run", "variants=[rope]", "dry_run=true", f"results_dir={tmp_path}", "device=cpu", "progress=false"]
    assert main(args) == 0
    default = capsys.readouterr().out
    assert main(args + ["dtype=float32"]) == 0
    assert capsys.readouterr().out == default  # the same jobs, the same hashes
