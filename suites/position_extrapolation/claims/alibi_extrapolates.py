"""ALiBi stays flat past the training length while sinusoidal rises (Press et al. 2022): per-seed ppl(8L)/ppl(L),
paired over seeds."""

from __future__ import annotations

from dataclasses import replace

from harness.claims import declared
from harness.findings import Estimate, Finding, finding
from harness.paired import all_hold
from harness.report_kit import fmt_mean_ci
from suites.position_extrapolation.claims._shared import (
    Evidence,
    change,
    deciding_part,
    from_one,
    lower,
    rises_by,
    said,
    short_of_holm,
    stays_within,
)

CLAIM = declared(__file__)
#: the published shape: ALiBi's ppl(8L) at most FLAT% above its ppl(L) (flat), sinusoidal's more than that (not
#: flat), in %; this project's choice between Press et al.'s two shapes: from L to ~7L their ALiBi falls 7%
#: (19.73 -> 18.40) and their sinusoidal rises ninefold (20.05 -> 178.97)
FLAT = 15.0


def judge(ev: Evidence) -> Finding:
    """Three comparisons paired over seeds on ppl(8L)/ppl(L), all of which must agree: ALiBi's within FLAT% of 1
    (or below: flat), sinusoidal's at least FLAT% above 1 (not flat), and ALiBi's below sinusoidal's.

    Both must come from models that learned and did not memorise; ALiBi must also be comparable at L (within
    NOT_COMPARABLE of the best, tables.py), since a flat curve from a weaker model is not extrapolation. A rising
    curve needs no such condition: a weaker model would flatten it, not steepen it. The sentence names the variants
    left out of the verdicts and why.
    """
    found = _verdict(ev)
    if ev.left_out and found.sentence:
        found = replace(found, sentence=found.sentence + " " + ev.left_out)
    return found


def _verdict(ev: Evidence) -> Finding:
    by = {v: dict(ev.ratios.get(v) or {}) for v in ("alibi", "sinusoidal")}
    absent = [v for v in ("alibi", "sinusoidal") if not by[v]]
    missing = [
        f"`{v}` {why}"
        for v, ok, why in (
            ("alibi", "alibi" in ev.comparable, "did not learn, memorised or is not comparable at L"),
            ("sinusoidal", "sinusoidal" in ev.learned, "did not learn or memorised"),
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
            CLAIM,
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
    deciding = deciding_part(word, list(words.values()))
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
            f"(ALiBi {said(flat)}, sinusoidal {said(rise)}){short_of_holm(word, list(words.values()))}."
        )
    )
    cause += "".join(f" {d.estimate.label}: {d.why()}." for d, _ in parts if d.no_verdict)
    return finding(
        CLAIM,
        word,
        sentence,
        estimates + [d.estimate for d, _ in parts],
        cause=cause.strip(),
        headline=len(estimates) + deciding,
        boundary=parts[deciding][1],
    )
