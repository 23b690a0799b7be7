"""The law L(C) = E + A C^-alpha fitted to a ladder's final losses, the profile-likelihood interval of its floor E and
exponent alpha, and the gate a ladder passes before any law is fitted.

One point per run: each run's held-out loss at the end of training against its training FLOPs. A run's losses
earlier in its schedule are not points of the law: they are correlated with its final loss and lie on a schedule
that has not yet decayed (a cosine run at half its steps is not the compute-optimal model of half the compute), so
three of them per run would count one run three times.

The fit (Hoffmann et al. 2022, arXiv 2203.15556, section 3.3, in the log-residual form): least squares on
log L_i - log(E + A C_i^-alpha), the runs' log losses taken as independent Gaussian draws around the law, so that
the fit is the maximum-likelihood one and its likelihood can be profiled. C is divided by the smallest compute
first (the search suits any unit; A is given back in C's own units); E is searched over [0, the lowest loss], alpha
over [0, ALPHA_MAX], from a grid of starting points, keeping the best.

The interval of E (or alpha) is the profile-likelihood one (Venzon & Moolgavkar 1988; with the noise variance
estimated, the F form for nonlinear least squares of Bates & Watts 1988): the values v at which the least residual sum of squares
with that parameter held at v and the other two refitted, S(v), stays within S_min (1 + F(0.95; 1, n - 3) / (n - 3)).
Where that set reaches the edge of the search (E = 0 or E at the lowest loss; alpha = 0 or ALPHA_MAX) the data do
not bound the parameter: it is "not identified", and no value of it is printed as if they did.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, least_squares
from scipy.stats import f as f_dist

#: a law's free parameters (E, A, alpha)
PARAMETERS = 3
#: this project's choice: no law is fitted from fewer rungs. A rung's seeds share one compute, so only the rungs
#: inform the law's shape; five leave two distinct computes beyond the three parameters, the fewest at which a
#: misfitting form shows in the residuals instead of being absorbed by the parameters.
MIN_RUNGS = 5
#: this project's choice: no law is fitted over fewer decades of compute. Over the reference ladder's 1.8 decades a
#: floor E anywhere from 0.5 to 0.9 nats/char fits within seed noise (issue 57): the curvature that separates E from
#: A C^-alpha is second order in log compute. Simulated at the reference's per-run spread (about 0.7% of the loss),
#: five rungs of three seeds leave E's 95% profile interval about 0.28 nats/char wide (a third of E) over 1.8
#: decades, 0.25 over 2, 0.15 over 2.5 and 0.12 over 3 (25 ladders each, when this gate was set): 2.5 is where the
#: floor is first pinned to within a sixth of its value.
MIN_DECADES = 2.5
#: the largest exponent searched (per unit of log compute): the edge past which alpha is "not identified"
ALPHA_MAX = 3.0
#: the interval's confidence level
LEVEL = 0.95
#: profile grid points per parameter (refined between the last point inside and the first outside)
_GRID = 25
#: the starting points of the full fit: the floor as a share of the lowest loss, and the exponent
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


@dataclass(frozen=True)
class Profiled:
    """One parameter's 95% profile-likelihood interval, or why the data do not bound it."""

    name: str
    value: float
    low: float
    high: float
    #: the search edge the interval runs to ('' when it is bounded on both sides)
    edge: str = ""

    @property
    def identified(self) -> bool:
        return not self.edge

    def show(self, digits: int = 3) -> str:
        """'0.881 [0.85, 0.91]', or 'not identified (the 95% profile interval runs to E = 0)'."""
        if not self.identified:
            return f"not identified (the 95% profile interval runs to {self.edge})"
        return f"{self.value:.{digits}g} [{self.low:.{digits}g}, {self.high:.{digits}g}]"


