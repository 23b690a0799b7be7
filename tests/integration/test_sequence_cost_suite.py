"""sequence_cost end to end at a tiny size: every layer checked then timed, budgets, bad input, and the report."""

import pytest
from stored import load, report

from bench.cli import main
from harness.contract import suites

TINY = [
    "suite=sequence_cost",
    "set.lengths=[16,32]",
    "set.d_model=32",
    "set.n_heads=2",
    "set.batch=2",
    "set.check_len=8",
    "set.min_repeats=3",
    "set.min_run_time=0.005",
    "set.matmul_sizes=[64]",
    "set.decode_contexts=[8,64]",
    "progress=false",
]


def steps_of(records, variant, length):
    return next(
        r["value"]
        for r in records
        if r["metric"] == "sequential_steps"
        and r["variant"] == variant
        and r["x"] == length
        and r["extra"]["pass"] == "fwd"
    )


def run(tmp_path, *args):
    return main(["run", f"results_dir={tmp_path / 'results'}", *TINY, *args])


def test_default_layers_end_to_end_with_report(tmp_path):
    # a busy machine can make one tiny call exceed the profile's max_call_s (a budget skip, tested below): lifted here
    assert run(tmp_path, "set.max_call_s=60") == 0
    records = load(tmp_path / "results")
    assert {r["variant"] for r in records} == set(suites.get("sequence_cost").default_variants)  # every one, 16
    assert len(suites.get("sequence_cost").default_variants) == 16
    assert {r["status"] for r in records} == {"ok"}
    decode = [r for r in records if r["metric"].startswith("decode_")]
    assert len(decode) == 16 * 2 * 2  # variants x contexts x (latency, state bytes)
    shares = [r for r in records if r["metric"] == "attention_share"]
    assert {(r["variant"], r["x"]) for r in shares} == {("transformer", 16.0), ("transformer", 32.0)}  # fwd only
    # the FLOP share is a count: the causal core's 2 B n (n + 1) d over the block's matmuls, 24 d^2 per token besides
    # (Kaplan et al.'s n / (12 d + n) with the diagonal); the time share is a timing, not asserted
    assert all(r["extra"]["flops_share"] == pytest.approx((r["x"] + 1) / (12 * 32 + r["x"] + 1)) for r in shares)
    cases = [
        r for r in records if r["metric"] not in ("matmul_peak", "max_error", "attention_share") and r not in decode
    ]
    assert len(cases) == 16 * 2 * 2 * 7  # variants x lengths x passes x metrics
    assert steps_of(records, "mingru+loop", 32.0) == 32 and steps_of(records, "mingru", 32.0) == 1
    steps = {
        (r["variant"], r["x"], r["extra"]["pass"]): r["value"] for r in records if r["metric"] == "sequential_steps"
    }
    assert steps[("lstm+loop", 32.0, "fwd")] == 32 and steps[("gru", 32.0, "fwd+bwd")] == 64
    assert steps[("transformer", 32.0, "fwd")] == 1
    assert steps[("gated_deltanet+loop", 32.0, "fwd")] == 32 and steps[("gated_deltanet", 32.0, "fwd")] == 1
    lat = [r for r in records if r["metric"] == "latency"]
    assert all(len(r["extra"]["times"]) >= 3 for r in lat)
    assert all(r["layer"] and r["matmul_peak_gflops"] > 0 for r in records)

    report(
        tmp_path / "results",
        tmp_path / "reports",
        "sequence_cost",
        phrases=(
            "Check before timing",
            "LSTM step loop",
            "Transformer block (sdpa)",
            "share of the measured torch.mm peak",
            "Sequential steps",
            "NVIDIA H200",
            "mingru parallel form",
            "Decoding: one step against the context length",
            "a device with parallel lanes to spare",
        ),
        figures=("sequence_cost.png",),
    )


def test_a_case_over_the_time_budget_stops_longer_lengths(tmp_path):
    assert run(tmp_path, "variants=[lstm+loop]", "set.max_call_s=0.000001", "set.passes=[fwd]") == 0
    records = {(r["metric"], r["x"]): r for r in load(tmp_path / "results")}
    assert records[("flops", 16.0)]["status"] == "ok" and records[("dispatched_ops", 16.0)]["status"] == "ok"
    assert (
        records[("latency", 16.0)]["status"] == "skipped" and "max_call_s=1e-06" in records[("latency", 16.0)]["reason"]
    )
    assert all(records[(m, 32.0)]["status"] == "skipped" for m in ("latency", "flops"))


@pytest.mark.parametrize(
    "args,message",
    [(["set.passes=[backward]"], "each one of fwd, fwd+bwd"), (["variants=[transformer+loop]"], "does not have")],
)
def test_bad_input_is_a_clear_error(tmp_path, capsys, args, message):
    assert run(tmp_path, *args) == 2
    assert message in capsys.readouterr().err


@pytest.mark.gpu
def test_sequence_cost_on_cuda(tmp_path):
    assert (
        run(
            tmp_path,
            "device=cuda",
            "set.lengths=[64,256]",
            "set.d_model=256",
            "set.n_heads=4",
            "set.batch=8",
            "set.matmul_sizes=[1024]",
        )
        == 0
    )
    records = load(tmp_path / "results")
    assert all(r["device"] == "cuda" and r["status"] == "ok" for r in records)
    assert any(r["metric"] == "peak_fraction" for r in records)
