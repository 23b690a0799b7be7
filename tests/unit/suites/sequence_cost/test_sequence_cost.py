"""sequence_cost: the layers, their FLOPs, operator counts and sequential steps, and the report from made-up records."""

import dataclasses

import pandas as pd
import pytest
import torch
from torch import nn

from harness.contract import suites
from suites.sequence_cost.report import CLAIMS, findings, write_report
from suites.sequence_cost.suite import PROFILES, _check, dispatched_ops, useful_flops
from tests.report_shape import check_reports
from variants.sequence_layer import RecurrentLayerSpec, build_layer, num_parameters
from variants.spec import TransformerSpec, resolve

B, D, H = 2, 16, 4


def block(length: int = 32, kernel: str = "sdpa") -> TransformerSpec:
    return TransformerSpec(d_model=D, n_heads=H, n_layers=1, position="none", kernel=kernel, max_len=length)


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_the_step_loop_computes_what_the_fused_module_does_with_the_same_weights(cell):
    layer = build_layer(RecurrentLayerSpec(cell=cell, d_model=D))
    x = torch.randn(B, 12, D)
    assert torch.allclose(layer.step_loop(x), layer.rnn(x)[0], atol=1e-6)
    assert num_parameters(layer) == sum(p.numel() for p in getattr(nn, cell.upper())(D, D).parameters())
    loop = build_layer(RecurrentLayerSpec(cell=cell, d_model=D, recurrence="loop"))
    loop.load_state_dict(layer.state_dict())
    assert torch.allclose(loop(x), layer(x), atol=1e-6)


def test_presets_resolve_to_recurrent_layers_and_a_block():
    assert resolve("gru+loop", RecurrentLayerSpec()) == RecurrentLayerSpec(cell="gru", recurrence="loop")
    suite, profile = suites.get("sequence_cost"), PROFILES["quick"]
    assert isinstance(suite.spec_for("lstm", profile, {}), RecurrentLayerSpec)
    spec = suite.spec_for("transformer", profile, {})
    assert isinstance(spec, TransformerSpec) and (spec.n_layers, spec.position, spec.kernel) == (1, "none", "sdpa")
    assert RecurrentLayerSpec(cell="rnn", recurrence="scan").problems() == [
        "Unknown recurrent cell 'rnn' for one layer; choose one of lstm, gru.",
        "Unknown recurrence 'scan'; choose one of fused, loop.",
    ]


def test_sequential_steps_grow_with_length_for_recurrence_only():
    lstm, attention = build_layer(RecurrentLayerSpec(d_model=D)), build_layer(block())
    assert [lstm.sequential_steps(n) for n in (1, 64, 4096)] == [1, 64, 4096]
    assert [attention.sequential_steps(n) for n in (1, 64, 4096)] == [1, 1, 1]


@pytest.mark.parametrize("cell,gates", [("lstm", 4), ("gru", 3)])
def test_recurrent_flops_are_two_products_per_gate_per_step(cell, gates):
    spec = RecurrentLayerSpec(cell=cell, d_model=D)
    per_step = 2 * (2 * B * D * gates * D)  # x W_ih^T and h W_hh^T, 2 FLOPs per multiply-add
    assert useful_flops(spec, B, 50, backward=False) == 50 * per_step
    assert useful_flops(dataclasses.replace(spec, recurrence="loop"), B, 50, backward=False) == 50 * per_step
    # backward: the gradient of the input and the hidden state (2 products) and of both weights (2 products);
    # the first step's hidden state is zero and has no weight gradient of W_hh to compute from
    assert useful_flops(spec, B, 50, backward=True) > 2 * useful_flops(spec, B, 50, backward=False)


def test_block_flops_count_projections_feed_forward_and_the_causal_half_of_attention():
    n = 32
    projections = 2 * B * n * (D * D + D * 2 * D + D * D)  # q, kv, out
    feed_forward = 2 * B * n * (D * 4 * D) * 2
    attention = 2 * (2 * B * n * n * D) * (n + 1) / (2 * n)  # q k^T and p v, causal half
    assert useful_flops(block(n), B, n, backward=False) == pytest.approx(projections + feed_forward + attention)


