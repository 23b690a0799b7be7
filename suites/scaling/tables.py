"""The ladder's records as the fits and verdicts read them: points per variant, final losses per rung and seed, the
compute of each rung, and the flags on the learning-rate sweep."""

from __future__ import annotations

from collections import defaultdict

import pandas as pd

from suites.scaling.fit import Points
from suites.scaling.ladder import BASELINE, split_rung

#: the ladder's variants in report order, the baseline first
ORDER = (BASELINE, "mla", "gqa2", "mqa")


def _ok(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    rows = df[(df.metric == metric) & (df.status == "ok")].copy()
    if not len(rows):
        return rows.assign(base=[], rung=[])
    split = rows.variant.map(split_rung)
    return rows.assign(base=split.map(lambda s: s[0]), rung=split.map(lambda s: s[1] or 0))


def settings(df: pd.DataFrame) -> dict:
    return dict(df.iloc[0].profile_settings)


def bases(df: pd.DataFrame) -> list[str]:
    """The variants of the ladder (without their rung parts), the baseline first."""
    found = {split_rung(v)[0] for v in df.variant.unique()}
    return sorted(found, key=lambda v: (ORDER.index(v) if v in ORDER else len(ORDER), v))


def points(df: pd.DataFrame) -> dict[str, Points]:
    """variant -> {(rung, seed): [(training FLOPs, held-out loss), ...]}: the kept losses at or after ``fit_from``."""
    fit_from = float(settings(df).get("fit_from", 1.0))
    rows = _ok(df, "loss")
    out: dict[str, Points] = defaultdict(dict)
    for r in rows.itertuples():
        if float(r.extra.get("fraction", 1.0)) + 1e-9 >= fit_from:
            out[r.base].setdefault((int(r.rung), int(r.seed)), []).append((float(r.x), float(r.value)))
    return dict(out)


def final_losses(df: pd.DataFrame) -> dict[tuple[str, int], dict[int, float]]:
    """(variant, rung) -> {seed: held-out loss at the end of training}."""
    rows = _ok(df, "loss")
    out: dict[tuple[str, int], dict[int, float]] = defaultdict(dict)
    for r in rows.itertuples():
        if float(r.extra.get("fraction", 1.0)) == 1.0:
            out[(r.base, int(r.rung))][int(r.seed)] = float(r.value)
    return dict(out)


def rung_compute(df: pd.DataFrame) -> dict[tuple[str, int], float]:
    """(variant, rung) -> mean training FLOPs of its runs."""
    rows = _ok(df, "train_flops")
    return {(b, int(r)): float(g.value.mean()) for (b, r), g in rows.groupby(["base", "rung"])}


def rung_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (variant, rung): width, non-embedding parameters, tokens, FLOPs, the kept learning rates and the final
    loss of each seed."""
    rows = _ok(df, "loss")
    rows = rows[rows.extra.map(lambda e: float(e.get("fraction", 1.0)) == 1.0)]
    out = []
    for (base, rung), g in rows.groupby(["base", "rung"]):
        first = g.iloc[0]
        out.append(
            {
                "variant": base,
                "rung": int(rung),
                "d_model": int(first.spec["d_model"]),
                "parameters (non-embedding)": int(first.get("non_embedding_parameters") or 0),
                "tokens": int(first.get("tokens") or 0),
                "training FLOPs": float(g.x.mean()),
                "lr kept (per seed)": ", ".join(f"{float(x):g}" for x in g.sort_values("seed").lr),
                "loss per seed": g.sort_values("seed").value.tolist(),
            }
        )
    return pd.DataFrame(out)


def sweep_table(df: pd.DataFrame) -> pd.DataFrame:
    """Validation loss per (variant, rung) and learning rate of the sweep, mean over seeds, the kept rate marked with
    how many seeds kept it: the check that the sweep brackets each rung's best rate."""
    rows = _ok(df, "validation_loss")
    if not len(rows):
        return pd.DataFrame()
    out = []
    for (base, rung), g in rows.groupby(["base", "rung"]):
        row = {"variant": base, "rung": int(rung)}
        for lr, at in g.groupby("x"):
            kept = int(at.extra.map(lambda e: bool(e.get("chosen"))).sum())
            row[f"lr {float(lr):g}"] = f"{at.value.mean():.4f}" + (f" (kept {kept}/{len(at)})" if kept else "")
        out.append(row)
    return pd.DataFrame(out)


def sweep_flags(df: pd.DataFrame) -> list[str]:
    """Sentences on the learning-rate sweep a reader must know: a ladder at one rate is confounded (the right rate
    moves with size), and a kept rate at the edge of the sweep may not be the best one."""
    rates = list(settings(df).get("learning_rates") or [])
    if len(rates) < 2:
        return [
            f"Confounded: every rung trained at one learning rate ({', '.join(f'{r:g}' for r in rates) or '?'}), and "
            "the best rate moves with model size, so its laws and multipliers mix size with how well the rate suits "
            "it; give set.learning_rates at least two rates."
        ]
    rows = _ok(df, "validation_loss")
    chosen = rows[rows.extra.map(lambda e: bool(e.get("chosen")))]
    edge = chosen[chosen.x.isin([min(rates), max(rates)])]
    if not len(edge):
        return []
    where = sorted({(r.base, int(r.rung), float(r.x)) for r in edge.itertuples()})
    shown = "; ".join(f"{b} rung {k} at {x:g}" for b, k, x in where)
    return [
        f"The kept learning rate is at the edge of the sweep ({', '.join(f'{r:g}' for r in rates)}) for {len(where)} "
        f"of {chosen.groupby(['base', 'rung']).ngroups} variant-rungs ({shown}): a rate beyond it may be better there."
    ]
