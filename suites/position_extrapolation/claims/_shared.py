"""What position_extrapolation's claims read: the records with L and the learning checks, ALiBi's and sinusoidal's
per-seed ppl(8L)/ppl(L), the rules every statement is judged by, the RoPE extensions' readers, and the published
texts the report prints.

The rules are paired over seeds (harness/paired.py), magnitude-aware and directional. Every statement compares
per-seed perplexities of one trained model (the same seed's weights), as a relative change in %: ``change``, whose
interval is the log-scale interval of the per-seed ratios (perplexities are positive: it stays above -100%). Three
shapes of statement:

- ``rises_by(diff, pct)``: "rises by at least pct%" (plain RoPE blows up, sinusoidal does not extrapolate, PI
  costs at short lengths): the one-sided test of the mean change against pct (harness.paired.reaches): agrees when
  the whole interval lies above pct (the finding's boundary); disagrees when it lies wholly below pct; otherwise
  inconclusive.
- ``stays_within(diff, pct)``: "stays close" (ALiBi flat, NTK-aware close): agrees when the interval's upper end is
  at most pct (a fall is close too); disagrees when its lower end is above pct; otherwise inconclusive.
- ``lower(diff)``: "lower than" (YaRN against PI and NTK-aware), harness.paired.directional.

Each rule returns a harness.paired.Verdict carrying its one-sided p-values, so a statement made of several parts
(ALiBi flat *and* sinusoidal rising) is their conjunction, harness.paired.all_hold, whose "disagrees" is held at
5% across the parts (Holm).

One seed (the quick profile, `make run`) has no interval: its "interval" is the value widened by the margin
calibrated for that very quantity from the standard profile's seeds (margins.py; ``Difference.ends``), and a
quantity without one gives no verdict ("1 seed: no verdict"). At two seeds or more no margin applies.

The estimates are positive ratios (ppl(8L)/ppl(L): "log", harness/intervals.py) and their changes in %, whose
intervals are the log-scale intervals of the ratios.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run
from harness.paired import Difference, Verdict, directional, not_worse, p_against, paired, reaches
from suites.common.learning import LearningCheck
from suites.position_extrapolation.margins import margin_of
from suites.position_extrapolation.rope_extension import extension_variants, scaling_of
from suites.position_extrapolation.tables import Shape, ppl_by_seed
from suites.position_extrapolation.tuning import JUDGED_MULTIPLIER

PUBLISHED = (
    "Press et al. 2022 (arXiv 2108.12409, WikiText-103, L=512, non-overlapping windows) report ALiBi flat or "
    "improving past the training length (perplexity 19.73 at L, 18.73 at ~2L, 18.40 at ~7L) while sinusoidal "
    "rises steeply (20.05, 43.54, 178.97) and rotary in between (20.07, 21.37, 35.54)."
)
EXTENSION_PUBLISHED = (
    "Published shape without fine-tuning (Chen et al. 2023, arXiv 2306.15595; Peng et al. 2023, arXiv "
    "2309.00071): plain RoPE blows up past L; PI raises perplexity at short lengths; NTK-aware scaling keeps "
    "perplexity close to its value at L up to a few times L; YaRN does better past L than PI and NTK-aware."
)
#: the sentence of every RoPE-extension claim the run tests when plain rope did not learn (said once in the report)
UNLEARNED = "No verdict on RoPE extension: plain `rope` did not learn or memorised (see above)."


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: every record of the group
    records: pd.DataFrame
    #: the records of finished jobs
    ok: pd.DataFrame
    #: the training length L, in characters
    train_len: int
    #: variant -> whether it learned at L and did not memorise
    checks: dict[str, LearningCheck]
    #: variant -> seed -> ppl(8L)/ppl(L)
    ratios: dict[str, dict[int, float]]
    #: the variants that learned and are within NOT_COMPARABLE of the best perplexity at L (tables.py)
    comparable: set[str]
    #: the variants that learned and did not memorise
    learned: set[str]
    #: a sentence on the variants left out and why ('' when none is)
    left_out: str
    #: variant -> spec, for every variant with a RoPE scaling (rope_extension.py)
    scaled: dict[str, dict]
    #: scaling name -> the variant its claims judge (``first_by_scaling``)
    by_name: dict[str, str]


def prepare(records: pd.DataFrame, train_len: int | None = None) -> Evidence:
    """The evidence of one group of records; ``train_len``: L, by default the records' profile setting."""
    if train_len is None:
        train_len = int(records.iloc[0].profile_settings["train_len"])
    shape = Shape(records, train_len)
    ratios = {
        v: {seed: shape.at_8l[v][seed] / at_l[seed] for seed in at_l if seed in shape.at_8l.get(v, {})}
        for v, at_l in shape.at_l.items()
    }
    ok = records[records.status == "ok"]
    scaled = extension_variants(records)
    kept, comparable, left_out = set(shape.kept), shape.comparable, shape.left_out
    by_name = first_by_scaling(scaled)
    return Evidence(records, ok, int(train_len), shape.checks, ratios, comparable, kept, left_out, scaled, by_name)


