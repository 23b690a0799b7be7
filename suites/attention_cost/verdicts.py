"""The attention_cost verdicts: FlashAttention's linear memory (Dao et al. 2022) and SDPA's share of the matmul peak."""

from __future__ import annotations

import math
from typing import List

import pandas as pd

from harness.suite_file import SuiteFile
from harness.findings import Estimate, Finding, finding
from harness.report_kit import combine
from suites.attention_cost.tables import cases, slope_rows, with_cases

PUBLISHED = (
    "FlashAttention (Dao et al. 2022, arXiv 2205.14135) is exact attention whose memory grows linearly in sequence "
    "length, where materialising the score matrix grows quadratically. On a 2-core CPU (REFERENCES.md) PyTorch's "
    "fused SDPA kernel reaches ~69% of the fp32 matmul peak non-causal and ~59% causal at 4096 tokens (forward, 8 "
    "heads, d 64), and at 2048 tokens causal forward takes ~51 ms and ~4 MB against ~367 ms and ~132 MB for the "
    "math path."
)

#: the published findings this suite tests, in the order its report states them (suite.yaml)
MEMORY, PEAK = CLAIMS = SuiteFile.of(__file__).claims("fused_attention_linear_memory", "sdpa_share_of_peak")


NO_PAIRS = "These records lack the naive and SDPA pairs needed for a comparison."


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on FlashAttention's linear memory and the published SDPA share of the matmul peak."""
    df = with_cases(df)
    lengths, keys, reference = cases(df)
    return verdicts(df, slope_rows(df, keys)[1], reference, lengths)


def verdicts(df, slopes, reference, lengths) -> List[Finding]:
    """The findings from numbers the report has already computed (its slopes, references and lengths)."""
    return [_memory_finding(df, slopes, reference, lengths), _peak_finding(df)]


def _memory_finding(df, slopes, reference, lengths) -> Finding:
    """Fused kernels' forward memory grows about linearly (slope < 1.3) where naive's grows quadratically (> 1.7)."""
    parts, agree, estimates = [], [], []
    for (variant, causal, pass_), entry in sorted(slopes.items()):
        if causal or pass_ != "fwd":
            continue
        ref = reference.get(variant)
        if ref is None or ref == variant or (ref, causal, pass_) not in slopes:
            continue
        mine, theirs = entry["peak_memory"], slopes[(ref, causal, pass_)]["peak_memory"]
        if mine is None or theirs is None:
            continue
        agrees = mine < 1.3 and theirs > 1.7
        agree.append(agrees)
        estimates.append(Estimate(f"memory slope {variant} (vs {ref} {theirs:.2f})", mine, seeds=int(df.seed.nunique())))
        parts.append(f"`{variant}`'s forward peak memory grows with slope {mine:.2f} against {theirs:.2f} for `{ref}`"
                     + (" (linear against quadratic: agrees)." if agrees else " (does not show linear against quadratic growth)."))
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
                parts.append(f"At {int(x)} tokens ({'causal' if causal else 'full'} forward, the longest both timed) "
                             f"`{variant}` takes {b:.1f} ms and {mb:.1f} MiB against {a:.1f} ms and {ma:.1f} MiB for `{ref}` "
                             f"({a / b:.1f}x faster, {ma / mb:.0f}x less memory).")
    verdict = combine(["agrees" if a else "disagrees" for a in agree])
    return finding(MEMORY, verdict, " ".join(parts), estimates, int(df.seed.nunique()))


def _peak_finding(df) -> Finding:
    """SDPA's forward FLOP/s share of the matmul peak at 4096 tokens is within 15 points of the published share."""
    parts, labels, estimates = [], [], []
    frac = df[(df.metric == "peak_fraction") & (df.status == "ok") & (df["pass"] == "fwd") & (df.kernel == "sdpa")
              & (df.grouping == "MHA")]
    if len(frac):
        x = frac.x.max()
        for causal, published in ((False, 69), (True, 59)):
            sel = frac[(frac.x == x) & (frac.causal == causal)]
            if len(sel):
                got = sel.value.mean()
                if got > 100:
                    verdict = "above 100%, so this run's peak is not trustworthy (the machine's load changed between the two)."
                    labels.append("inconclusive")
                elif x != 4096:
                    verdict = "measured at a different length, so not comparable."
                    labels.append("inconclusive")
                else:
                    close = abs(got - published) <= 15
                    verdict = "close to it." if close else "not the published share."
                    labels.append("agrees" if close else "disagrees")
                estimates.append(Estimate.of(f"SDPA share of matmul peak, {'causal' if causal else 'non-causal'}, "
                                             f"{int(x)} tokens", sel.groupby("seed").value.mean(), "%"))
                parts.append(f"SDPA reaches {got:.0f}% of the matmul peak at {int(x)} tokens {'causal' if causal else 'non-causal'} "
                             f"forward against ~{published}% published for 4096 tokens: {verdict}")
    verdict = ("not run" if not labels else labels[0] if len(set(labels)) == 1
               else "inconclusive" if "inconclusive" in labels else "disagrees")
    return finding(PEAK, verdict, " ".join(parts), estimates)


def _has(frame, variant, causal, x) -> bool:
    return bool(len(frame[(frame.variant == variant) & (frame.causal == causal) & (frame.x == x) & (frame["pass"] == "fwd")]))


def _value(frame, variant, causal, x) -> float:
    sel = frame[(frame.variant == variant) & (frame.causal == causal) & (frame.x == x) & (frame["pass"] == "fwd")]
    return float(sel.value.mean()) if len(sel) else math.nan