def test_a_loop_dispatches_operators_per_step_and_a_block_a_fixed_number():
    loop = build_layer(RecurrentLayerSpec(d_model=D, recurrence="loop"))
    attention = build_layer(block(64))
    counts = {n: dispatched_ops(lambda: loop(torch.randn(B, n, D))) for n in (8, 16, 32)}
    assert counts[32] - counts[16] == 2 * (counts[16] - counts[8]) > 0
    assert len({dispatched_ops(lambda: attention(torch.randn(B, n, D))) for n in (8, 16, 64)}) == 1


def test_every_layer_passes_its_check_and_a_wrong_one_fails():
    profile = dataclasses.replace(PROFILES["quick"], d_model=D, n_heads=H, batch=B, check_len=8)
    for spec in (RecurrentLayerSpec(d_model=D), RecurrentLayerSpec(cell="gru", d_model=D, recurrence="loop"), block()):
        layer = build_layer(spec)
        error, allowed = _check(layer, spec, profile, 0, "cpu", torch.float32)
        assert error <= allowed, spec
    wrong = build_layer(block())
    right = wrong.forward
    wrong.forward = lambda x: right(x) * 1.01  # the same weights, an output 1% off
    error, allowed = _check(wrong, block(), profile, 0, "cpu", torch.float32)
    assert error > allowed


# --------------------------------------------------------------------------- the report from made-up records

SETTINGS = dict(
    d_model=D,
    n_heads=H,
    batch=B,
    lengths=[64, 128],
    passes=["fwd", "fwd+bwd"],
    check_len=8,
    min_repeats=3,
    min_run_time=0.01,
    max_call_s=1.0,
    matmul_sizes=[64],
)


def made_up_records(variant: str, spec, shares, seed: int = 0):
    """One job's records: each (pass, length) at the given share of a 100 GFLOP/s peak."""
    common = dict(
        suite="sequence_cost",
        suite_version=1,
        task="sequence_cost",
        variant=variant,
        spec=spec.to_dict(),
        profile="quick",
        profile_settings=SETTINGS,
        seed=seed,
        dtype="float32",
        data_checksum="",
        device="cpu",
        device_name="test cpu",
        torch_version="2.x",
        git_commit="0123456789ab",
        git_dirty=False,
        num_threads=2,
        timestamp="2026-01-01T00:00:00+00:00",
        parameters=1000,
        status="ok",
        reason=None,
    )
    rows = [
        dict(common, metric="matmul_peak", value=100.0, x=None, extra={}),
        dict(common, metric="max_error", value=1e-7, x=None, extra={"allowed_error": 1e-4, "check_len": 8}),
    ]
    recurrent = isinstance(spec, RecurrentLayerSpec)
    for pass_ in ("fwd", "fwd+bwd"):
        for n in (64, 128):
            where = dict(common, x=float(n), x_name="seq_len")
            share = shares[pass_]
            flops = 1.0 * n / 64
            latency = flops / (share / 100 * 100.0) * 1e3
            times = [latency] * 3
            steps = n * (2 if pass_ == "fwd+bwd" else 1) if recurrent else (2 if pass_ == "fwd+bwd" else 1)
            for metric, value, extra in (
                (
                    "latency",
                    latency,
                    {
                        "noise": 0.02,
                        "times": times,
                        "kept_mask": [True] * 3,
                        "contaminated": False,
                        "other_cpu_median": 0.1,
                    },
                ),
                ("tokens_per_s", B * n / latency * 1e3, {}),
                ("flops", flops, {}),
                ("throughput", flops / latency * 1e3, {}),
                ("peak_fraction", share, {}),
                ("dispatched_ops", float(10 * n if recurrent else 30), {}),
                ("sequential_steps", float(steps), {}),
            ):
                rows.append(dict(where, metric=metric, value=value, extra={"pass": pass_, **extra}))
    return rows


def jobs(recurrent_share: float, attention_share: float, device: str = "cuda") -> pd.DataFrame:
    lstm, loop = RecurrentLayerSpec(d_model=D), RecurrentLayerSpec(d_model=D, recurrence="loop")
    rows = made_up_records("lstm", lstm, {"fwd": recurrent_share, "fwd+bwd": recurrent_share})
    rows += made_up_records("lstm+loop", loop, {"fwd": recurrent_share / 3, "fwd+bwd": recurrent_share / 3})
    rows += made_up_records("transformer", block(128), {"fwd": attention_share, "fwd+bwd": attention_share})
    return pd.DataFrame(rows).assign(device=device)


