"""At initialisation Post-LN's FFN gradients grow toward the output; Pre-LN's stay flat (Xiong et al. 2020, Fig. 3)."""

from __future__ import annotations

import math

import pandas as pd

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import all_hold, directional, paired
from suites.training_stability.claims._shared import Evidence, interval, said
from suites.training_stability.init_probe import size_of, slopes

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    return gradients(ev.probe)


def gradients(probe: pd.DataFrame) -> Finding:
    """Xiong et al.'s Fig. 3: Post-LN's ||dL/dW^2|| grows toward the output at initialisation; Pre-LN's stays flat.

    Their protocol (init_probe.py): W^2 of every layer of 6-layer models of d_model 512, at initialisation; per
    initialisation seed the least-squares slope of ln ||dL/dW^2|| over all layers. Judged over the initialisation
    seeds: Post-LN's slope above 0 (a one-sample t interval), and Post-LN's slope above the size of Pre-LN's
    (|slope|, paired by initialisation: the same batches); both must hold. Pre-LN's own slope is reported with its
    interval: what the source's protocol shows of "flat"."""
    found = slopes(probe.itertuples()) if len(probe) else {}
    if not {"post", "pre"} <= set(found):
        return not_run(
            CLAIM, "This run lacks the W^2 probe of both norm placements (`post_ln+w2_probe`, `pre_ln+w2_probe`)."
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
        f"{interval(grows, '{:+.3f}')} nats per layer ({per_layer['post']:+.0f}% per layer; grows: {parts[0]}); "
        f"Pre-LN {interval(level, '{:+.3f}')} ({per_layer['pre']:+.0f}% per layer); Post-LN's slope against the "
        f"size of Pre-LN's, paired by initialisation, {interval(steeper, '{:+.3f}')} (steeper: {parts[1]}). "
        f"This run {said(verdict)}."
    )
    cause = ""
    headline = 0
    if verdict != "agrees":
        headline = 0 if parts[0] != "agrees" else 1
        if headline == 0:
            cause = (
                f"Post-LN's slope of ln ||dL/dW^2|| is {interval(grows, '{:+.3f}')} nats per layer over "
                f"{grows.seeds} initialisations at the source's size, "
                + ("which does not count." if not grows.counts else "falling toward the output, not growing.")
            )
        else:
            cause = (
                f"Post-LN's W^2 gradient grows toward the output ({interval(grows, '{:+.3f}')} nats per layer), "
                f"but Pre-LN's is not flat: it changes by {interval(level, '{:+.3f}')} nats per layer, "
                + ("more steeply than Post-LN's rises" if steeper.counts else "as steeply as Post-LN's rises")
                + f" (Post-LN's slope against the size of Pre-LN's {interval(steeper, '{:+.3f}')}), at the "
                f"source's size over {grows.seeds} initialisations."
            )
    return finding(
        CLAIM,
        verdict,
        text,
        [grows.estimate, steeper.estimate, level.estimate],
        cause=cause,
        headline=headline,
        boundary=0.0,
    )
