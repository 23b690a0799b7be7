"""Made-up attention_scaling records for its claims' tests."""

import pandas as pd

from suites.attention_scaling.claims._shared import Evidence


def probe(values):
    """Probe records: (variant, metric) -> {d_k: value}, seeds 0 and 1."""
    return pd.DataFrame(
        [
            {"variant": v, "metric": m, "x": float(d), "value": val, "seed": seed, "status": "ok"}
            for (v, m), by_d in values.items()
            for d, val in by_d.items()
            for seed in (0, 1)
        ],
        columns=["variant", "metric", "x", "value", "seed", "status"],
    )


def evidence(ok, variants=(), d_ks=(), checks=None) -> Evidence:
    return Evidence(ok, list(variants), list(d_ks), dict(checks or {}))
