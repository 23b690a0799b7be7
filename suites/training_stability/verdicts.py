"""The training_stability verdicts: Xiong et al. 2020's Post-LN gradients, trainability and warm-up.

Each is paired over seeds and magnitude-aware (harness/paired.py). Every run counts: a collapse (diverged, or
stuck at the unigram loss) is the outcome these claims are about, so it enters at its loss (a diverged run at
the unigram loss), never left out (outcomes.py).

The kinds of estimate (harness/intervals.py): last/first gradient ratios are positive ("log"), their logs and the
warm-up costs' differences unbounded ("t"); collapsed runs per seed are counts, shown with their range over seeds,
and their paired difference keeps within +-(runs per seed).
"""

from __future__ import annotations

import math

import pandas as pd

from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import Difference, all_hold, directional, paired
from harness.suite_file import SuiteFile
from suites.training_stability.init_probe import METRIC as W2_METRIC
from suites.training_stability.init_probe import size_of, slopes
from suites.training_stability.outcomes import (
    COLLAPSE_WITHIN,
    Cell,
    cells,
    collapse_counts,
    outcomes,
    pooled,
    runs_per_seed,
)
from suites.training_stability.tables import _expand

PUBLISHED = (
    "Xiong et al. 2020 (arXiv 2002.04745): Post-LN on IWSLT14 De-En with Adam reaches BLEU 8.45 without warm-up and "
    "~34 with 4000 warm-up steps (31.16 with 500 warm-up steps at lr 5e-4, but 2.77 at lr 1e-3), while Pre-LN trains "
    "without warm-up; at initialisation the FFN weights' gradient norm grows with layer index for Post-LN and is "
    "roughly flat for Pre-LN."
)

#: the published findings this suite tests, in the order its report states them (suite.yaml)
GRADIENTS, TRAINABILITY, WARMUP = CLAIMS = SuiteFile.of(__file__).claims(
    "post_ln_gradient_grows", "post_ln_harder_to_train", "post_ln_needs_warmup"
)


def findings(df: pd.DataFrame) -> list[Finding]:
    """This suite's verdicts on Xiong et al.'s findings from one group of records."""
    probe = df[(df.metric == W2_METRIC) & (df.status == "ok")]
    df = df[df.metric != W2_METRIC]  # the training grid's records
    first = df.iloc[0] if len(df) else probe.iloc[0]
    unigram = float(first.get("unigram_loss", float("nan")))
    runs = _expand(df[df.metric == "heldout_loss"], "depth", "warmup")
    out = outcomes(runs, unigram) if len(runs) else {}
    return [_gradients(probe), _trainability(out, unigram), _warmup(cells(out, unigram) if out else [])]


