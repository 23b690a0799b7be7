"""The attention_cost checks: FlashAttention's linear memory (Dao et al. 2022), a property of the kernels' algorithm,
and a regression check of SDPA's share of the matmul peak against this project's earlier measurement.

The kinds of estimate (harness/intervals.py): a memory slope is a fit to the allocator's peak bytes, the same for
every seed (no interval); SDPA's share of the matmul peak is compared with the earlier share as a relative change,
judged against a tolerance set from this run's own timing repeats (``share_tolerance``). Neither check rests on the
spread over seeds (the slope is exact, the share's tolerance comes from the timing repeats), so a run of one seed
(the quick profile) is not marked indicative.
"""

from __future__ import annotations

import math

import pandas as pd

from harness.findings import Estimate, Finding, finding
from harness.paired import MARGIN_SDS, all_hold
from harness.suite_file import SuiteFile
from suites.attention_cost.masking_verdict import MASKING, masking_finding
from suites.attention_cost.tables import cases, slope_rows, with_cases
from variants.kernel import kernels

PUBLISHED = (
    "FlashAttention (Dao et al. 2022, arXiv 2205.14135) is exact attention whose memory grows linearly in sequence "
    "length, where materialising the score matrix grows quadratically. On a 2-core CPU this project measured PyTorch's "
    "fused SDPA kernel at ~69% of the fp32 matmul peak non-causal and ~59% causal at 4096 tokens (forward, 8 heads, "
    "d 64): a regression check on the kernel and build, not a published figure."
)

#: the published findings this suite tests, in the order its report states them (suite.yaml)
MEMORY, PEAK = SuiteFile.of(__file__).claims("fused_attention_linear_memory", "sdpa_share_of_peak")
CLAIMS = (MEMORY, PEAK, MASKING)
#: memory slopes (log peak on log length): a fused kernel's below LINEAR, naive's above QUADRATIC. For a peak
#: a T + b T^2 fitted over 1024-4096 tokens, a slope of 1.2 leaves at most a third of the peak at 4096 to the (T, S)
#: term and 1.7 at least four fifths; peak bytes are the allocator's count, the same for every seed, so one seed
#: suffices and the margin is about the model of growth, not noise
LINEAR, QUADRATIC = 1.2, 1.7
#: the share of the matmul peak this project measured earlier at 4096 tokens (docs/references.md), per mask
EARLIER = {False: 69.0, True: 59.0}
#: the interquartile range of a normal sample is this many standard deviations (a timing's IQR / median -> its sd)
IQR_SDS = 1.349


NO_PAIRS = "These records lack the naive and SDPA pairs needed for a comparison."


def findings(df: pd.DataFrame) -> list[Finding]:
    """This suite's verdicts on FlashAttention's linear memory, the check of SDPA's share of the matmul peak and the
    masking check."""
    masking = masking_finding(df)
    df = with_cases(df)
    lengths, keys, reference = cases(df)
    return verdicts(df, slope_rows(df, keys)[1], reference, lengths) + [masking]


def verdicts(df, slopes, reference, lengths) -> list[Finding]:
    """The findings from numbers the report has already computed (its slopes, references and lengths)."""
    return [_memory_finding(df, slopes, reference, lengths), _peak_finding(df)]


def kernel_of(df: pd.DataFrame, variant: str) -> str:
    """The kernel a variant ran (from its records' spec; else the name before the first '+')."""
    if "kernel" in df and len(df) and (df.variant == variant).any():
        return str(df[df.variant == variant].kernel.iloc[0])
    return variant.split("+")[0]


def fused(kernel: str) -> bool:
    """Whether a kernel streams over key blocks instead of materialising the (T, S) scores (unregistered: assumed fused)."""
    return not (kernel in kernels.names() and kernels.get(kernel).materialises_scores)


def _slope_verdict(mine: float, theirs: float) -> str:
    """Linear (below LINEAR) where naive is quadratic (above QUADRATIC) agrees; quadratic like naive disagrees."""
    if theirs <= QUADRATIC:
        return "inconclusive"  # the reference does not grow quadratically: nothing to contrast
    if mine < LINEAR:
        return "agrees"
    return "disagrees" if mine > QUADRATIC else "inconclusive"


def _memory_finding(df, slopes, reference, lengths) -> Finding:
    """Each fused kernel's forward peak memory grows about linearly (slope < LINEAR) where naive attention of the same
    heads grows quadratically (> QUADRATIC), for the full and the causal mask; kernels that materialise the scores by
    design (naive, sdpa_math) are the quadratic reference and are not judged."""
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
        label = _slope_verdict(mine, theirs)
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
    parts += _speed_sentences(df, reference, lengths)
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
        MEMORY,
        verdict,
        " ".join(parts),
        estimates,
        seeds,
        cause=cause,
        over_seeds=False,
        headline=steepest,
        boundary=LINEAR,
    )


def _speed_sentences(df, reference, lengths) -> list[str]:
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
                a, b = _value(lat, ref, causal, x), _value(lat, variant, causal, x)
                ma, mb = _value(mem, ref, causal, x), _value(mem, variant, causal, x)
                parts.append(
                    f"At {int(x)} tokens ({'causal' if causal else 'full'} forward, the longest both timed) "
                    f"`{variant}` takes {b:.1f} ms and {mb:.1f} MiB against {a:.1f} ms and {ma:.1f} MiB for `{ref}` "
                    f"({a / b:.1f}x faster, {ma / mb:.0f}x less memory)."
                )
    return parts


