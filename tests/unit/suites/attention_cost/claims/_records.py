"""Made-up attention_cost records for its claims' tests: SDPA's share of the matmul peak, memory slopes, and the
masking probe's records of real CPU kernels."""

import pandas as pd

from suites.attention_cost.claims._shared import Evidence
from suites.attention_cost.masking import masking_measurements
from variants.kernel import kernels

EMPTY = pd.DataFrame(columns=["metric", "status", "pass", "variant", "causal", "x", "value", "seed"])


def evidence(df=EMPTY, lengths=(), reference=None, slopes=None) -> Evidence:
    return Evidence(df, list(lengths), dict(reference or {}), dict(slopes or {}))


def shares(points, noise=0.03, kept=6):
    """SDPA forward FLOP/s shares of the matmul peak: (length, causal, share) per seed 0 and 1, each with its latency's
    timing noise (IQR / median) over ``kept`` repeats and the job's matmul peak with a quiet best size."""
    rows = []
    for seed in (0, 1):
        rows.append(
            {
                "metric": "matmul_peak",
                "status": "ok",
                "variant": "sdpa",
                "kernel": "sdpa",
                "seed": seed,
                "extra": {"sizes": {"1024": {"flops_per_s": 1e11, "noise": 0.01, "kept": kept}}},
            }
        )
        for x, causal, share in points:
            where = {
                "status": "ok",
                "pass": "fwd",
                "variant": "sdpa",
                "kernel": "sdpa",
                "grouping": "MHA",
                "x": x,
                "causal": causal,
                "seed": seed,
            }
            rows.append({**where, "metric": "peak_fraction", "value": share + seed, "extra": {}})
            rows.append({**where, "metric": "latency", "value": 300.0, "extra": {"noise": noise, "kept": kept}})
    return pd.DataFrame(
        rows,
        columns=["metric", "status", "pass", "variant", "kernel", "grouping", "x", "causal", "value", "seed", "extra"],
    )


def memory(slopes) -> Evidence:
    """The evidence of forward slopes {(variant, causal): slope}, each against naive of its heads."""
    found = {(v, c, "fwd"): {"peak_memory": s} for (v, c), s in slopes.items()}
    return evidence(slopes=found, reference={v: "naive" for v, _ in slopes})


def probe_records(*names: str) -> pd.DataFrame:
    """The masking probe's records of the CPU kernels ``names`` (4 heads, 2 K/V heads of 16)."""
    rows = []
    for name in names:
        for m in masking_measurements(kernels.get(name), 4, 2, 16, "cpu", 0):
            rows.append({"variant": name, "metric": m.metric, "value": m.value, "status": m.status,
                         "reason": m.reason, "extra": m.extra})  # fmt: skip
    return pd.DataFrame(rows)
