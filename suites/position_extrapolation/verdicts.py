"""The position_extrapolation verdict: Press et al. 2022's ALiBi extrapolating where sinusoidal does not.

Its estimates are positive ratios ppl(8L)/ppl(L) ("log", harness/intervals.py) and their changes from 1 in %,
whose intervals are the log-scale intervals of the ratios (they stay above -100%).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pandas as pd

from harness.findings import Estimate, Finding, finding
from harness.paired import all_hold
from harness.report_kit import fmt_mean_ci
from harness.suite_file import SuiteFile
from suites.position_extrapolation import rope_extension_report as extension
from suites.position_extrapolation import window_quality, window_span
from suites.position_extrapolation.rules import change, from_one, lower, rises_by, said, stays_within
from suites.position_extrapolation.tables import Shape

PUBLISHED = (
    "Press et al. 2022 (arXiv 2108.12409, WikiText-103, L=512, non-overlapping windows) report ALiBi flat or "
    "improving past the training length (perplexity 19.73 at L, 18.73 at ~2L, 18.40 at ~7L) while sinusoidal "
    "rises steeply (20.05, 43.54, 178.97) and rotary in between (20.07, 21.37, 35.54)."
)
(EXTRAPOLATION,) = SuiteFile.of(__file__).claims("alibi_extrapolates")
#: the published findings this suite tests, in the order its report states them (suite.yaml)
CLAIMS = (EXTRAPOLATION,) + extension.CLAIMS + (window_span.SPAN, window_quality.QUALITY)
#: the published shape: ALiBi's ppl(8L) at most FLAT% above its ppl(L) (flat), sinusoidal's more than that (not flat)
FLAT = 15.0


def findings(df: pd.DataFrame) -> list[Finding]:
    """This suite's verdicts from one group of records: Press et al.'s finding, the RoPE-extension statements, then the
    stacked-window check and what a window costs at L."""
    train_len = int(df.iloc[0].profile_settings["train_len"])
    return (
        [extrapolation_finding(df)]
        + extension.verdicts(df, train_len)
        + [window_span.window_finding(df), window_quality.quality_finding(df, train_len)]
    )


def extrapolation_finding(df: pd.DataFrame) -> Finding:
    """The verdict on Press et al.'s finding, with the variants left out and why."""
    shape = Shape(df)
    ratios = {
        v: {seed: shape.at_8l[v][seed] / at_l[seed] for seed in at_l if seed in shape.at_8l.get(v, {})}
        for v, at_l in shape.at_l.items()
    }
    found = verdict(ratios, shape.comparable, set(shape.kept))
    if shape.left_out and found.sentence:
        found = replace(found, sentence=found.sentence + " " + shape.left_out)
    return found


def _by_seed(values: Sequence[float] | Mapping[int, float] | None) -> dict[int, float]:
    """seed -> value; a list is taken as seeds 0, 1, ... in order."""
    if not values:
        return {}
    return dict(values) if isinstance(values, Mapping) else dict(enumerate(values))


def verdict(ratios: Mapping[str, Sequence[float] | Mapping[int, float]], comparable: set, learned: set) -> Finding:
    """Three comparisons paired over seeds (rules.py) on ppl(8L)/ppl(L), all of which must agree: ALiBi's within
    FLAT% of 1 (or below: flat), sinusoidal's at least FLAT% above 1 (not flat), and ALiBi's below sinusoidal's.

    ``ratios``: variant -> per-seed ppl(8L)/ppl(L) (seed -> value, or a list in seed order). Both must come from
    models that learned and did not memorise; ALiBi must also be comparable at L (within NOT_COMPARABLE of the
    best), since a flat curve from a weaker model is not extrapolation. A rising curve needs no such condition: a
    weaker model would flatten it, not steepen it.
    """
    by = {v: _by_seed(ratios.get(v)) for v in ("alibi", "sinusoidal")}
    absent = [v for v in ("alibi", "sinusoidal") if not by[v]]
    missing = [
        f"`{v}` {why}"
        for v, ok, why in (
            ("alibi", "alibi" in comparable, "did not learn, memorised or is not comparable at L"),
            ("sinusoidal", "sinusoidal" in learned, "did not learn or memorised"),
        )
        if not ok
    ]
    missing += [f"`{v}` lacks results at L and 8L" for v in absent]
    estimates = [
        Estimate.of(f"{name} ppl(8L)/ppl(L)", by[v].values(), kind="log")
        for v, name in (("alibi", "ALiBi"), ("sinusoidal", "sinusoidal"))
        if by[v]
    ]
    if missing:
        return finding(
            EXTRAPOLATION,
            "not run" if absent else "inconclusive",
            "This run cannot be compared: " + "; ".join(missing) + " (see above).",
            estimates,
            cause="" if absent else "; ".join(missing) + ", so the comparison is not made.",
        )
    flat = from_one("ALiBi ppl(8L) vs ppl(L)", by["alibi"])
    rise = from_one("sinusoidal ppl(8L) vs ppl(L)", by["sinusoidal"])
    apart = change("ALiBi vs sinusoidal ppl(8L)/ppl(L)", by["alibi"], by["sinusoidal"])
    words = {
        f"ALiBi within {FLAT:g}% of flat": stays_within(flat, FLAT),
        f"sinusoidal more than {FLAT:g}% above flat": rises_by(rise, FLAT),
        "ALiBi below sinusoidal": lower(apart),
    }
    word = all_hold(words.values())
    # the headline: the part the verdict turns on (the first that does not agree), with the threshold it must clear
    parts = [(flat, FLAT), (rise, FLAT), (apart, 0.0)]
    deciding = next((i for i, w in enumerate(words.values()) if w != "agrees"), 0)
    shown = (
        f"Here ppl(8L)/ppl(L) is {fmt_mean_ci(by['alibi'].values(), kind='log')} for ALiBi ({said(flat)}) and "
        f"{fmt_mean_ci(by['sinusoidal'].values(), kind='log')} for sinusoidal ({said(rise)}), paired over seeds"
    )
    failed = [k for k, w in words.items() if w != "agrees"]
    if word == "agrees":
        sentence = (
            shown
            + f": this run **agrees** (ALiBi within {FLAT:g}% of flat, sinusoidal rising past it, ALiBi below sinusoidal)."
        )
    else:
        sentence = (
            shown
            + f": {'this run **disagrees**' if word == 'disagrees' else '**inconclusive**'} (not shown: {', '.join(failed)})."
        )
    cause = (
        ""
        if word == "agrees"
        else (
            f"Of Press et al.'s shape this run does not show {', '.join(failed)} "
            f"(ALiBi {said(flat)}, sinusoidal {said(rise)})."
        )
    )
    cause += "".join(f" {d.estimate.label}: {d.why()}." for d, _ in parts if d.no_verdict)
    return finding(
        EXTRAPOLATION,
        word,
        sentence,
        estimates + [d.estimate for d, _ in parts],
        cause=cause.strip(),
        headline=len(estimates) + deciding,
        boundary=parts[deciding][1],
    )