def _gradients(probe: pd.DataFrame) -> Finding:
    """Xiong et al.'s Fig. 3: Post-LN's ||dL/dW^2|| grows toward the output at initialisation; Pre-LN's stays flat.

    Their protocol (init_probe.py): W^2 of every layer of 6-layer models of d_model 512, at initialisation; per
    initialisation seed the least-squares slope of ln ||dL/dW^2|| over all layers. Judged over the initialisation
    seeds: Post-LN's slope above 0 (a one-sample t interval), and Post-LN's slope above the size of Pre-LN's
    (|slope|, paired by initialisation: the same batches); both must hold. Pre-LN's own slope is reported with its
    interval: what the source's protocol shows of "flat"."""
    found = slopes(probe.itertuples()) if len(probe) else {}
    if not {"post", "pre"} <= set(found):
        return not_run(
            GRADIENTS, "This run lacks the W^2 probe of both norm placements (`post_ln+w2_probe`, `pre_ln+w2_probe`)."
        )
    size = size_of(probe.itertuples())
    post, pre = found["post"], found["pre"]
    grows = paired("Post-LN slope of ln ||dL/dW2|| per layer", post, {i: 0.0 for i in post}, "nats/layer")
    steeper = paired("Post-LN slope - Pre-LN |slope|", post, {i: abs(x) for i, x in pre.items()}, "nats/layer")
    level = paired("Pre-LN slope of ln ||dL/dW2|| per layer", pre, {i: 0.0 for i in pre}, "nats/layer")
    parts = [directional(grows, +1), directional(steeper, +1)]
    verdict = all_hold(parts)
    per_layer = {k: math.expm1(d.estimate.value) * 100 for k, d in (("post", grows), ("pre", level))}
    text = (
        f"Xiong et al.'s Fig. 3 protocol: ||dL/dW^2|| of every layer's second FFN matrix at initialisation, "
        f"{size['depth']} layers of d_model {size['d_model']} (Xavier), {grows.seeds} initialisations; per "
        f"initialisation the least-squares slope of ln ||dL/dW^2|| over all {size['depth']} layers. Post-LN "
        f"{_interval(grows, '{:+.3f}')} nats per layer ({per_layer['post']:+.0f}% per layer; grows: {parts[0]}); "
        f"Pre-LN {_interval(level, '{:+.3f}')} ({per_layer['pre']:+.0f}% per layer); Post-LN's slope against the "
        f"size of Pre-LN's, paired by initialisation, {_interval(steeper, '{:+.3f}')} (steeper: {parts[1]}). "
        f"This run {_said(verdict)}."
    )
    cause = ""
    headline = 0
    if verdict != "agrees":
        headline = 0 if parts[0] != "agrees" else 1
        if headline == 0:
            cause = (
                f"Post-LN's slope of ln ||dL/dW^2|| is {_interval(grows, '{:+.3f}')} nats per layer over "
                f"{grows.seeds} initialisations at the source's size, "
                + ("which does not count." if not grows.counts else "falling toward the output, not growing.")
            )
        else:
            cause = (
                f"Post-LN's W^2 gradient grows toward the output ({_interval(grows, '{:+.3f}')} nats per layer), "
                f"but Pre-LN's is not flat: it changes by {_interval(level, '{:+.3f}')} nats per layer, "
                + ("more steeply than Post-LN's rises" if steeper.counts else "as steeply as Post-LN's rises")
                + f" (Post-LN's slope against the size of Pre-LN's {_interval(steeper, '{:+.3f}')}), at the "
                f"source's size over {grows.seeds} initialisations."
            )
    return finding(
        GRADIENTS,
        verdict,
        text,
        [grows.estimate, steeper.estimate, level.estimate],
        cause=cause,
        headline=headline,
        boundary=0.0,
    )


def _trainability(out: dict, unigram: float) -> Finding:
    """Per seed, how many of each variant's runs collapsed (diverged or at the unigram loss); Post-LN's count
    against Pre-LN's, paired by seed, must count and be larger."""
    if not out or not {"post_ln", "pre_ln"} <= {v for (v, _, _, _) in out}:
        return not_run(TRAINABILITY)
    post, pre = collapse_counts(out, "post_ln", unigram), collapse_counts(out, "pre_ln", unigram)
    n_post, n_pre = runs_per_seed(out, "post_ln"), runs_per_seed(out, "pre_ln")
    most = max(n_post, n_pre)
    d = paired("collapsed runs, Post-LN - Pre-LN", post, pre, "runs", bounds=(0, most) if most > 0 else None)
    verdict = directional(d, +1)
    text = (
        f"Trainability: per seed, Post-LN runs that collapsed (diverged, or ended within {COLLAPSE_WITHIN:g} nats/char "
        f"of the unigram loss {unigram:.2f}) {_seeds(post, '{:.0f}')} of {n_post}, Pre-LN {_seeds(pre, '{:.0f}')} of "
        f"{n_pre}; paired difference {_interval(d, '{:+.1f}')}: this run {_said(verdict)}."
    )
    cause = (
        ""
        if verdict == "agrees"
        else (
            "Post-LN's collapses "
            + ("do not outnumber Pre-LN's beyond the seeds' spread." if not d.counts else "are fewer than Pre-LN's.")
        )
    )
    estimates = [
        Estimate.of("Post-LN collapsed runs per seed", post.values(), f"of {n_post}", "count"),
        Estimate.of("Pre-LN", pre.values(), f"of {n_pre}", "count"),
        d.estimate,
    ]
    return finding(
        TRAINABILITY, verdict, text, estimates, cause=cause, headline=2, boundary=0.0
    )  # the paired difference