@dataclass(frozen=True)
class Gate:
    """Whether a ladder spans enough rungs and compute for a law: MIN_RUNGS rungs over MIN_DECADES decades."""

    rungs: int
    decades: float

    @property
    def passes(self) -> bool:
        return self.rungs >= MIN_RUNGS and self.decades >= MIN_DECADES - 1e-9

    def why_not(self) -> str:
        """'' when it passes; else what the ladder has and what a law needs."""
        if self.passes:
            return ""
        return (
            f"{self.rungs} rung{'s' if self.rungs != 1 else ''} spanning {self.decades:.2f} decades of compute; a law "
            f"is fitted from at least {MIN_RUNGS} rungs spanning at least {MIN_DECADES:g} decades (this project's "
            "choice: fewer leave its floor and exponent unidentified)"
        )


def gate(compute_per_rung: Mapping[int, float] | Sequence[float]) -> Gate:
    """The gate of a ladder from each rung's compute (rungs without a finite positive compute do not count)."""
    values = compute_per_rung.values() if isinstance(compute_per_rung, Mapping) else compute_per_rung
    c = [float(x) for x in values if x is not None and math.isfinite(float(x)) and float(x) > 0]
    decades = math.log10(max(c) / min(c)) if c else 0.0
    return Gate(len(c), decades)


class _Problem:
    """The points of one fit in scaled units: log c = log(C / C_min) and log L."""

    def __init__(self, compute: Sequence[float], loss: Sequence[float]):
        C, L = np.asarray(compute, dtype=float), np.asarray(loss, dtype=float)
        keep = np.isfinite(C) & np.isfinite(L) & (C > 0) & (L > 0)
        self.C, self.L = C[keep], L[keep]
        self.scale = float(self.C.min()) if len(self.C) else 1.0
        self.logc, self.logl = np.log(self.C / self.scale), np.log(self.L)
        self.e_max = float(self.L.min()) if len(self.L) else 0.0

    @property
    def n(self) -> int:
        return len(self.C)

    def residuals(self, E: float, a: float, alpha: float) -> np.ndarray:
        return np.logaddexp(a - alpha * self.logc, math.log(E) if E > 0 else -np.inf) - self.logl

    def sse(self, E: float, a: float, alpha: float) -> float:
        r = self.residuals(E, a, alpha)
        return float(r @ r)

    def solve(self, free: str, fixed: float | None, starts: list[tuple[float, float, float]]) -> tuple[float, tuple]:
        """The least sum of squares with the parameter ``free`` ('' for none) held at ``fixed``, from ``starts``
        (each (E, a, alpha)); (S, (E, a, alpha)) of the best."""
        names = ("E", "a", "alpha")
        lower = {"E": 0.0, "a": -60.0, "alpha": 0.0}
        upper = {"E": self.e_max, "a": 60.0, "alpha": ALPHA_MAX}
        varying = [k for k in names if k != free]

        def full(x: np.ndarray) -> tuple[float, float, float]:
            values = dict(zip(varying, x))
            if free:
                values[free] = fixed
            return values["E"], values["a"], values["alpha"]

        def fun(x: np.ndarray) -> np.ndarray:
            return self.residuals(*full(x))

        def jac(x: np.ndarray) -> np.ndarray:
            E, a, alpha = full(x)
            power = np.exp(a - alpha * self.logc)
            total = E + power
            cols = {"E": 1.0 / total, "a": power / total, "alpha": -self.logc * power / total}
            return np.column_stack([np.broadcast_to(cols[k], self.logc.shape) for k in varying])

        best = (math.inf, starts[0])
        for start in starts:
            x0 = np.array([min(max(v, lower[k]), upper[k]) for k, v in zip(names, start) if k != free])
            res = least_squares(
                fun,
                x0,
                jac=jac,
                bounds=([lower[k] for k in varying], [upper[k] for k in varying]),
                method="trf",
                x_scale="jac",
            )
            s = float(res.fun @ res.fun)
            if s < best[0]:
                best = (s, full(res.x))
        return best

    def starts(self) -> list[tuple[float, float, float]]:
        top = float(self.L[np.argmin(self.logc)].max())
        return [
            (share * self.e_max, math.log(max(top - share * self.e_max, 1e-6)), alpha)
            for share in _FLOOR_SHARES
            for alpha in _EXPONENTS
        ]

    def law(self, theta: tuple[float, float, float]) -> Law:
        E, a, alpha = theta
        A = math.exp(a) * self.scale**alpha
        residuals = tuple(float(x) for x in -self.residuals(E, a, alpha))
        return Law(float(E), float(A), float(alpha), residuals)


