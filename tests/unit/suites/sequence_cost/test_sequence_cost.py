"""sequence_cost: the layers, their FLOPs, operator counts and sequential steps, and the report from made-up records."""

import dataclasses

import pytest
import torch
from torch import nn

from harness.claims import judge_all
from harness.contract import suites
from suites.sequence_cost.suite import PROFILES, _check, dispatched_ops, useful_flops
from tests.report_shape import check_reports
from tests.unit.suites.sequence_cost.claims._records import B, D, H, block, jobs
from variants.models.sequence_layer import RecurrentLayerSpec, build_layer, num_parameters
from variants.spec import TransformerSpec, resolve


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


def test_report_from_made_up_records(tmp_path):
    from bench.report.build import write_suite_report

    df = jobs(30.0, 70.0)
    suite = suites.get("sequence_cost")
    paths = write_suite_report(suite, df, tmp_path)
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
    assert [f.claim for f in judge_all(suite, df)] == list(suite.claims)
