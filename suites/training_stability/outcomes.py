"""What each training run of the grid ended at, per seed, and what dropping the warm-up cost it.

Every run is an outcome, none is missing data: a run that diverged enters at the unigram loss (the loss of
predicting character frequencies, which a collapsed model sits at), and a run is *collapsed* when it diverged or
ended within ``COLLAPSE_WITHIN`` nats/char of the unigram loss. The *cost* of dropping the warm-up in one
(depth, peak lr) cell is, per seed, the held-out loss without warm-up minus the loss with the profile's longest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from harness.paired import Difference, paired

#: a run within this much of the unigram loss (nats/char) learned no more than character frequencies: collapsed.
#: Collapsed runs sit 0.00-0.03 from it here; the bigram entropy, what any run that learned beats, is ~0.7 below
COLLAPSE_WITHIN = 0.05

#: (variant, depth, peak lr, warm-up) of one training run
Run = tuple[str, int, float, int]


def outcomes(runs: pd.DataFrame, unigram: float) -> dict[Run, dict[int, float]]:
    """Per run, seed -> the held-out loss it ended at (a diverged run: ``unigram``).

    ``runs`` are heldout_loss records with ``depth`` and ``warmup`` columns (tables._expand)."""
    out: dict[Run, dict[int, float]] = {}
    for r in runs.itertuples():
        key = (r.variant, int(r.depth), float(r.x), int(r.warmup))
        ok = r.status == "ok" and r.value is not None and math.isfinite(float(r.value))
        if ok or r.status == "diverged":
            out.setdefault(key, {})[int(r.seed)] = float(r.value) if ok else unigram
    return out


def collapsed(loss: float, unigram: float) -> bool:
    """Whether a run's outcome is a collapse (diverged runs enter at ``unigram``, so they are too)."""
    return loss >= unigram - COLLAPSE_WITHIN


@dataclass
class Cell:
    """One (depth, peak lr) cell: each variant's per-seed cost of dropping the warm-up, and their paired difference."""

    depth: int
    lr: float
    warmup: int
    #: variant -> seed -> loss without warm-up minus loss with it (nats/char)
    cost: dict[str, dict[int, float]] = field(default_factory=dict)
    #: variant -> seeds whose warmed-up run collapsed
    warm_collapsed: dict[str, list[int]] = field(default_factory=dict)
    #: variant -> seeds (with warm-up) that ran
    warm_seeds: dict[str, list[int]] = field(default_factory=dict)

    def fails_even_warmed(self, variant: str) -> bool:
        """The warmed-up run collapsed in every seed: this cell cannot say whether warm-up helps ``variant``."""
        seeds = self.warm_seeds.get(variant, [])
        return bool(seeds) and len(self.warm_collapsed.get(variant, [])) == len(seeds)

    def difference(self, a: str, b: str) -> Difference:
        """a's cost minus b's, paired by seed."""
        return paired(
            f"depth {self.depth}, lr {self.lr:g}: {a} cost - {b} cost",
            self.cost.get(a, {}),
            self.cost.get(b, {}),
            "nats/char",
        )

    def label(self) -> str:
        return f"depth {self.depth}, lr {self.lr:g}"


def cells(out: dict[Run, dict[int, float]], unigram: float) -> list[Cell]:
    """The (depth, lr) cells that have runs without warm-up and with the longest warm-up, in grid order."""
    warmups = sorted({w for (_, _, _, w) in out})
    if 0 not in warmups or len(warmups) < 2:
        return []
    w = warmups[-1]
    found = []
    for depth, lr in sorted({(d, lr) for (_, d, lr, _) in out}):
        cell = Cell(depth, lr, w)
        for v in sorted({v for (v, d, x, _) in out if (d, x) == (depth, lr)}):
            bare, warm = out.get((v, depth, lr, 0), {}), out.get((v, depth, lr, w), {})
            if not bare or not warm:
                continue
            cell.cost[v] = {s: bare[s] - warm[s] for s in bare if s in warm}
            cell.warm_seeds[v] = sorted(warm)
            cell.warm_collapsed[v] = sorted(s for s, loss in warm.items() if collapsed(loss, unigram))
        if cell.cost:
            found.append(cell)
    return found


def collapse_counts(out: dict[Run, dict[int, float]], variant: str, unigram: float) -> dict[int, float]:
    """Per seed, how many of a variant's runs collapsed."""
    counts: dict[int, float] = {}
    for (v, _, _, _), by_seed in out.items():
        if v != variant:
            continue
        for seed, loss in by_seed.items():
            counts[seed] = counts.get(seed, 0) + int(collapsed(loss, unigram))
    return counts


def runs_per_seed(out: dict[Run, dict[int, float]], variant: str) -> int:
    """How many runs of a variant each seed has (the most any seed has)."""
    counts: dict[int, int] = {}
    for (v, _, _, _), by_seed in out.items():
        if v == variant:
            for seed in by_seed:
                counts[seed] = counts.get(seed, 0) + 1
    return max(counts.values(), default=0)


def pooled(tested: list[Cell], a: str, b: str) -> Difference:
    """a's cost against b's, per seed the mean over ``tested`` cells (seeds every cell has), paired by seed."""
    seeds = None
    for c in tested:
        have = set(c.cost.get(a, {})) & set(c.cost.get(b, {}))
        seeds = have if seeds is None else seeds & have
    seeds = sorted(seeds or ())
    mean = lambda v: {s: sum(c.cost[v][s] for c in tested) / len(tested) for s in seeds}  # noqa: E731
    return paired(
        f"{a} cost - {b} cost, mean over {len(tested)} cells",
        mean(a) if tested else {},
        mean(b) if tested else {},
        "nats/char",
    )
