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


def made_up_records(variant: str, spec, shares, seed: int = 0, noise: float = 0.02):
    """One job's records: each (pass, length) at the given share of a 100 GFLOP/s peak, its latency's 9 repeats
    spread by ``noise`` (their log sd)."""
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
            times = repeats_around(latency, noise)
            steps = n * (2 if pass_ == "fwd+bwd" else 1) if recurrent else (2 if pass_ == "fwd+bwd" else 1)
            for metric, value, extra in (
                (
                    "latency",
                    latency,
                    {
                        "noise": 0.02,
                        "times": times,
                        "kept_mask": [True] * len(times),
                        "kept": len(times),
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


def jobs(recurrent_share: float, attention_share: float, device: str = "cuda", noise: float = 0.02) -> pd.DataFrame:
    """A fused LSTM, its step loop (a third of its share) and a Transformer block, one seed each."""
    lstm, loop = RecurrentLayerSpec(d_model=D), RecurrentLayerSpec(d_model=D, recurrence="loop")
    rows = made_up_records("lstm", lstm, {"fwd": recurrent_share, "fwd+bwd": recurrent_share}, noise=noise)
    third = recurrent_share / 3
    rows += made_up_records("lstm+loop", loop, {"fwd": third, "fwd+bwd": third}, noise=noise)
    rows += made_up_records(
        "transformer", block(128), {"fwd": attention_share, "fwd+bwd": attention_share}, noise=noise
    )
    return pd.DataFrame(rows).assign(device=device)


def judged(claim, frame, gpu_results=None):
    """The claim's finding on ``frame`` as the suite judges a group of records (claims/_shared.py ``prepare``);
    ``gpu_results``: where the reference GPU records are read from (None: reference/gpu/results)."""
    return claim.judge(Evidence(prepare(frame).df, gpu_results))


def as_is(frame) -> Evidence:
    """The evidence of made-up records that need no framing (no spec to read a layer's kind from)."""
    return Evidence(frame)


def repeats_around(ms: float, relative_sd: float, n: int = 9) -> list[float]:
    """``n`` timing repeats whose median is ``ms`` and whose log sd is about ``relative_sd`` (evenly spread)."""
    import numpy as np

    z = np.linspace(-1.5, 1.5, n)
    z = z / z.std(ddof=1)
    return [float(ms * np.exp(relative_sd * v)) for v in z]


def _latencies(by_variant: dict[str, dict], device: str, spec_of, relative_sd: float = 0.01) -> pd.DataFrame:
    """fwd+bwd latency records, framed: variant -> {length: ms}, each with 9 repeats of ``relative_sd`` around it;
    ``spec_of(variant)`` its spec."""
    rows = [
        dict(
            metric="latency",
            status="ok",
            variant=variant,
            x=float(x),
            value=ms,
            seed=0,
            device=device,
            device_name=f"test {device}",
            extra={"pass": "fwd+bwd", "times": repeats_around(ms, relative_sd), "kept_mask": [True] * 9, "kept": 9},
            spec=spec_of(variant),
        )
        for variant, latencies in by_variant.items()
        for x, ms in latencies.items()
    ]
    return _frame(pd.DataFrame(rows))


def scan_records(gru_loop, mingru, device="cuda:0", relative_sd=0.01):
    """fwd+bwd latencies of the sequential GRU and minGRU: length -> ms each."""
    return _latencies(
        {"gru+loop": gru_loop, "mingru": mingru},
        device,
        lambda v: {
            "family": "recurrent_layer" if v == "gru+loop" else "mixer_layer",
            "cell": "gru",
            "mixer": "mingru",
            "recurrence": "loop",
        },
        relative_sd,
    )


def chunked_records(loop, chunked, device="cuda:0", relative_sd=0.01):
    """fwd+bwd latencies of Gated DeltaNet token by token and chunked: length -> ms each."""
    return _latencies(
        {"gated_deltanet+loop": loop, "gated_deltanet": chunked},
        device,
        lambda v: {
            "family": "mixer_layer",
            "mixer": "gated_deltanet",
            "recurrence": "loop" if "loop" in v else "parallel",
        },
        relative_sd,
    )


def share_records(
    shares: dict[int, float], d: int = 256, relative_sd: float = 0.01, contaminated: bool = False, repeats: int = 10
):
    """attention_share records of a block of width ``d``: length -> attention's share of its forward time, each of
    its two timings with ``relative_sd`` / sqrt 2 over ``repeats`` kept repeats (``repeats=None``: records from
    before each timing's spread was kept, only ``relative_sd``, read with the profile's min_repeats of 5)."""
    from suites.sequence_cost.attention_share import analytic_share

    each = relative_sd / 2**0.5
    kept = {"core_sd": each, "block_sd": each, "core_repeats": repeats, "block_repeats": repeats} if repeats else {}
    return pd.DataFrame(
        [
            {"variant": "transformer", "metric": "attention_share", "status": "ok", "x": float(n), "value": s,
             "profile_settings": {"min_repeats": 5},
             "extra": {"n_over_d": n / d, "flops_share": analytic_share(n, d), "analytic_share": analytic_share(n, d),
                       "relative_sd": relative_sd, "contaminated": contaminated, **kept}}
            for n, s in shares.items()
        ]
    )  # fmt: skip
