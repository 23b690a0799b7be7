"""Made-up gradient_flow records for its claims' tests."""

import pandas as pd

from suites.gradient_flow.claims._shared import Evidence

SETTINGS = {"lags": [5, 10, 20, 50, 100], "learned_accuracy": 0.9, "alphabet": 8, "steps": 800}


def evidence(**parts) -> Evidence:
    """The claims' evidence with only the parts a test gives (flow, sweep, longest, sweep_max, diverged, ...)."""
    return Evidence(**parts)


def lags(longest, sweep_max=100) -> Evidence:
    """The evidence of the lag claims: variant -> seed -> the longest lag learned, and the sweep's longest lag."""
    return Evidence(longest=longest, sweep_max=sweep_max)


def lag_records(acc_by_variant_seed):
    """copy_accuracy records: {(variant, seed): [accuracy per lag of SETTINGS, None = diverged]}."""
    rows = []
    for (variant, seed), accs in acc_by_variant_seed.items():
        for lag, acc in zip(SETTINGS["lags"], accs):
            rows.append(
                {
                    "metric": "copy_accuracy",
                    "variant": variant,
                    "seed": seed,
                    "x": float(lag),
                    "value": acc,
                    "status": "ok" if acc is not None else "diverged",
                }
            )
    return pd.DataFrame(rows)
