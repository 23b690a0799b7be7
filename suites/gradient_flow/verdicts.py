"""The gradient_flow verdicts: Pascanu et al. 2013's bound and clipping, attention's short paths, the lags of gated
RNNs and of Elman RNNs whose recurrent weight starts as the identity or an orthogonal matrix.

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

import pandas as pd

from harness.findings import Estimate, Finding, cause_sentence, finding, not_run
from harness.paired import Difference, all_hold, directional, paired
from harness.report_kit import in_order
from harness.suite_file import SuiteFile
from suites.gradient_flow.tables import ORDER, log10, longest_by_seed, probes, with_extra

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

#: the published findings this suite tests, in the order its report states them (suite.yaml)
RADIUS, REACH, LAGS, INIT_LAGS, CLIPPING = CLAIMS = SuiteFile.of(__file__).claims(
    "spectral_radius_bound",
    "attention_keeps_gradient",
    "gated_rnn_longer_lags",
    "init_longer_lags",
    "clipping_stabilises_sgd",
)

#: the gated cells compared with the tanh RNN, each on its own
GATED = ("lstm", "gru")
#: the Elman cells of the spectral-radius sweep (gamma = 1 for both), at PyTorch's default initialisation
ELMAN = ("rnn", "rnn_relu")
#: each Elman RNN with an initialisation of its own -> the same cell at PyTorch's default, the arm it is paired with
INITIALISED = {"irnn": "rnn_relu", "rnn_orthogonal": "rnn"}
#: how a verdict's sentences name the variants it pairs with
NAMES = {"rnn": "the tanh RNN", "rnn_relu": "the ReLU RNN"}


def findings(df: pd.DataFrame) -> list[Finding]:
    """This suite's verdicts on Pascanu et al.'s findings (and attention's short paths) from one group of records."""
    ok = df[df.status == "ok"]
    s = df.iloc[0].profile_settings
    flow, sweep = probes(ok)
    variants = in_order(df.variant.unique(), ORDER)
    longest = {v: longest_by_seed(df, v, s) for v in variants}
    longest = {v: by_seed for v, by_seed in longest.items() if by_seed}
    return [
        _radius(sweep),
        _reach_finding(flow),
        _lags(longest, max(s["lags"])),
        _init_lags(longest, max(s["lags"])),
        _clipping(diverged_by_seed(df), 0.5 * math.log(s["alphabet"])),
    ]


def _against_zero(label: str, values: dict[int, float], unit: str = "") -> Difference:
    """The paired difference of per-seed values from 0 (a one-sample comparison: counts as paired() says)."""
    return paired(label, values, {seed: 0.0 for seed in values}, unit)


def _log_ratios(part: pd.DataFrame) -> dict[int, float]:
    """seed -> log10 of the gradient ratio (an underflow to 0 is the floor, -38: a vanished gradient, kept)."""
    return {int(seed): log10([v])[0] for seed, v in part.groupby("seed").value.mean().items()}


def _radius(sweep: pd.DataFrame) -> Finding:
    """Below spectral radius 1 gradients vanish; growth needs a radius above 1; above 1 they can grow (per cell)."""
    if not len(sweep):
        return not_run(RADIUS)
    far = int(min(50, sweep.x.max()))
    at = sweep[sweep.x == far]
    verdicts, parts, estimates, causes, judged = [], [], [], [], []
    for cell in [c for c in ELMAN if c in set(at.variant)]:
        by_radius = {
            r: _against_zero(
                f"{cell} log10 ratio at d={far}, radius {r:g}", _log_ratios(at[(at.variant == cell) & (at.radius == r)])
            )
            for r in sorted(at[at.variant == cell].radius.unique())
        }
        below = {r: d for r, d in by_radius.items() if r < 1}
        up_to_one = {r: d for r, d in by_radius.items() if r <= 1}
        above = {r: d for r, d in by_radius.items() if r > 1}
        vanish = [r for r, d in below.items() if directional(d, -1) == "agrees"]
        grows_too_early = [r for r, d in up_to_one.items() if directional(d, -1) == "disagrees"]
        grows = [r for r, d in above.items() if directional(d, +1) == "agrees"]
        if grows_too_early:
            verdict = "disagrees"
            causes.append(f"for {cell}, the gradient grows at radius {min(grows_too_early):g}, not only above 1")
        elif not below or not above:
            verdict = "inconclusive"
            causes.append(f"for {cell}, the sweep lacks radii on both sides of 1")
        elif len(vanish) < len(below):
            verdict = "inconclusive"
            causes.append(
                f"for {cell}, the decay at radius {max(set(below) - set(vanish)):g} does not count (its paired interval includes 0)"
            )
        elif not grows:
            verdict = "inconclusive"
            causes.append(
                f"for {cell}, no radius above 1 makes the gradient grow at distance {far} with a paired interval clear of 0"
            )
        else:
            verdict = "agrees"
        verdicts.append(verdict)
        top = max(below) if below else None
        parts.append(
            f"{cell}: "
            + (
                f"every radius below 1 vanishes (at {top:g}, log10 ratio {below[top].mean:.1f})"
                if below and len(vanish) == len(below)
                else f"radii below 1 vanishing with a paired interval clear of 0: {', '.join(f'{r:g}' for r in vanish) or 'none'}"
            )
            + (
                f"; growth from radius {min(grows):g} up (log10 {above[max(above)].mean:+.1f} at {max(above):g})"
                if grows
                else "; no radius above 1 grows with a paired interval clear of 0"
            )
            + (f"; radius {min(grows_too_early):g} <= 1 grows" if grows_too_early else "")
        )
        if top is not None:
            estimates.append(below[top].estimate)
            judged.append((directional(below[top], -1), below[top]))
        if above:
            estimates.append(above[max(above)].estimate)
            judged.append((directional(above[max(above)], +1), above[max(above)]))
    if not verdicts:
        return not_run(RADIUS)
    # each Elman cell must obey the bound (a conjunction over cells)
    verdict = all_hold(verdicts)
    text = (
        f"Spectral-radius sweep (Elman RNNs at initialisation, log10 of the gradient ratio at distance {far}, "
        "per seed against 0): " + "; ".join(parts) + f". This run {_says(verdict)} the bound (below 1 vanish, "
        "growth needs above 1)."
    )
    return finding(
        RADIUS,
        verdict,
        text,
        estimates,
        cause=cause_sentence(verdict, causes),
        headline=deciding([d for _, d in judged], [v for v, _ in judged]),
        boundary=0.0,
    )


def _reach_finding(flow: pd.DataFrame) -> Finding:
    """Attention's direct paths keep gradient over distances where a tanh RNN's vanishes (at initialisation)."""
    if not len(flow):
        return not_run(REACH)
    d = int(min(20, flow.x.max()))
    cell = flow[(flow.phase == "init") & (flow.x == d)]
    if not len(cell):
        return not_run(REACH)
    logs = {v: _log_ratios(cell[cell.variant == v]) for v in in_order(cell.variant.unique(), ORDER)}
    parts = ", ".join(f"{v} {_mean(x):+.1f}" for v, x in logs.items())
    if "rnn" not in logs or "transformer" not in logs:
        return not_run(REACH, f"At initialisation log10 of the gradient ratio at distance {d} is {parts}.")
    diff = paired(
        f"log10 gradient ratio at distance {d}, transformer - rnn", logs["transformer"], logs["rnn"], "decades"
    )
    verdict = directional(diff, +1)
    text = (
        f"At initialisation log10 of the gradient ratio at distance {d} is {parts} (mean over seeds); the "
        f"Transformer keeps {diff.mean:+.1f} decades more than the tanh RNN, paired over {diff.seeds} seed(s) "
        f"({diff.why()}): this run {_says(verdict)} attention's direct paths keeping the gradient."
    )
    cause = (
        ""
        if verdict == "agrees"
        else (
            f"The Transformer's gradient at distance {d} is not above the tanh RNN's on the paired test ({diff.why()})."
            if verdict == "inconclusive"
            else f"The tanh RNN keeps more gradient at distance {d} than the Transformer."
        )
    )
    return finding(REACH, verdict, text, [diff.estimate], cause=cause, headline=0, boundary=0.0)


def _lags(longest: dict[str, dict[int, float]], sweep_max: float) -> Finding:
    """Each gated RNN (LSTM, GRU) learns a longer contiguous run of lags than the tanh RNN, paired over seeds."""
    if not longest:
        return not_run(LAGS)
    parts = _per_seed(longest)
    gated = [v for v in GATED if v in longest]
    if "rnn" not in longest or not gated:
        return not_run(
            LAGS, f"Longest lag learned per seed: {parts}. This run lacks a tanh RNN or a gated RNN to compare."
        )
    diffs, verdicts, causes = _longer_lags(longest, {g: "rnn" for g in gated}, sweep_max)
    # every gated cell must beat the tanh RNN: one reversed cell refutes the claim
    verdict = all_hold(list(verdicts.values()))
    said = "; ".join(
        f"{g} - rnn {d.mean:+.0f} steps over {d.seeds} seed(s), {verdicts[g]} ({d.why()})" for g, d in diffs.items()
    )
    text = (
        f"Longest lag learned (every shorter lag learned too) per seed: {parts}. Paired: {said}. This run "
        f"{_says(verdict)} gated RNNs bridging longer lags than the tanh RNN."
    )
    return _lags_finding(LAGS, verdict, text, diffs, verdicts, longest, ("rnn", *gated), causes)


def _init_lags(longest: dict[str, dict[int, float]], sweep_max: float) -> Finding:
    """Each Elman RNN started at the identity (IRNN) or an orthogonal matrix learns a longer contiguous run of lags
    than the same cell at PyTorch's default, paired over seeds (a conjunction); the LSTM is stated beside it."""
    arms = {a: b for a, b in INITIALISED.items() if a in longest and b in longest}
    if not arms:
        shown = f"Longest lag learned per seed: {_per_seed(longest)}. " if longest else ""
        return not_run(
            INIT_LAGS,
            f"{shown}This run lacks a pair to compare: irnn with rnn_relu, or rnn_orthogonal with rnn (the same cell "
            "at PyTorch's default initialisation).",
        )
    diffs, verdicts, causes = _longer_lags(longest, arms, sweep_max)
    # each initialisation must beat its default-initialised cell: one reversed arm refutes the claim
    verdict = all_hold(list(verdicts.values()))
    said = "; ".join(
        f"{a} - {arms[a]} {d.mean:+.0f} steps over {d.seeds} seed(s), {verdicts[a]} ({d.why()})"
        for a, d in diffs.items()
    )
    shown = in_order({*arms, *arms.values(), *(v for v in ("lstm",) if v in longest)}, ORDER)
    missing = [a for a in INITIALISED if a not in arms]
    text = (
        f"Longest lag learned (every shorter lag learned too) per seed: {_per_seed({v: longest[v] for v in shown})}. "
        f"Paired: {said}."
    )
    if missing:
        text += (
            f" {' and '.join(f'{a} or {INITIALISED[a]}' for a in missing)} did not run: the verdict rests on "
            f"{' and '.join(arms)} alone."
        )
    if "lstm" in longest:
        against = {
            a: paired(
                f"longest lag learned, {a} - lstm", longest[a], longest["lstm"], "steps", bounds=_bounds(sweep_max)
            )
            for a in arms
        }
        text += (
            " Against the LSTM (not judged): "
            + "; ".join(f"{a} - lstm {d.mean:+.0f} steps ({d.why()})" for a, d in against.items())
            + "."
        )
    text += (
        f" This run {_says(verdict)} identity and orthogonal initialisation letting an Elman RNN bridge longer lags."
    )
    return _lags_finding(INIT_LAGS, verdict, text, diffs, verdicts, longest, shown, causes)


def _lags_finding(claim, verdict, text, diffs, verdicts, longest, shown, causes) -> Finding:
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


def _longer_lags(
    longest: dict[str, dict[int, float]], arms: dict[str, str], sweep_max: float
) -> tuple[dict[str, Difference], dict[str, str], list[str]]:
    """For each arm -> the variant it is paired with: the paired difference of the longest lag learned per seed, its
    directional verdict (the arm longer), and a cause for each arm whose verdict does not agree."""
    diffs = {
        a: paired(f"longest lag learned, {a} - {b}", longest[a], longest[b], "steps", bounds=_bounds(sweep_max))
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


def _bounds(sweep_max: float) -> tuple[float, float] | None:
    """The range a longest lag learned keeps to: 0 to the sweep's longest lag."""
    return (0, sweep_max) if sweep_max > 0 else None


def _per_seed(longest: dict[str, dict[int, float]]) -> str:
    """'rnn [5, 10, 5], lstm [100, 100, 50]': each variant's longest lag learned, seed by seed."""
    return ", ".join(
        f"{v} [{', '.join(f'{x:g}' for _, x in sorted(by_seed.items()))}]" for v, by_seed in longest.items()
    )


def diverged_by_seed(df: pd.DataFrame) -> dict[str, dict[int, float]]:
    """{"clipped"/"unclipped": seed -> runs of the clipping study that diverged (over every variant and learning rate)},
    with "runs"/"learned" likewise: how many ran, and how many reached a final loss below half the chance loss."""
    clip = with_extra(df[df.metric == "clip_final_loss"], "clipping")
    out: dict[str, dict[int, float]] = {}
    if not len(clip):
        return out
    learned_below = 0.5 * math.log(df.iloc[0].profile_settings["alphabet"])
    for arm, rows in (("clipped", clip[clip.clipping != "none"]), ("unclipped", clip[clip.clipping == "none"])):
        for seed, part in rows.groupby("seed"):
            out.setdefault(arm, {})[int(seed)] = float((part.status == "diverged").sum())
            out.setdefault(f"{arm} runs", {})[int(seed)] = float(len(part))
            ok = part[part.status == "ok"]
            out.setdefault(f"{arm} learned", {})[int(seed)] = float((ok.value < learned_below).sum())
    return out


def _clipping(counts: dict[str, dict[int, float]], learned_below: float) -> Finding:
    """Clipping the gradient norm leaves fewer large-learning-rate SGD runs diverged, paired over seeds."""
    if not counts.get("clipped") or not counts.get("unclipped"):
        return not_run(CLIPPING)
    runs = max(
        list(counts.get("clipped runs", {}).values()) + list(counts.get("unclipped runs", {}).values()), default=0
    )
    diff = paired(
        "runs diverged per seed, clipped - unclipped",
        counts["clipped"],
        counts["unclipped"],
        "runs",
        bounds=(0, runs) if runs > 0 else None,
    )
    verdict = directional(diff, -1)
    total = {k: int(sum(v.values())) for k, v in counts.items()}
    text = (
        f"Clipping (SGD): {total['clipped']} of {total['clipped runs']} clipped runs diverged and "
        f"{total['clipped learned']} learned the task (final loss below {learned_below:.2f} nats, half the chance "
        f"loss), against {total['unclipped']} diverged and {total['unclipped learned']} learned of "
        f"{total['unclipped runs']} unclipped; paired over {diff.seeds} seed(s), clipping changes the divergences by "
        f"{diff.mean:+.1f} per seed ({diff.why()}): this run {_says(verdict)} clipping keeping large-learning-rate "
        "training stable."
    )
    cause = (
        ""
        if verdict == "agrees"
        else (
            f"Clipped and unclipped runs diverge alike at these learning rates ({diff.why()})."
            if verdict == "inconclusive"
            else "More clipped runs than unclipped ones diverged at these learning rates."
        )
    )
    return finding(
        CLIPPING,
        verdict,
        text,
        [
            diff.estimate,
            Estimate.of("clipped runs diverged per seed", list(counts["clipped"].values()), "runs", "count"),
            Estimate.of("unclipped", list(counts["unclipped"].values()), "runs", "count"),
        ],
        cause=cause,
        headline=0,
        boundary=0.0,
    )


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


def _says(verdict: str) -> str:
    return {"agrees": "agrees with", "disagrees": "disagrees with"}.get(verdict, "is inconclusive on")


def _mean(values: dict[int, float]) -> float:
    vals = list(values.values())
    return sum(vals) / len(vals) if vals else math.nan
