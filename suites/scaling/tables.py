"""The ladder's records as the fits and verdicts read them: points per variant (one per run: its final loss), final
losses per rung and seed, the compute of each rung, and whether each rung's learning-rate sweep brackets its best
rate."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

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


def _final(extra) -> bool:
    return float((extra or {}).get("fraction", 1.0)) == 1.0


def points(df: pd.DataFrame) -> dict[str, Points]:
    """variant -> {(rung, seed): [(training FLOPs, held-out loss)]}: one point per run, its loss at the end of
    training (the losses kept earlier in a run are not points of the law: suites/scaling/fit.py)."""
    rows = _ok(df, "loss")
    out: dict[str, Points] = defaultdict(dict)
    for r in rows.itertuples():
        if _final(r.extra):
            out[r.base][(int(r.rung), int(r.seed))] = [(float(r.x), float(r.value))]
    return dict(out)


def final_losses(df: pd.DataFrame) -> dict[tuple[str, int], dict[int, float]]:
    """(variant, rung) -> {seed: held-out loss at the end of training}."""
    rows = _ok(df, "loss")
    out: dict[tuple[str, int], dict[int, float]] = defaultdict(dict)
    for r in rows.itertuples():
        if _final(r.extra):
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
    rows = rows[rows.extra.map(_final)]
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
    how many seeds kept it, and whether the sweep brackets the rung's best rate ('no' where a seed kept an end)."""
    rows = _ok(df, "validation_loss")
    if not len(rows):
        return pd.DataFrame()
    open_ = unbracketed(df)
    out = []
    for (base, rung), g in rows.groupby(["base", "rung"]):
        row = {"variant": base, "rung": int(rung)}
        for lr, at in g.groupby("x"):
            kept = int(at.extra.map(lambda e: bool(e.get("chosen"))).sum())
            row[f"lr {float(lr):g}"] = f"{at.value.mean():.4f}" + (f" (kept {kept}/{len(at)})" if kept else "")
        why = open_.get((base, int(rung)))
        row["bracketed"] = f"no: {why}" if why else "yes"
        out.append(row)
    return pd.DataFrame(out).fillna("-")


@dataclass(frozen=True)
class Edge:
    """A run whose kept learning rate is an end of the rates it swept: its rung's optimum is not bracketed."""

    variant: str
    rung: int
    seed: int
    lr: float
    #: "top" or "bottom": which end of the sweep
    side: str


def edges(df: pd.DataFrame) -> list[Edge]:
    """Every run (variant, rung, seed) whose kept rate is the highest or the lowest rate its sweep trained (a rate that
    diverged counts as trained: it brackets from above), in order; none for a sweep of one rate."""
    rows = df[df.metric == "validation_loss"]
    if not len(rows):
        return []
    split = rows.variant.map(split_rung)
    rows = rows.assign(base=split.map(lambda s: s[0]), rung=split.map(lambda s: s[1] or 0))
    out = []
    for (base, rung, seed), g in rows.groupby(["base", "rung", "seed"]):
        rates = sorted(float(x) for x in g.x)
        chosen = [float(r.x) for r in g.itertuples() if r.status == "ok" and bool((r.extra or {}).get("chosen"))]
        if len(rates) < 2 or not chosen:
            continue
        if chosen[0] in (rates[0], rates[-1]):
            out.append(Edge(base, int(rung), int(seed), chosen[0], "top" if chosen[0] == rates[-1] else "bottom"))
    return out


def unbracketed(df: pd.DataFrame) -> dict[tuple[str, int], str]:
    """(variant, rung) -> why its sweep does not bracket the best rate ('kept 0.03, the sweep's top, in 3 of 3
    seeds'), for every variant-rung where some seed's kept rate is an end of its sweep."""
    seeds = df[df.metric == "validation_loss"].groupby("variant").seed.nunique()
    found: dict[tuple[str, int], list[Edge]] = defaultdict(list)
    for e in edges(df):
        found[(e.variant, e.rung)].append(e)
    out = {}
    for (v, r), es in sorted(found.items()):
        n = int(seeds.get(f"{v}+rung{r}", len(es)))
        sides = sorted({(e.lr, e.side) for e in es})
        out[(v, r)] = (
            "kept "
            + " and ".join(f"{lr:g}, the sweep's {side}," for lr, side in sides)
            + (f" in {len(es)} of {n} seed{'s' if n != 1 else ''}")
        )
    return out


def sweep_flags(df: pd.DataFrame) -> list[str]:
    """Sentences on the learning-rate sweep a reader must know: a ladder at one rate is confounded (the right rate
    moves with size), and a variant-rung whose kept rate is an end of its sweep is not bracketed (a rate beyond it
    may be better there), with the command that would bracket it and its cost."""
    rates = list(settings(df).get("learning_rates") or [])
    if len(rates) < 2:
        return [
            f"Confounded: every rung trained at one learning rate ({', '.join(f'{r:g}' for r in rates) or '?'}), and "
            "the best rate moves with model size, so its laws and multipliers mix size with how well the rate suits "
            "it; give set.learning_rates at least two rates."
        ]
    open_ = unbracketed(df)
    if not open_:
        return []
    total = df[df.metric == "validation_loss"].variant.nunique()
    shown = "; ".join(f"{v} rung {r} ({why})" for (v, r), why in open_.items())
    return [
        f"Not bracketed: the kept learning rate is an end of the sweep ({', '.join(f'{r:g}' for r in rates)}) for "
        f"{len(open_)} of {total} variant-rungs: {shown}. A rate beyond it may be better there, so those rungs' "
        f"losses may be above their best. {bracket_command(df)}"
    ]


def bracket_command(df: pd.DataFrame) -> str:
    """The run that would bracket every rung's rate, with its cost estimated from these records' wall times."""
    first = df.iloc[0]
    profile = first.get("profile", "standard")
    extend = int(settings(df).get("extend_edges", 0)) + 1
    jobs = df.drop_duplicates("job_hash") if "job_hash" in df else df.iloc[0:0]
    walls = jobs.wall_time_s.astype(float) if "wall_time_s" in jobs else pd.Series(dtype=float)
    n_rates = max(1, len(settings(df).get("learning_rates") or [1]))
    at_edge = {(f"{e.variant}+rung{e.rung}", e.seed) for e in edges(df)}
    extra = sum(
        float(w) / n_rates for w, v, s in zip(walls, jobs.variant, jobs.seed) if (v, int(s)) in at_edge
    )  # one more rate per run at an edge, at its sweep's mean cost per rate
    hours = (float(walls.sum()) + extra) / 3600.0
    cost = (
        f" Every job of the ladder runs again (the setting is part of each job's identity and of the report's group of "
        f"records): about {hours:.1f} CPU-hours at one worker, from these records' wall times."
        if hours > 0
        else ""
    )
    return (
        f"To bracket them: `bench run suite=scaling profile={profile} set.extend_edges={extend}` (each run tries "
        f"up to {extend} rate{'s' if extend != 1 else ''} past the end its kept rate sits at, one sweep step at a "
        f"time).{cost}"
    )
