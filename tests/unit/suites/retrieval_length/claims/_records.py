"""Made-up retrieval_length records for its claims' tests."""

import pandas as pd

from suites.retrieval_length.passkey import distance

SETTINGS = {
    "train_len": 64,
    "finetune_len": 128,
    "finetune_steps": 120,
    "short_finetune_steps": 48,
    "needle_depths": [0.0, 0.5, 1.0],
    "eval_draws": 32,
}
SPEC = {"n_layers": 4, "window": None}


def rec(variant, metric, x, seed, value, spec=SPEC, extra=None, settings=SETTINGS):
    return {
        "variant": variant,
        "metric": metric,
        "x": float(x),
        "seed": seed,
        "value": value,
        "status": "ok",
        "spec": spec,
        "extra": extra or {},
        "profile_settings": settings,
    }


def frame(values, **settings):
    """values: (variant, metric, x) -> per-seed list; ``settings``: profile settings that differ from SETTINGS
    (finetune_task="mixed", say)."""
    where = {**SETTINGS, **settings}
    return pd.DataFrame(
        [rec(v, m, x, s, val, settings=where) for (v, m, x), vals in values.items() for s, val in enumerate(vals)]
    )


def window_frame(beyond, within, relay=0.0, variant="rope+window32"):
    """One window model (4 layers, W 32: span 124, one window 31 back) at L = 64 and 256, depths 0, 0.5, 1."""
    spec = {"n_layers": 4, "window": 32}
    rows = []
    for length in (64, 256):
        dists = [distance(length, d) for d in SETTINGS["needle_depths"]]
        accs = [beyond if dist > 124 else (within if dist <= 31 else relay) for dist in dists]
        extra = {"depths": SETTINGS["needle_depths"], "by_depth": accs, "distances": dists}
        rows.append(rec(variant, "accuracy", length, 0, sum(accs) / 3, spec, extra))
    return pd.DataFrame(rows)
