"""The gradient_flow verdicts: Pascanu et al. 2013's bound and clipping, attention's short paths, gated RNNs' lags."""

from __future__ import annotations

import math
from typing import Dict, List

import pandas as pd

from harness.suite_file import SuiteFile
from harness.findings import Estimate, Finding, finding, not_run
from harness.report_kit import in_order, mean_ci
from suites.gradient_flow.tables import ORDER, clip_table, lag_table, probes


PUBLISHED = (
    "Pascanu, Mikolov & Bengio 2013 (arXiv 1211.5063): with the recurrent weight's largest singular value "
    "below 1/gamma (gamma = 1 for tanh and ReLU) long-term gradients vanish, and above it they can explode; "
    "clipping the gradient norm keeps SGD stable where exploding gradients would throw it off; plain tanh RNNs "
    "fail beyond lags of ~10-20 steps while LSTMs bridge far longer ones."
)

#: the published findings this suite tests, in the order its report states them (suite.yaml)
RADIUS, REACH, LAGS, CLIPPING = CLAIMS = SuiteFile.of(__file__).claims(
    "spectral_radius_bound", "attention_keeps_gradient", "gated_rnn_longer_lags", "clipping_stabilises_sgd")


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on Pascanu et al.'s findings (and attention's short paths) from one group of records."""
    ok = df[df.status == "ok"]
    s = df.iloc[0].profile_settings
    flow, sweep = probes(ok)
    variants = in_order(df.variant.unique(), ORDER)
    _, longest, spread = lag_table(df, variants, s)
    clip = clip_table(df, variants, 0.5 * math.log(s["alphabet"]))[1]
    seeds = int(df.seed.nunique())
    return [_radius(sweep, seeds), _reach_finding(flow), _lags(longest, spread), _clipping(clip, seeds)]


def _radius(sweep: pd.DataFrame, seeds: int) -> Finding:
    """Below spectral radius 1 gradients vanish; growth needs a radius above 1."""
    if not len(sweep):
        return not_run(RADIUS)
    far = int(min(50, sweep.x.max()))
    at = sweep[sweep.x == far].groupby("radius").value.apply(lambda v: mean_ci(v)[0])
    small, big = at[at.index < 1], at[at.index > 1]
    vanish = bool(len(small)) and bool((small < 1).all())
    explode = big[big > 1]
    never_below = bool((at[at.index <= 1] <= 1).all())
    bound = vanish and bool(len(explode)) and never_below
    text = (f"Spectral-radius sweep (Elman RNNs at initialisation, distance {far}, ratios averaged over the cells): every "
            "radius below 1 " + ("vanishes" if vanish else "does not always vanish") + f" (largest ratio {small.max():.2g}); "
            + (f"gradients grow with distance from radius {explode.index.min():g} up (ratio {explode.max():.3g} at the "
               f"largest), and never below radius 1" if len(explode) and never_below
               else "no radius above 1 makes them grow" if not len(explode) else "some radius at or below 1 grows")
            + ". This run " + ("agrees with" if bound else "does not fully reproduce")
            + " the bound (below 1 vanish, growth needs above 1).")
    estimates = [Estimate(f"gradient ratio at distance {far}, largest radius below 1", float(small.max()), seeds=seeds)]
    if len(big):
        estimates.append(Estimate(f"at radius {big.index.max():g}", float(big.loc[big.index.max()]), seeds=seeds))
    return finding(RADIUS, "agrees" if bound else "disagrees", text, estimates)


def _reach_finding(flow: pd.DataFrame) -> Finding:
    """Attention's direct paths keep gradient over distances where a tanh RNN's vanishes (at initialisation)."""
    if not len(flow):
        return not_run(REACH)
    d = int(min(20, flow.x.max()))
    cell = flow[(flow.phase == "init") & (flow.x == d)]
    init = cell.groupby("variant").value.apply(lambda v: mean_ci(v)[0])
    if not len(init):
        return not_run(REACH)
    parts = ", ".join(f"{v} {init[v]:.1e}" for v in in_order(init.index, ORDER))
    rnn, tr = init.get("rnn"), init.get("transformer")
    if rnn is None or tr is None:
        return not_run(REACH, f"At initialisation the gradient ratio at distance {d} is {parts}.")
    clause = (" The Transformer keeps far more gradient at that distance than the tanh RNN, as attention's direct paths "
              "predict." if tr > 10 * rnn else " The Transformer does not keep clearly more gradient than the tanh RNN here.")
    estimates = [Estimate.of(f"gradient ratio at distance {d}, {v}", cell[cell.variant == v].groupby("seed").value.mean())
                 for v in ("transformer", "rnn")]
    return finding(REACH, "agrees" if tr > 10 * rnn else "disagrees",
                   f"At initialisation the gradient ratio at distance {d} is {parts}.{clause}", estimates)


def _lags(longest: Dict[str, float], spread: Dict[str, List[float]]) -> Finding:
    """A gated RNN (LSTM or GRU) learns longer lags than the tanh RNN."""
    if not longest:
        return not_run(LAGS)
    parts = ", ".join(f"{v} {lag:g}" for v, lag in longest.items())
    gated = max((v for v in ("lstm", "gru") if v in longest), key=lambda v: longest[v], default=None)
    if "rnn" not in longest or gated is None:
        return not_run(LAGS, f"Longest lag learned: {parts}. This run lacks a tanh RNN or a gated RNN to compare.")
    agrees = longest[gated] > longest["rnn"]
    verdict = ("agrees: a gated RNN bridges longer lags than the tanh RNN" if agrees else
               "does not reproduce the gated RNNs' advantage at this budget (the tanh RNN reaches as far)")
    estimates = [Estimate.of(f"longest lag learned, {v}", spread[v], "steps") for v in ("rnn", gated)]
    return finding(LAGS, "agrees" if agrees else "disagrees", f"Longest lag learned: {parts}. This run {verdict}.", estimates)


def _clipping(clip: Dict, seeds: int) -> Finding:
    """Clipping the gradient norm keeps large-learning-rate SGD from diverging (counts: [diverged, runs, learned])."""
    c, u = clip["clipped"], clip["unclipped"]
    if not (c[1] and u[1]):
        return not_run(CLIPPING)
    if c[0] < u[0] and c[2] >= u[2]:
        label, verdict = "agrees", "this run agrees that clipping keeps large-learning-rate training stable."
    elif c[0] <= u[0] and c[2] > u[2]:
        label, verdict = "inconclusive", ("clipping let more runs learn, which agrees in spirit, though no unclipped run "
                                          "diverged more.")
    elif c[0] < u[0]:
        label, verdict = "inconclusive", ("clipping prevented divergence but did not let more runs learn: a mixed result "
                                          "at these learning rates.")
    else:
        label, verdict = "disagrees", "this run shows no stabilising effect of clipping at these learning rates."
    text = (f"Clipping (SGD): {c[0]} of {c[1]} clipped runs diverged and {c[2]} learned the task (final loss below "
            f"{clip['learned_below']:.2f} nats, half the chance loss), against {u[0]} diverged and {u[2]} learned "
            f"of {u[1]} unclipped; {verdict}")
    estimates = [Estimate("clipped runs diverged", c[0], unit=f"of {c[1]}", seeds=0),
                 Estimate("unclipped", u[0], unit=f"of {u[1]}", seeds=0)]
    return finding(CLIPPING, label, text, estimates, seeds)