def _warmup(found: list[Cell]) -> Finding:
    """Post-LN's cost of dropping the warm-up against Pre-LN's, paired by seed and pooled over the cells that test
    warm-up; a cell where even the warmed-up Post-LN collapsed in every seed is named, not pooled."""
    found = [c for c in found if {"post_ln", "pre_ln"} <= set(c.cost)]
    if not found:
        return not_run(WARMUP)
    fragile = [c for c in found if c.fails_even_warmed("post_ln") or c.fails_even_warmed("pre_ln")]
    tested = [c for c in found if c not in fragile]
    per_cell = {c.label(): c.difference("post_ln", "pre_ln") for c in tested}
    against = [label for label, d in per_cell.items() if directional(d, +1) == "disagrees"]
    d = pooled(tested, "post_ln", "pre_ln") if tested else None
    verdict = "inconclusive" if d is None else directional(d, +1)
    if verdict == "agrees" and against:
        verdict = "inconclusive"
    warm = found[0].warmup
    cost_text = "; ".join(
        f"{c.label()}: Post-LN {_mean(c.cost['post_ln']):+.2f}, Pre-LN {_mean(c.cost['pre_ln']):+.2f}" for c in tested
    )
    text = (
        f"Warm-up: dropping the {warm}-step warm-up costs (held-out nats/char, mean over seeds; a diverged run at the "
        f"unigram loss) " + (cost_text or "nothing that can be compared") + ". "
    )
    if d is not None:
        text += (
            f"Post-LN's cost minus Pre-LN's, per seed the mean over these {len(tested)} cells and paired by seed: "
            f"{_interval(d)}"
            + (f"; a cell counts the other way ({', '.join(against)})" if against else "")
            + f": this run {_said(verdict)}. "
        )
    if fragile:
        text += (
            f"In {len(fragile)} cell(s) ({', '.join(c.label() for c in fragile)}) the warmed-up Post-LN collapsed too, "
            f"in every seed: evidence that Post-LN is fragile there (the trainability verdict counts these runs), but "
            f"not of whether warm-up helps it ({warm} steps were not enough), so they are not pooled."
        )
    cause = ""
    if verdict != "agrees":
        cause = (
            "no cell tests warm-up: the warmed-up Post-LN collapsed in every one."
            if d is None
            else f"a cell counts against the claim ({', '.join(against)})."
            if against
            else f"Post-LN's pooled extra cost {_interval(d)} does not count over the seeds."
            if not d.counts
            else "Post-LN's pooled cost of dropping the warm-up is smaller than Pre-LN's."
        )
    estimates = ([d.estimate] if d is not None else []) + [per_cell[c.label()].estimate for c in tested]
    return finding(WARMUP, verdict, text.strip(), estimates, cause=cause, headline=0, boundary=0.0)


def _mean(values: dict[int, float]) -> float:
    return sum(values.values()) / len(values) if values else math.nan


def _seeds(values: dict[int, float], fmt: str = "{:.2f}") -> str:
    return "[" + ", ".join(fmt.format(v) for _, v in sorted(values.items())) + "]"


def _interval(d: Difference, fmt: str = "{:+.2f}") -> str:
    e = d.estimate
    if math.isnan(e.value):
        return "no paired seeds"
    return (
        fmt.format(e.value)
        + (f" [{fmt.format(e.low)}, {fmt.format(e.high)}]" if e.low is not None else "")
        + f" (n={d.seeds}; {d.why()})"
    )


def _said(verdict: str) -> str:
    return {"agrees": "agrees", "disagrees": "disagrees", "inconclusive": "is inconclusive"}.get(verdict, verdict)


__all__ = ["CLAIMS", "PUBLISHED", "findings"]