def share_tolerance(df: pd.DataFrame, causal: bool, x: float) -> float | None:
    """The relative tolerance (%) of SDPA's share against the earlier one, from this run's timing repeats: the share
    is useful FLOPs / SDPA's median latency / the matmul peak, so its relative sd per run is the two timings'
    relative sds in quadrature (each its IQR / median over IQR_SDS); the earlier run is taken to be as noisy
    (sqrt 2), and a change counts beyond MARGIN_SDS of that sd. None where the records hold no timing repeats."""
    lat = (
        df[
            (df.metric == "latency")
            & (df.status == "ok")
            & (df["pass"] == "fwd")
            & (df.kernel == "sdpa")
            & (df.grouping == "MHA")
            & (df.x == x)
            & (df.causal == causal)
        ]
        if "extra" in df
        else df.iloc[0:0]
    )
    noise = [e.get("noise") for e in lat.extra if isinstance(e, dict) and e.get("noise") is not None]
    # the matmul peak of the same jobs: the best size's repeats set its noise
    peaks = df[(df.metric == "matmul_peak") & (df.status == "ok") & df.variant.isin(set(lat.variant))]
    peak_noise = [
        min(sizes.values(), key=lambda d: -d["flops_per_s"]).get("noise", 0.0)
        for e in peaks.extra
        if isinstance(e, dict) and (sizes := e.get("sizes"))
    ]
    if not noise:
        return None
    sd_latency = max(noise) / IQR_SDS  # (T,) timings of one call: their relative sd
    sd_peak = (max(peak_noise) if peak_noise else 0.0) / IQR_SDS
    return 100.0 * MARGIN_SDS * math.sqrt(2.0) * math.hypot(sd_latency, sd_peak)


def _peak_finding(df) -> Finding:
    """A regression check: SDPA's forward FLOP/s share of the matmul peak at 4096 tokens, per mask, is within a
    relative tolerance of the share this project measured earlier, the tolerance set from this run's timing noise
    (``share_tolerance``); both masks must hold."""
    parts, labels, estimates, causes, bounds = [], [], [], [], []
    frac = df[
        (df.metric == "peak_fraction")
        & (df.status == "ok")
        & (df["pass"] == "fwd")
        & (df.kernel == "sdpa")
        & (df.grouping == "MHA")
    ]
    if len(frac):
        x = frac.x.max()
        for causal, earlier in EARLIER.items():
            sel = frac[(frac.x == x) & (frac.causal == causal)]
            if not len(sel):
                continue
            got = sel.value.mean()
            mask = "causal" if causal else "non-causal"
            tolerance = share_tolerance(df, causal, x)
            change = 100.0 * (got / earlier - 1.0)
            if got > 100:
                said = "above 100%, so this run's peak is not trustworthy (the machine's load changed between the two)."
                labels.append("inconclusive")
                causes.append(
                    f"the {mask} share is over 100%: the matmul peak and SDPA were timed under different loads."
                )
            elif x != 4096:
                said = "measured at a different length, so not comparable."
                labels.append("inconclusive")
                causes.append(f"the longest length timed is {int(x)}, not the 4096 of the earlier measurement.")
            elif tolerance is None:
                said = "no timing repeats recorded to set a tolerance from."
                labels.append("inconclusive")
                causes.append(f"the records hold no timing repeats of SDPA's {mask} call to set the tolerance from.")
            else:
                close = abs(change) <= tolerance
                said = (
                    f"{change:+.1f}% relative, {'within' if close else 'beyond'} the {tolerance:.1f}% this run's "
                    f"timing noise allows."
                )
                labels.append("agrees" if close else "disagrees")
                if not close:
                    causes.append(
                        f"the {mask} share {got:.1f}% is {change:+.1f}% from the earlier {earlier:g}%, beyond "
                        f"the {tolerance:.1f}% tolerance set from this run's timing repeats."
                    )
            bounds.append(math.copysign(tolerance, change) if tolerance is not None else 0.0)
            estimates.append(
                Estimate(
                    f"SDPA share of the measured matmul peak against the earlier {earlier:g}%, {mask}, {int(x)} tokens",
                    change,
                    unit="%",
                    seeds=int(sel.seed.nunique()),
                )
            )
            parts.append(
                f"SDPA reaches {got:.1f}% of the measured matmul peak at {int(x)} tokens {mask} forward against "
                f"~{earlier:g}% measured earlier by this project at 4096 tokens: {said}"
            )
    verdict = all_hold(labels)
    # the mask the verdict turns on: the first that fails, else the one farthest from its earlier share
    failing = [i for i, label in enumerate(labels) if label != "agrees"]
    head = failing[0] if failing else max(range(len(estimates)), key=lambda i: abs(estimates[i].value), default=0)
    return finding(
        PEAK,
        verdict,
        " ".join(parts),
        estimates,
        cause=causes[0] if causes and verdict != "agrees" else "",
        over_seeds=False,
        headline=head,
        boundary=bounds[head] if bounds else 0.0,
    )


def _has(frame, variant, causal, x) -> bool:
    return bool(
        len(frame[(frame.variant == variant) & (frame.causal == causal) & (frame.x == x) & (frame["pass"] == "fwd")])
    )


def _value(frame, variant, causal, x) -> float:
    sel = frame[(frame.variant == variant) & (frame.causal == causal) & (frame.x == x) & (frame["pass"] == "fwd")]
    return float(sel.value.mean()) if len(sel) else math.nan
