"""A check: fused (flash) attention's memory grows linearly in length where naive attention's grows quadratically
(Dao et al. 2022), each fused kernel's forward peak memory against naive's of the same heads."""

from __future__ import annotations

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, finding
from harness.paired import all_hold
from suites.attention_cost.claims._shared import LINEAR, QUADRATIC, Evidence, forward_mean, fused, growth, kernel_of

CLAIM = declared(__file__)
#: the verdict each reading of a fused kernel's memory slope against naive's gives (claims/_shared.py ``growth``)
VERDICTS = {"linear": "agrees", "quadratic": "disagrees", "neither": "inconclusive"}


def judge(ev: Evidence) -> Finding:
    """Each fused kernel's forward peak memory grows about linearly (slope < LINEAR) where naive attention of the same
    heads grows quadratically (> QUADRATIC), for the full and the causal mask; kernels that materialise the scores by
    design (naive, sdpa_math) are the quadratic reference and are not judged."""
    df, slopes, reference = ev.df, ev.slopes, ev.reference
    parts, labels, estimates, excluded = [], [], [], {}
    seeds = int(df.seed.nunique()) if "seed" in df and len(df) else 1
    for (variant, causal, pass_), entry in sorted(slopes.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if pass_ != "fwd":
            continue
        ref = reference.get(variant)
        if ref is None or ref == variant or (ref, causal, pass_) not in slopes:
            continue
        mine, theirs = entry["peak_memory"], slopes[(ref, causal, pass_)]["peak_memory"]
        if mine is None or theirs is None:
            continue
        mask = "causal" if causal else "full"
        if not fused(kernel_of(df, variant)):
            excluded.setdefault(kernel_of(df, variant), []).append(f"{mine:.2f} ({variant}, {mask})")
            continue
        label = VERDICTS[growth(mine, theirs)]
        labels.append(label)
        estimates.append(Estimate(f"memory slope {variant}, {mask} (vs {ref} {theirs:.2f})", mine, seeds=seeds))
        parts.append(
            f"`{variant}`'s {mask}-mask forward peak memory grows with slope {mine:.2f} against {theirs:.2f} for "
            f"`{ref}`"
            + {
                "agrees": " (linear against quadratic).",
                "disagrees": f" (quadratic like `{ref}`).",
                "inconclusive": " (neither linear nor quadratic by the margins).",
            }[label]
        )
    if excluded:
        parts.append(
            "Not judged, as they materialise the score matrix by design (the quadratic reference): "
            + "; ".join(f"`{k}` slopes {', '.join(v)}" for k, v in sorted(excluded.items()))
            + (" (`sdpa_math` is PyTorch's unfused math path)." if "sdpa_math" in excluded else ".")
        )
    parts += _speed_sentences(df, reference, ev.lengths)
    # every fused kernel and mask must grow linearly: one quadratic kernel refutes the check
    verdict = all_hold(labels)
    cause = ""
    if verdict != "agrees" and labels:
        off = [
            e.label.split(",")[0].replace("memory slope ", "") for e, lab in zip(estimates, labels) if lab != "agrees"
        ]
        cause = (
            f"{', '.join(sorted(set(off)))} do not grow below slope {LINEAR:g} where naive grows above {QUADRATIC:g}."
        )
    elif not labels:
        verdict = "not run"
    # the steepest fused kernel's slope is the one the verdict turns on (every one must stay below LINEAR)
    steepest = max(range(len(estimates)), key=lambda i: estimates[i].value, default=0)
    return finding(
        CLAIM,
        verdict,
        " ".join(parts),
        estimates,
        seeds,
        cause=cause,
        over_seeds=False,
        headline=steepest,
        boundary=LINEAR,
    )


def _speed_sentences(df: pd.DataFrame, reference, lengths) -> list[str]:
    """At the longest length both timed, each kernel's time and memory against naive of the same heads."""
    parts = []
    if "metric" not in df or not len(df):
        return parts
    lat = df[(df.metric == "latency") & (df.status == "ok")]
    mem = df[(df.metric == "peak_memory") & (df.status == "ok")]
    for variant, ref in sorted(reference.items()):
        if ref is None or ref == variant:
            continue
        for causal in (False, True):
            both = [x for x in lengths if _has(lat, variant, causal, x) and _has(lat, ref, causal, x)]
            if both:
                x = max(both)
                a, b = forward_mean(lat, ref, causal, x), forward_mean(lat, variant, causal, x)
                ma, mb = forward_mean(mem, ref, causal, x), forward_mean(mem, variant, causal, x)
                parts.append(
                    f"At {int(x)} tokens ({'causal' if causal else 'full'} forward, the longest both timed) "
                    f"`{variant}` takes {b:.1f} ms and {mb:.1f} MiB against {a:.1f} ms and {ma:.1f} MiB for `{ref}` "
                    f"({a / b:.1f}x faster, {ma / mb:.0f}x less memory)."
                )
    return parts


def _has(frame: pd.DataFrame, variant: str, causal: bool, x: float) -> bool:
    return bool(
        len(frame[(frame.variant == variant) & (frame.causal == causal) & (frame.x == x) & (frame["pass"] == "fwd")])
    )
