"""attention_cost end to end at a tiny size: records, a wrong kernel as a failure, budgets, the report."""

from dataclasses import dataclass

import pytest
import torch
from stored import load, report

from bench.cli import main
from harness.contract import suites
from variants.kernel._base import AttentionKernel, kernels

TINY = [
    "suite=attention_cost",
    "set.lengths=[16,32]",
    "set.n_heads=4",
    "set.head_dim=8",
    "set.check_rows=8",
    "set.min_repeats=3",
    "set.min_run_time=0.005",
    "set.matmul_sizes=[64]",
    "set.threads=1",
    "progress=false",
]


def run(tmp_path, *args):
    return main(["run", f"results_dir={tmp_path / 'results'}", *TINY, *args])


@dataclass(frozen=True)
class WrongScale(AttentionKernel):
    """Attention with the scale forgotten: runs, and is wrong."""

    def attend(self, q, k, v, *, causal, bias=None, scale=None):
        return kernels.get("naive").attend(q, k, v, causal=causal, bias=bias, scale=1.0)


@dataclass(frozen=True)
class NoBackward(AttentionKernel):
    """A forward-only kernel: its backward is not implemented."""

    def attend(self, q, k, v, *, causal, bias=None, scale=None):
        if q.requires_grad:
            raise NotImplementedError("no backward pass")
        return kernels.get("sdpa").attend(q, k, v, causal=causal, bias=bias, scale=scale)


@pytest.fixture
def extra_kernels():
    added = {"wrong_scale": WrongScale(), "forward_only": NoBackward()}
    kernels.discover()
    for name, kernel in added.items():
        kernels.add(name, kernel, summary="test kernel")
    yield
    for name in added:
        kernels._entries.pop(name)


def test_every_case_is_checked_then_measured_and_the_report_is_built(tmp_path):
    assert run(tmp_path, "variants=[naive,sdpa,sdpa+alibi]") == 0
    records = load(tmp_path / "results")
    job_level = ("matmul_peak", "read_bandwidth")
    cases = [r for r in records if r["metric"] not in job_level and not r["metric"].startswith("mask_")]
    assert {r["status"] for r in records} == {"ok"}
    # 2 lengths x 2 masks x 2 passes x 6 metrics per variant
    assert len(cases) == 3 * 2 * 2 * 2 * 6
    probed = {
        (r["variant"], r["extra"]["dtype"], r["extra"]["fill"]) for r in records if r["metric"].startswith("mask_")
    }
    assert len(probed) == 3 * 3 * 4  # every variant probed in 3 dtypes x 4 fills
    lat = [r for r in records if r["metric"] == "latency"]
    assert all(len(r["extra"]["times"]) >= 3 and r["extra"]["q1"] <= r["value"] <= r["extra"]["q3"] for r in lat)
    assert all("other_cpu" in r["extra"] and "stall" in r["extra"] for r in lat)
    # what ran: SDPA's backend as PyTorch's dispatcher picks it, the kernel's name otherwise
    assert {r["extra"]["dispatch"] for r in lat if r["variant"] == "naive"} == {"naive"}
    assert all(r["extra"]["dispatch"].startswith("sdpa:") for r in lat if r["variant"].startswith("sdpa"))
    reads = [r for r in records if r["metric"] == "read_bandwidth"]
    assert len(reads) == 3 and all(r["extra"]["bytes_read"] == 256 * 2**20 and r["value"] > 0 for r in reads)
    flops = {
        (r["variant"], r["x"], r["extra"]["causal"], r["extra"]["pass"]): r["value"]
        for r in records
        if r["metric"] == "flops"
    }
    assert flops[("naive", 32.0, False, "fwd")] == pytest.approx(4 * 4 * 32 * 32 * 8 / 1e9)
    assert flops[("naive", 32.0, False, "fwd+bwd")] == pytest.approx(3 * flops[("naive", 32.0, False, "fwd")])
    assert flops[("naive", 32.0, True, "fwd")] == pytest.approx(flops[("naive", 32.0, False, "fwd")] * 33 / 64)
    mem = {
        (r["variant"], r["x"], r["extra"]["pass"], r["extra"]["causal"]): r["value"]
        for r in records
        if r["metric"] == "peak_memory"
    }
    assert mem[("naive", 32.0, "fwd", False)] == (2 * 4 * 32 * 32 * 4 + 4 * 32 * 8 * 4) / 2**20
    assert all(r["timing_threads"] >= 1 and r["flush_denormal"] for r in records)

    report(
        tmp_path / "results",
        tmp_path / "reports",
        "attention_cost",
        phrases=(
            "Correctness against naive",
            "sdpa vs naive",
            "slope",
            "Dao et al. 2022",
            "% of the measured matmul peak",
            "share of the measured torch.mm peak",
            "unknown device: measured only",
            "Roofline",
            "bootstrap",
            "Contention",
        ),
        figures=("attention_cost_latency.png", "attention_cost_memory.png", "attention_cost_roofline.png"),
    )