# --- the rules ------------------------------------------------------------------------------------------------


def change(label: str, a: dict[int, float], b: dict[int, float]) -> Difference:
    """The per-seed relative change (a - b) / b in %, over the seeds both have; ``label`` names the quantity, whose
    calibrated margin (margins.py) judges it at one seed."""
    return paired(label, a, b, unit="%", margin=margin_of(label), relative=True)


def from_one(label: str, ratios: dict[int, float]) -> Difference:
    """The per-seed change of a ratio (ppl(8L)/ppl(L)) from 1, in %, judged by its interval (or a margin) alone: the
    ratio already pairs its two arms within each seed, so there are no arm ranges to separate."""
    seeds = sorted(ratios)
    values = tuple(float(ratios[s]) for s in seeds)
    return Difference(Estimate.change(label, values), values, values, margin_of(label))


def _negated(diff: Difference) -> Difference:
    """``diff`` negated: its value and its interval's ends negated (and swapped), its seeds and margin as they are."""
    e = diff.estimate
    low, high = (None if e.high is None else -e.high), (None if e.low is None else -e.low)
    return Difference(replace(e, value=-e.value, low=low, high=high), diff.a, diff.b, diff.margin)


def rises_by(diff: Difference, pct: float) -> Verdict:
    """The verdict on "a is at least pct% above b": the one-sided test of the mean change against pct
    (harness.paired.reaches: agrees when the whole interval lies above pct, disagrees when wholly below, each 2.5% of
    the time at a true change of exactly pct); at one seed, the value widened by its calibrated margin instead
    (harness.paired.not_worse on the negated difference), with no p-value behind it."""
    if diff.seeds == 0:
        return Verdict("not run")
    if diff.one_seed:
        return not_worse(_negated(diff), -pct)
    return reaches(diff.estimate, pct)


def stays_within(diff: Difference, pct: float) -> Verdict:
    """The verdict on "a is at most pct% above b" (lower is within too): harness.paired.not_worse."""
    return Verdict("not run") if diff.seeds == 0 else not_worse(diff, pct)


def lower(diff: Difference) -> Verdict:
    """The verdict on "a is lower than b"."""
    return Verdict("not run") if diff.seeds == 0 else directional(diff, -1)


def deciding_part(word: str, words: list[str]) -> int:
    """The index of the part a conjunction's verdict turns on: where it disagrees, the disagreeing part with the
    strongest evidence against the claim (the smallest one-sided p against it); otherwise the first part that does
    not agree (0 when every part agrees)."""
    if word == "disagrees":
        refuting = [i for i, w in enumerate(words) if w == "disagrees"]
        if refuting:
            return min(refuting, key=lambda i: _or_inf(p_against(words[i])))
    return next((i for i, w in enumerate(words) if w != "agrees"), 0)


def short_of_holm(word: str, words: list[str]) -> str:
    """'' unless a part disagrees on its own while the conjunction does not: then why (the parts held at 5% together,
    harness.paired.all_hold), for a cause."""
    if word == "disagrees" or "disagrees" not in words:
        return ""
    return (
        f"; a part's own interval excludes its boundary, but not at the level the conjunction of {len(words)} parts "
        "holds its refutation to (Holm across the parts)"
    )


def _or_inf(p: float) -> float:
    return math.inf if math.isnan(p) else p


def said(diff: Difference) -> str:
    """'+52% [13, 91] over 3 seeds' for a sentence ('+52% (1 seed, margin ±30)' or '(1 seed: no verdict)' at one)."""
    e = diff.estimate
    if diff.one_seed:
        why = f"1 seed, calibrated margin ±{diff.margin:.0f}" if diff.margin is not None else diff.why()
        return f"{e.value:+.0f}% ({why})"
    interval = "" if e.low is None else f" [{e.low:+.0f}, {e.high:+.0f}]"
    return f"{e.value:+.0f}%{interval} over {diff.seeds} seed(s)"


