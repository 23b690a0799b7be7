"""The position_extrapolation verdict: Press et al. 2022's ALiBi extrapolating where sinusoidal does not."""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List

import pandas as pd

from harness.findings import Estimate, Finding, finding
from harness.suite_file import SuiteFile
from harness.report_kit import fmt_mean_ci, mean_ci
from suites.position_extrapolation import rope_extension_report as extension
from suites.position_extrapolation.tables import Shape

PUBLISHED = (
    "Press et al. 2022 (arXiv 2108.12409, WikiText-103, L=512, non-overlapping windows) report ALiBi flat or "
    "improving past the training length (perplexity 19.73 at L, 18.73 at ~2L, 18.40 at ~7L) while sinusoidal "
    "rises steeply (20.05, 43.54, 178.97) and rotary in between (20.07, 21.37, 35.54)."
)
EXTRAPOLATION, = SuiteFile.of(__file__).claims("alibi_extrapolates")
#: the published findings this suite tests, in the order its report states them (suite.yaml)
CLAIMS = (EXTRAPOLATION,) + extension.CLAIMS
#: the published shape: ALiBi's ppl(8L)/ppl(L) at most FLAT, sinusoidal's at least RISES
FLAT, RISES = 1.15, 2.0


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts from one group of records: Press et al.'s finding, then the RoPE-extension statements."""
    return [extrapolation_finding(df)] + extension.verdicts(df, int(df.iloc[0].profile_settings["train_len"]))


def extrapolation_finding(df: pd.DataFrame) -> Finding:
    """The verdict on Press et al.'s finding, with the variants left out and why."""
    shape = Shape(df)
    found = verdict(shape.ratios, shape.comparable, set(shape.kept))
    if shape.left_out and found.sentence:
        found = replace(found, sentence=found.sentence + " " + shape.left_out)
    return found


def verdict(ratios: Dict[str, List[float]], comparable: set, learned: set) -> Finding:
    """Agrees when ALiBi's ppl(8L)/ppl(L) is at most FLAT and sinusoidal's at least RISES; disagrees when ALiBi
    rises past FLAT or does not stay below sinusoidal.

    Both must come from models that learned and did not memorise; ALiBi must also be comparable at L (within
    NOT_COMPARABLE of the best), since a flat curve from a weaker model is not extrapolation. A rising curve
    needs no such condition: a weaker model would flatten it, not steepen it.
    """
    estimates = [Estimate.of(f"{name} ppl(8L)/ppl(L)", ratios[v]) for v, name in (("alibi", "ALiBi"), ("sinusoidal", "sinusoidal"))
                 if ratios.get(v)]
    absent = [v for v in ("alibi", "sinusoidal") if not ratios.get(v)]
    missing = [f"`{v}` {why}" for v, ok, why in (
        ("alibi", "alibi" in comparable, "did not learn, memorised or is not comparable at L"),
        ("sinusoidal", "sinusoidal" in learned, "did not learn or memorised")) if not ok]
    missing += [f"`{v}` lacks results at L and 8L" for v in absent]
    if missing:
        return finding(EXTRAPOLATION, "not run" if absent else "inconclusive",
                       "This run cannot be compared: " + "; ".join(missing) + " (see above).", estimates)
    a, s = (mean_ci(ratios[v]) for v in ("alibi", "sinusoidal"))
    shown = (f"Here ppl(8L)/ppl(L) is {fmt_mean_ci(ratios['alibi'])} for ALiBi and {fmt_mean_ci(ratios['sinusoidal'])} "
             f"for sinusoidal")
    if a[0] <= FLAT and s[0] >= RISES:
        return finding(EXTRAPOLATION, "agrees", shown + f": this run **agrees** (ALiBi within {FLAT - 1:.0%} of flat, "
                       f"sinusoidal at least {RISES:g}x).", estimates)
    if a[0] > FLAT or s[0] <= a[0]:
        return finding(EXTRAPOLATION, "disagrees", shown + ": this run **disagrees** (" + (
            f"ALiBi rises more than {FLAT - 1:.0%}." if a[0] > FLAT else "sinusoidal does not rise more than ALiBi.") + ")",
            estimates)
    return finding(EXTRAPOLATION, "inconclusive", shown + (
        f": **inconclusive** (ALiBi stays flat, but sinusoidal rises less than {RISES:g}x, short of the published blow-up)."),
        estimates)