def fit_law(compute: Sequence[float], loss: Sequence[float]) -> Law | None:
    """The law fitted to the points (C_i, L_i), one per run; None from fewer points than its parameters plus one
    (no residual left to estimate the noise) or fewer than three distinct C."""
    p = _Problem(compute, loss)
    if p.n < PARAMETERS + 1 or len(np.unique(p.C)) < PARAMETERS:
        return None
    _, theta = p.solve("", None, p.starts())
    return p.law(theta)


def profile(compute: Sequence[float], loss: Sequence[float], name: str) -> Profiled | None:
    """The 95% profile-likelihood interval of ``name`` ('E' or 'alpha') of the law fitted to the points; None where
    no law is fitted."""
    p = _Problem(compute, loss)
    if p.n < PARAMETERS + 1 or len(np.unique(p.C)) < PARAMETERS:
        return None
    s_min, theta = p.solve("", None, p.starts())
    index = {"E": 0, "alpha": 2}[name]
    if name == "E":
        grid = np.linspace(0.0, p.e_max, _GRID)
        edges = ("E = 0", f"E = {p.e_max:.3g}, the lowest loss")
    else:
        grid = np.concatenate([[0.0], np.geomspace(1e-3, ALPHA_MAX, _GRID - 1)])
        edges = ("α = 0", f"α = {ALPHA_MAX:g}, the edge of the search")
    grid = np.unique(np.append(grid, theta[index]))  # the fit's own value is a point of the profile

    def held(v: float, start: tuple) -> tuple[float, tuple]:
        """S(v) and its solution, from ``start`` and from the full fit (a continuation along the grid)."""
        return p.solve(name, float(v), [_held(start, index, v), _held(theta, index, v)])

    s = np.empty(len(grid))
    solutions: list[tuple] = []
    previous = theta
    for i, v in enumerate(grid):
        s[i], previous = held(v, previous)
        solutions.append(previous)
    if s.min() < s_min:  # the grid found a better optimum than the starts did: that one is the fit
        s_min, theta = p.solve("", None, [solutions[int(np.argmin(s))]])
    value = float(theta[index])
    dof = p.n - PARAMETERS
    if dof <= 0:
        return Profiled(name, value, math.nan, math.nan, f"{edges[0]} and {edges[1]}")
    bound = s_min * (1.0 + f_dist.ppf(LEVEL, 1, dof) / dof)
    inside = np.flatnonzero(s <= bound)
    first, last = int(inside[0]), int(inside[-1])
    edge = " and ".join(e for e, hit in zip(edges, (first == 0, last == len(grid) - 1)) if hit)

    def crossing(i_in: int, i_out: int) -> float:
        """Where S(v) crosses the bound between a grid point inside and its neighbour outside (each S from the inside
        point's solution, a near start)."""
        start = solutions[i_in]

        def excess(v: float) -> float:
            return p.solve(name, float(v), [_held(start, index, v)])[0] - bound

        return float(brentq(excess, grid[i_in], grid[i_out], xtol=1e-6, rtol=1e-3))

    low = float(grid[0]) if first == 0 else crossing(first, first - 1)
    high = float(grid[-1]) if last == len(grid) - 1 else crossing(last, last + 1)
    return Profiled(name, value, min(low, value), max(high, value), edge)


def _held(theta: tuple, index: int, value: float) -> tuple:
    """``theta`` with its ``index``-th parameter set to ``value``."""
    return tuple(float(value) if k == index else x for k, x in enumerate(theta))


#: points of one ladder: (rung, seed) -> [(compute, loss), ...] (one point per run: its final loss)
Points = dict[tuple[int, int], list[tuple[float, float]]]


def flatten(points: Points) -> tuple[list[float], list[float]]:
    pairs = [p for key in sorted(points) for p in points[key]]
    return [c for c, _ in pairs], [loss for _, loss in pairs]