def says(verdict: str) -> str:
    """'this run **agrees**', or '**inconclusive**'."""
    return "**inconclusive**" if verdict == "inconclusive" else f"this run **{verdict}**"


# --- the RoPE extensions ----------------------------------------------------------------------------------------


def unjudged(ev: Evidence, claim: Claim, scaling: str | None = None) -> Finding | None:
    """The finding of a RoPE-extension claim these records cannot judge, or None when they can: not run without plain
    ``rope`` (nothing extends it); when plain rope did not learn or memorised, no verdict on a claim the run tests
    (every claim about the RoPE ``scaling`` it has a variant of; ``scaling`` None: a claim about plain rope) and not
    run on the others."""
    if "rope" not in ev.checks:
        return not_run(claim)
    if ev.checks["rope"].usable:
        return None
    if scaling is not None and scaling not in {scaling_of(spec) for spec in ev.scaled.values()}:
        return not_run(claim)
    why = "plain `rope` did not learn or memorised, so no extension of it can be judged."
    return finding(claim, "inconclusive", UNLEARNED, cause=why)


def first_by_scaling(scaled: dict[str, dict]) -> dict[str, str]:
    """scaling name -> the first variant (by name) with it and ``auto`` s (a run with rope+yarn and rope+yarn4 is judged
    on rope+yarn); fixed-s variants count when no auto one exists."""
    out: dict[str, str] = {}
    for v, spec in sorted(scaled.items(), key=lambda kv: (str(kv[1].get("rope_scale", "auto")) != "auto", kv[0])):
        out.setdefault(scaling_of(spec), v)
    return out


def fixed_pi(scaled: dict[str, dict]) -> str | None:
    """The first PI variant (by name) with a fixed s > 1 (``rope+pi2``), or None."""
    fixed = [
        v
        for v, spec in sorted(scaled.items())
        if scaling_of(spec) == "pi" and str(spec.get("rope_scale", "auto")) != "auto" and float(spec["rope_scale"]) > 1
    ]
    return fixed[0] if fixed else None


def ppl(ev: Evidence, variant: str, x: float) -> dict[int, float]:
    """seed -> perplexity of ``variant`` at ``x`` x L."""
    return ppl_by_seed(ev.ok, variant, x * ev.train_len)


def tuned_at(ok: pd.DataFrame, v: str) -> list[float]:
    """The lengths ``v``'s free parameters were chosen at, from its ``validation_loss`` records (sorted; [] without)."""
    rows = ok[(ok.variant == v) & (ok.metric == "validation_loss")]
    if "extra" not in rows:
        return []
    return sorted({float(e["eval_length"]) for e in rows.extra if isinstance(e, dict) and "eval_length" in e})


def mistuned(ev: Evidence, variants: list[str]) -> str:
    """Why the records cannot judge ``variants`` at JUDGED_MULTIPLIER x L, a free parameter chosen at another length,
    as a verdict's cause ('' when every one was chosen there or has none)."""
    L = float(ev.train_len)
    judged = JUDGED_MULTIPLIER * L
    wrong = [(v, [x for x in tuned_at(ev.ok, v) if x != judged]) for v in variants]
    why = "; ".join(
        f"`{v}`'s free parameters were chosen on validation text at "
        f"{', '.join(f'{x / L:g}L' for x in xs)}, not at the judged {JUDGED_MULTIPLIER}L"
        for v, xs in wrong
        if xs
    )
    if not why:
        return ""
    return (
        f"{why[0].upper()}{why[1:]}, so these records cannot judge it: more seeds of them cannot "
        f"help; a rerun tuned at {JUDGED_MULTIPLIER}L (3 seeds) would."
    )


def params(ok: pd.DataFrame, v: str) -> str:
    """', alpha 1, beta 32 chosen on validation (seed 0)' from the records' ``rope_params``, or ''."""
    if "rope_params" not in ok:
        return ""
    chosen = ok[(ok.variant == v)].drop_duplicates("seed")
    texts = sorted({", ".join(f"{k} {p[k]:g}" for k in p) for p in chosen.rope_params if isinstance(p, dict)})
    return f"; chosen on validation text: {' / '.join(texts)}" if texts else ""
