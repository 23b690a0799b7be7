"""Made-up sequence_cost records for its claims' tests (and its report's): jobs of layers at given shares of the
matmul peak, latencies of two forms of one layer, attention's share of a block."""

import pandas as pd

from suites.sequence_cost.claims._shared import Evidence, prepare
from suites.sequence_cost.tables import _frame
from variants.models.sequence_layer import RecurrentLayerSpec
from variants.spec import TransformerSpec

B, D, H = 2, 16, 4


def block(length: int = 32, kernel: str = "sdpa") -> TransformerSpec:
    return TransformerSpec(d_model=D, n_heads=H, n_layers=1, position="none", kernel=kernel, max_len=length)


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


def judged(claim, frame, gpu_results=None):
    """The claim's finding on ``frame`` as the suite judges a group of records (claims/_shared.py ``prepare``);
    ``gpu_results``: where the reference GPU records are read from (None: reference/gpu/results)."""
    return claim.judge(Evidence(prepare(frame).df, gpu_results))


def as_is(frame) -> Evidence:
    """The evidence of made-up records that need no framing (no spec to read a layer's kind from)."""
    return Evidence(frame)


def _latencies(by_variant: dict[str, dict], device: str, spec_of) -> pd.DataFrame:
    """fwd+bwd latency records, framed: variant -> {length: ms}; ``spec_of(variant)`` its spec."""
    rows = [
        dict(
            metric="latency",
            status="ok",
            variant=variant,
            x=float(x),
            value=ms,
            device=device,
            extra={"pass": "fwd+bwd"},
            spec=spec_of(variant),
        )
        for variant, latencies in by_variant.items()
        for x, ms in latencies.items()
    ]
    return _frame(pd.DataFrame(rows))


def scan_records(gru_loop, mingru):
    """fwd+bwd latencies of the sequential GRU and minGRU on a CPU: length -> ms each."""
    return _latencies(
        {"gru+loop": gru_loop, "mingru": mingru},
        "cpu",
        lambda v: {
            "family": "recurrent_layer" if v == "gru+loop" else "mixer_layer",
            "cell": "gru",
            "mixer": "mingru",
            "recurrence": "loop",
        },
    )


def chunked_records(loop, chunked, device="cuda:0"):
    """fwd+bwd latencies of Gated DeltaNet token by token and chunked: length -> ms each."""
    return _latencies(
        {"gated_deltanet+loop": loop, "gated_deltanet": chunked},
        device,
        lambda v: {
            "family": "mixer_layer",
            "mixer": "gated_deltanet",
            "recurrence": "loop" if "loop" in v else "parallel",
        },
    )


def share_records(shares: dict[int, float], d: int = 256, relative_sd: float = 0.01, contaminated: bool = False):
    """attention_share records of a block of width ``d``: length -> attention's share of its forward time."""
    from suites.sequence_cost.attention_share import analytic_share

    return pd.DataFrame(
        [
            {"variant": "transformer", "metric": "attention_share", "status": "ok", "x": float(n), "value": s,
             "extra": {"n_over_d": n / d, "flops_share": analytic_share(n, d), "analytic_share": analytic_share(n, d),
                       "relative_sd": relative_sd, "contaminated": contaminated}}
            for n, s in shares.items()
        ]
    )  # fmt: skip