def test_report_from_made_up_records(tmp_path):
    df = jobs(30.0, 70.0)
    paths = write_report(suites.get("sequence_cost"), df, tmp_path)
    text = (tmp_path / "sequence_cost.md").read_text()
    check_reports(tmp_path)  # tables of at most 8 columns, no nan or None
    for phrase in (
        "Check before timing",
        "Latency (ms)",
        "Tokens per second",
        "share of the measured torch.mm peak",
        "ATen operators",
        "Sequential steps on the critical path",
        "128: 256",
        "Vaswani et al. 2017",
        "`transformer` 70% of the measured matmul peak against `lstm` 30%, `lstm+loop` 10%",
        "**agrees**",
    ):
        assert phrase in text, phrase
    assert paths[1].name == "sequence_cost.png" and paths[1].stat().st_size > 10_000
    assert [f.claim for f in findings(df)] == list(CLAIMS)


@pytest.mark.parametrize(
    "recurrent,attention,verdict",
    [(30.0, 70.0, "agrees"), (40.0, 60.0, "inconclusive"), (60.0, 65.0, "disagrees"), (50.0, 20.0, "disagrees")],
)
def test_the_utilisation_verdict_on_a_gpu_follows_the_ratio_of_shares(recurrent, attention, verdict):
    found = findings(jobs(recurrent, attention))[0]  # the utilisation verdict; the scan verdict follows
    assert found.verdict == verdict
    assert "fwd+bwd at 128 tokens" in found.sentence and (found.cause == "") == (verdict == "agrees")


@pytest.mark.parametrize("recurrent,attention", [(30.0, 70.0), (60.0, 65.0)])
def test_the_utilisation_claim_is_not_testable_on_a_cpu(recurrent, attention, tmp_path, monkeypatch):
    """A GPU claim: with no GPU records, whatever the shares on a CPU, no verdict, the shares kept and a CUDA
    device named."""
    from suites.sequence_cost import gpu_records

    monkeypatch.setattr(gpu_records, "GPU_RESULTS", tmp_path)  # no reference GPU records
    found = findings(jobs(recurrent, attention, device="cpu"))[0]
    assert found.verdict == "not testable here"
    assert "about GPUs" in found.cause and "device=cuda" in found.cause
    assert {e.label for e in found.estimates} >= {"fwd+bwd transformer % of peak", "fwd+bwd lstm % of peak"}


def test_a_cpu_run_shows_the_reference_gpu_verdict_with_its_device(tmp_path):
    """The CPU cannot test the claim; the project's reference GPU records can: their verdict is shown beside the CPU's
    shares, the device named in the headline, which is the ratio the verdict turns on against AGREE_RATIO."""
    from suites.sequence_cost import verdicts
    from suites.sequence_cost.gpu_records import GPU_RESULTS, reference_gpu_frame

    gpu = reference_gpu_frame()
    if gpu is None:
        pytest.skip(f"no reference GPU records under {GPU_RESULTS}")
    found = findings(jobs(60.0, 65.0, device="cpu"))[0]  # on the CPU recurrence is as busy as attention
    name = str(gpu.iloc[0].device_name)
    assert found.verdict == verdicts._judge(verdicts._frame(gpu))[0] != "not testable here"
    assert name in found.headline.label and found.headline.unit == "x" and found.boundary == verdicts.AGREE_RATIO
    assert found.sentence.startswith("Not testable on this cpu") and "reference/gpu/results" in found.sentence
    assert name in found.claim.confound
    assert {e.label for e in found.estimates} >= {"fwd+bwd transformer % of peak", "fwd+bwd lstm % of peak"}
    # a GPU store holding no records of this suite: not testable here
    store = tmp_path / "sequence_cost"
    store.mkdir()
    assert verdicts._utilisation(jobs(60.0, 65.0, device="cpu"), gpu_results=tmp_path)[0].verdict == "not testable here"


def test_no_common_length_is_not_run():
    df = jobs(30.0, 70.0)
    df = df[df.variant != "transformer"]
    assert findings(df)[0].verdict == "not run"
