"""What gradient_flow's claims read: the gradient probes, the longest lag each model learns per seed and the
clipping study's divergences; the paired helpers its claims share, and the published findings the report states.

Every verdict is paired over seeds (harness/paired.py): a difference counts when its paired 95% interval excludes 0
(the t test on the per-seed differences), and is inconclusive otherwise; no margin applies at two seeds or more,
and one seed gives no verdict (no calibrated margin). A diverged run is an outcome (a lag not learned, a divergence
counted), never a dropped seed. The spectral-radius bound and attention's short paths are checks at
initialisation (suite.yaml): the first holds by the algebra of a contracting recurrence, the second by the uniform
attention of an untrained model; the lags and clipping are findings about training.

The kinds of estimate (harness/intervals.py): log10 gradient ratios and their differences are unbounded ("t"); the
longest lag learned and the runs diverged are counts, shown with their range over seeds ("count"), and their
paired differences keep to their bounds (a lag within 0 and the sweep's longest lag, runs within 0 and the runs
per seed), so a difference of lags never reads more than the sweep allows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from harness.findings import Estimate, Finding, cause_sentence, finding
from harness.paired import Difference, directional, paired
from harness.report_kit import in_order
from suites.gradient_flow.tables import ORDER, diverged_by_seed, learned_below, log10, longest_by_seed, probes

PUBLISHED = (
    "Pascanu, Mikolov & Bengio 2013 (arXiv 1211.5063): with the recurrent weight's largest eigenvalue below 1 "
    "(its largest singular value below 1/gamma, gamma = 1 for tanh and ReLU) long-term gradients vanish, and only "
    "above 1 can they explode; clipping the gradient norm keeps SGD stable where exploding gradients would throw it "
    "off. Hochreiter & Schmidhuber 1997: plain tanh RNNs fail beyond lags of ~10-20 steps while LSTMs bridge far "
    "longer ones. Le, Jaitly & Hinton 2015 (arXiv 1504.00941): a ReLU RNN whose recurrent weight starts as the "
    "identity (IRNN) learns long-range dependencies about as well as an LSTM; Saxe, McClelland & Ganguli 2014 (arXiv "
    "1312.6120): random orthogonal weights, every singular value 1, keep a deep linear network's learning time "
    "independent of its depth."
)

#: how a verdict's sentences name the variants it pairs with
NAMES = {"rnn": "the tanh RNN", "rnn_relu": "the ReLU RNN"}


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: gradient reach by phase (init, trained), as ratios to distance 1
    flow: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: the spectral-radius sweep at initialisation, as ratios to distance 1
    sweep: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: variant -> seed -> the longest contiguous lag learned (variants with lag records only)
    longest: dict[str, dict[int, float]] = field(default_factory=dict)
    #: the sweep's longest lag
    sweep_max: float = 0.0
    #: the clipping study's runs per seed: diverged, ran and learned, clipped and unclipped (tables.diverged_by_seed)
    diverged: dict[str, dict[int, float]] = field(default_factory=dict)
    #: the final loss (nats) under which a clipping run learned the task
    learned_below: float = math.nan


def prepare(df: pd.DataFrame) -> Evidence:
    ok = df[df.status == "ok"]
    s = df.iloc[0].profile_settings
    flow, sweep = probes(ok)
    variants = in_order(df.variant.unique(), ORDER)
    longest = {v: longest_by_seed(df, v, s) for v in variants}
    longest = {v: by_seed for v, by_seed in longest.items() if by_seed}
    return Evidence(flow, sweep, longest, max(s["lags"]), diverged_by_seed(df), learned_below(s))


def log_ratios(part: pd.DataFrame) -> dict[int, float]:
    """seed -> log10 of the gradient ratio (an underflow to 0 is the floor, -38: a vanished gradient, kept)."""
    return {int(seed): log10([v])[0] for seed, v in part.groupby("seed").value.mean().items()}


def says(verdict: str) -> str:
    return {"agrees": "agrees with", "disagrees": "disagrees with"}.get(verdict, "is inconclusive on")


def deciding(diffs: list[Difference], verdicts: list[str]) -> int:
    """The position of the part a conjunction's verdict turns on: the first that disagrees; else the first that is
    undecided; else, all agreeing, the one least clear of 0 (the smallest |mean| over its interval's half-width)."""
    if not diffs:
        return 0
    for wanted in ("disagrees", "inconclusive"):
        if wanted in verdicts:
            return verdicts.index(wanted)

    def clearance(d: Difference) -> float:
        e = d.estimate
        half = (e.high - e.low) / 2 if e.low is not None and e.high is not None else 0.0
        return abs(e.value) / half if half > 0 else math.inf

    return min(range(len(diffs)), key=lambda i: clearance(diffs[i]))


def per_seed(longest: dict[str, dict[int, float]]) -> str:
    """'rnn [5, 10, 5], lstm [100, 100, 50]': each variant's longest lag learned, seed by seed."""
    return ", ".join(
        f"{v} [{', '.join(f'{x:g}' for _, x in sorted(by_seed.items()))}]" for v, by_seed in longest.items()
    )


def lag_bounds(sweep_max: float) -> tuple[float, float] | None:
    """The range a longest lag learned keeps to: 0 to the sweep's longest lag."""
    return (0, sweep_max) if sweep_max > 0 else None


def longer_lags(
    longest: dict[str, dict[int, float]], arms: dict[str, str], sweep_max: float
) -> tuple[dict[str, Difference], dict[str, str], list[str]]:
    """For each arm -> the variant it is paired with: the paired difference of the longest lag learned per seed, its
    directional verdict (the arm longer), and a cause for each arm whose verdict does not agree."""
    diffs = {
        a: paired(f"longest lag learned, {a} - {b}", longest[a], longest[b], "steps", bounds=lag_bounds(sweep_max))
        for a, b in arms.items()
    }
    verdicts = {a: directional(d, +1) for a, d in diffs.items()}
    causes = []
    for a, v in verdicts.items():
        if v == "agrees":
            continue
        d, other = diffs[a], NAMES.get(arms[a], arms[a])
        if min(d.a + d.b, default=0) >= sweep_max:
            causes.append(f"for {a}, both it and {other} learn the sweep's longest lag {sweep_max:g}")
        elif v == "disagrees":
            causes.append(f"for {a}, {other} learns longer lags on every seed")
        else:
            causes.append(f"for {a}, the paired difference from {other} does not count ({d.why()})")
    return diffs, verdicts, causes


def lags_finding(claim, verdict, text, diffs, verdicts, longest, shown, causes) -> Finding:
    """A longest-lag claim's Finding: the paired differences, then each shown variant's longest lag per seed; the
    headline is the difference that decides the verdict."""
    estimates = [d.estimate for d in diffs.values()] + [
        Estimate.of(f"longest lag learned, {v}", list(longest[v].values()), "steps", "count") for v in shown
    ]
    return finding(
        claim,
        verdict,
        text,
        estimates,
        cause=cause_sentence(verdict, causes),
        headline=deciding(list(diffs.values()), list(verdicts.values())),
        boundary=0.0,
    )