def test_a_kernel_that_disagrees_with_naive_is_a_failure_not_a_timing(tmp_path, extra_kernels):
    # a kernel that disagrees with naive is a failed job, so the run exits 1 (its records are still stored)
    assert run(tmp_path, "variants=[wrong_scale,forward_only]", "set.lengths=[16]") == 1
    records = load(tmp_path / "results")
    wrong = [
        r
        for r in records
        if r["variant"] == "wrong_scale"
        and r["metric"] not in ("matmul_peak", "read_bandwidth")  # the device's ceilings, measured once per job
        and not r["metric"].startswith("mask_")
    ]
    assert wrong and all(r["status"] == "failed" and "differs from naive" in r["reason"] for r in wrong)
    assert not any(r["metric"] == "latency" and r["value"] is not None for r in wrong)
    fwd_only = [r for r in records if r["variant"] == "forward_only" and r["metric"] == "latency"]
    by_pass = {r["extra"]["pass"]: r for r in fwd_only}
    assert by_pass["fwd"]["status"] == "ok"
    assert by_pass["fwd+bwd"]["status"] == "unsupported" and "no backward pass" in by_pass["fwd+bwd"]["reason"]


def test_a_case_over_the_time_budget_keeps_memory_and_stops_longer_lengths(tmp_path):
    assert run(tmp_path, "variants=[naive]", "set.max_call_s=0", "set.passes=[fwd]", "set.causal=[false]") == 0
    records = {(r["metric"], r["x"]): r for r in load(tmp_path / "results")}
    assert records[("peak_memory", 16.0)]["status"] == "ok" and records[("max_error", 16.0)]["status"] == "ok"
    assert records[("latency", 16.0)]["status"] == "skipped" and "max_call_s=0" in records[("latency", 16.0)]["reason"]
    assert all(records[(m, 32.0)]["status"] == "skipped" for m in ("latency", "peak_memory"))


def test_default_variants_cover_every_registered_kernel_with_three_groupings():
    variants = suites.get("attention_cost").default_variants
    for name in kernels.names():
        assert {name, f"{name}+gqa2", f"{name}+mqa"} <= set(variants)


def test_an_unknown_pass_is_a_clear_error(tmp_path, capsys):
    assert run(tmp_path, "set.passes=[backward]") == 2
    err = capsys.readouterr().err
    assert "set.passes=[backward] has the item backward" in err and "fwd, fwd+bwd" in err


@pytest.mark.gpu
def test_attention_cost_on_cuda(tmp_path):
    assert run(tmp_path, "device=cuda", "dtype=bfloat16", "variants=[naive,sdpa+mqa]", "set.matmul_sizes=[1024]") == 0
    records = load(tmp_path / "results")
    assert all(r["device"] == "cuda" for r in records)
    assert any(r["metric"] == "peak_memory" and "cuda" in r["extra"]["method"] for r in records)
    assert all(r["status"] == "ok" for r in records if r["metric"] == "max_error")


@pytest.mark.gpu
def test_cuda_peak_memory_is_exact():
    from harness.measure import peak_memory

    peak, _, method = peak_memory(lambda: torch.empty(2**20, device="cuda"), "cuda")
    assert peak == 4 * 2**20 and "cuda" in method
