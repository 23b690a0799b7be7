"""What a sliding window costs in perplexity at the training length, against full attention trained alike.

Longformer (Beltagy et al. 2020, arXiv 2004.05150) and Mistral 7B (Jiang et al. 2023, arXiv 2310.06825) rest on
stacked windows: W keys per layer reach layers x W tokens back, so a window whose stacked span covers the context
should cost little against attending to all of it. Each window model of this suite is trained exactly as ``rope``
(same steps, data, parameters and seeds), so the paired change of its held-out perplexity at L is that cost. The
claim is one-sided (non-inferiority, ``harness.paired.not_worse``): a window that is better, or worse by at most
``MARGIN`` % with its whole interval, costs little; one worse by more than that, counting, costs more.
"""

from __future__ import annotations

import pandas as pd

from harness.findings import Finding, cause_sentence, finding, not_run
from harness.paired import combine_verdicts, not_worse, paired
from harness.suite_file import SuiteFile
from suites.position_extrapolation.window_span import expected_span, ppl_by_seed, window_specs

QUALITY, = SuiteFile.of(__file__).claims("window_costs_little")
#: the most a window may cost in perplexity at L, in % (Vaswani et al.'s d_k 32 -> 16, +3.0%, called a loss there)
MARGIN = 3.0
BASELINE = "rope"


def quality_finding(df: pd.DataFrame, train_len: int) -> Finding:
    """Each window model's perplexity change at L against ``rope``, paired over seeds, judged by ``not_worse``."""
    ok = df[df.status == "ok"]
    specs = window_specs(ok)
    windows = list(specs)
    ppl = ok[ok.metric == "perplexity"]
    base = ppl_by_seed(ppl, BASELINE, float(train_len))
    if not windows or not base:
        return not_run(QUALITY, "This run lacks a sliding-window variant (`rope+window16`, ...) or `rope` beside it.")
    parts, verdicts, estimates, causes = [], [], [], []
    for v in windows:
        spec = specs[v]
        diff = paired(f"{v} Δ ppl at L vs {BASELINE}", ppl_by_seed(ppl, v, float(train_len)), base, relative=True)
        verdict = not_worse(diff, MARGIN)
        verdicts.append(verdict)
        estimates.append(diff.estimate)
        span = expected_span(spec["n_layers"], spec["window"])
        parts.append(f"`{v}` (W = {spec['window']}, span {span} of L - 1 = {train_len - 1}): "
                     f"{diff.estimate.value:+.1f}% {diff.estimate.interval_text()}")
        if verdict == "disagrees":
            causes.append(f"`{v}` costs {diff.estimate.value:+.1f}% ({diff.why()}), more than +{MARGIN:g}%")
        elif verdict == "inconclusive":
            causes.append(f"`{v}`'s interval {diff.estimate.interval_text()} reaches past +{MARGIN:g}% while "
                          f"{diff.why()}")
    verdict = combine_verdicts(verdicts)
    text = (f"A window costs little when its perplexity change at L against `{BASELINE}` trained alike has an upper "
            f"interval end of at most +{MARGIN:g}%: " + "; ".join(parts) + f", over {len(base)} seed(s).")
    cause = cause_sentence(verdict, causes)
    # the headline: the narrowest window, the one most likely to cost something
    narrowest = min(range(len(windows)), key=lambda i: specs[windows[i]]["window"])
    return finding(QUALITY, verdict, text, estimates, cause=cause, headline=narrowest)
