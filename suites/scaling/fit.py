"""A scaling law per variant, L(C) = E + A C^-alpha, fitted with a Huber loss on log residuals, bootstrapped over
seeds, and the compute multiplier of one law against another.

The fit follows the Chinchilla replication (Besiroglu et al. 2024, arXiv 2404.10102, after Hoffmann et al. 2022
section D.2): minimise the sum of Huber_delta(log L_hat(C_i) - log L_i), delta = 1e-3, with log L_hat =
logsumexp(a - alpha log C, e) (E = exp(e), A = exp(a)), by L-BFGS from a grid of starting points, keeping the best.
C is divided by the smallest compute first, so that the starting points suit any unit; A is given back in C's own
units. A law has three parameters and is fitted from no fewer than five points (parameters plus two).

The interval of a law's parameters, and of a multiplier, is the bootstrap over seeds: each draw takes, at every
rung, as many seeds as the rung has, drawn with replacement, with all of a drawn seed's points at that rung, and
refits; the 95% interval is the draws' 2.5th to 97.5th percentiles. With one seed per rung there is no interval.

The multiplier of a variant against the baseline at compute C: the compute the baseline's law needs to reach the
variant's loss at C, over C, C_b / C with L_b(C_b) = L_v(C). Above 1 the variant is worth more compute than it
spends ("worth 2x compute"); below 1, less. Where the variant's loss is below the baseline's floor E_b the baseline
never reaches it (no multiplier: infinite).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import huber

#: the Huber loss's delta on log residuals (Hoffmann et al. 2022; Besiroglu et al. 2024)
HUBER_DELTA = 1e-3
#: a law's free parameters (E, A, alpha), and the fewest points a fit is reported from: parameters plus two
PARAMETERS = 3
MIN_POINTS = PARAMETERS + 2
#: bootstrap draws of an interval
DRAWS = 200
#: the starting points of the search: the floor as a share of the lowest loss, and the exponent
_FLOOR_SHARES = (0.0, 0.5, 0.9)
_EXPONENTS = (0.05, 0.2, 0.5, 1.0)


@dataclass(frozen=True)
class Law:
    """L(C) = E + A C^-alpha, C in the unit of the points it was fitted to."""

    E: float
    A: float
    alpha: float
    #: log residuals (log L_i - log L_hat(C_i)) of the points it was fitted to
    residuals: tuple[float, ...] = ()

    def loss(self, compute: float) -> float:
        return self.E + self.A * compute ** (-self.alpha)

    def compute_for(self, loss: float) -> float:
        """The compute at which the law reaches ``loss``; inf at or below its floor E."""
        if loss <= self.E:
            return math.inf
        return (self.A / (loss - self.E)) ** (1.0 / self.alpha)

    @property
    def rms_residual(self) -> float:
        r = np.asarray(self.residuals)
        return float(np.sqrt(np.mean(r**2))) if len(r) else math.nan


def fit_law(compute: Sequence[float], loss: Sequence[float], start: Law | None = None) -> Law | None:
    """The law fitted to the points (C_i, L_i); None from fewer than MIN_POINTS points or fewer than three distinct C.
    ``start``: search from that law alone (a bootstrap draw starts from the fit to all points) instead of the grid."""
    C, L = np.asarray(compute, dtype=float), np.asarray(loss, dtype=float)
    keep = np.isfinite(C) & np.isfinite(L) & (C > 0) & (L > 0)
    C, L = C[keep], L[keep]
    if len(C) < MIN_POINTS or len(np.unique(C)) < PARAMETERS:
        return None
    scale = C.min()
    logc, logl = np.log(C / scale), np.log(L)

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        """The Huber loss of the log residuals over delta (the same minimum, with gradients of order 1 that L-BFGS
        does not mistake for converged) and its gradient in (e, a, alpha)."""
        e, a, alpha = theta
        power = a - alpha * logc  # log(A C^-alpha)
        predicted = np.logaddexp(power, e)  # log(E + A C^-alpha)
        r = predicted - logl
        slope = np.clip(r, -HUBER_DELTA, HUBER_DELTA) / HUBER_DELTA  # Huber'(r) / delta
        w_power, w_floor = np.exp(power - predicted), np.exp(e - predicted)  # d predicted / d a, d predicted / d e
        grad = np.array([(slope * w_floor).sum(), (slope * w_power).sum(), -(slope * w_power * logc).sum()])
        return float(huber(HUBER_DELTA, r).sum() / HUBER_DELTA), grad

    top, low = float(L.max()), float(L.min())
    if start is not None:
        starts = [(math.log(max(start.E, 1e-6)), math.log(start.A / scale**start.alpha), start.alpha)]
    else:
        starts = [
            (math.log(max(share * low, 1e-6)), math.log(max(top - share * low, 1e-6)), alpha)
            for share in _FLOOR_SHARES
            for alpha in _EXPONENTS
        ]
    best = None
    for theta in starts:
        res = minimize(
            objective, np.array(theta), jac=True, method="L-BFGS-B", bounds=[(-20, 10), (-20, 20), (0.0, 5.0)]
        )
        if best is None or res.fun < best.fun:
            best = res
    e, a, alpha = best.x
    E, A_scaled = math.exp(e), math.exp(a)
    law = Law(E, A_scaled * scale**alpha, float(alpha))
    residuals = tuple(float(x) for x in logl - np.log([law.loss(c) for c in C]))
    return Law(law.E, law.A, law.alpha, residuals)


def multiplier(variant: Law, baseline: Law, compute: float) -> float:
    """C_b / C: the baseline's compute to reach the variant's loss at ``compute``, per unit of it (inf where the
    variant's loss is below the baseline's floor)."""
    return baseline.compute_for(variant.loss(compute)) / compute


#: points of one ladder: (rung, seed) -> [(compute, loss), ...]
Points = dict[tuple[int, int], list[tuple[float, float]]]


def flatten(points: Points) -> tuple[list[float], list[float]]:
    pairs = [p for key in sorted(points) for p in points[key]]
    return [c for c, _ in pairs], [loss for _, loss in pairs]


def seeds_per_rung(points: Points) -> int:
    """The fewest seeds any rung has."""
    rungs: dict[int, set[int]] = {}
    for rung, seed in points:
        rungs.setdefault(rung, set()).add(seed)
    return min((len(s) for s in rungs.values()), default=0)


def bootstrap_laws(points: Points, draws: int = DRAWS, seed: int = 0) -> list[Law]:
    """The laws refitted to ``draws`` resamples of the seeds within each rung (none with one seed per rung), each
    searched from the fit to all points; a draw whose fit fails is left out."""
    whole = fit_law(*flatten(points))
    if seeds_per_rung(points) < 2 or whole is None:
        return []
    rng = np.random.default_rng(seed)
    by_rung: dict[int, list[int]] = {}
    for rung, s in sorted(points):
        by_rung.setdefault(rung, []).append(s)
    laws = []
    for _ in range(draws):
        sample: list[tuple[float, float]] = []
        for rung, seeds in by_rung.items():
            for s in rng.choice(seeds, size=len(seeds), replace=True):
                sample += points[(rung, int(s))]
        law = fit_law([c for c, _ in sample], [loss for _, loss in sample], start=whole)
        if law is not None:
            laws.append(law)
    return laws


def percentile_interval(values: Sequence[float]) -> tuple[float, float] | None:
    """The 2.5th and 97.5th percentiles (inf kept: a multiplier the baseline never reaches); None without values."""
    v = np.asarray([x for x in values if not math.isnan(x)], dtype=float)
    if not len(v):
        return None
    # the inverted CDF picks draws themselves, so an infinite draw stays infinite instead of making the end NaN
    low, high = np.quantile(v, [0.025, 0.975], method="inverted_cdf")
    return float(low), float(high)
