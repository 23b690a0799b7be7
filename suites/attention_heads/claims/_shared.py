"""What attention_heads' claims read: the per-head records of the models that learned and did not memorise, their
specialised heads and entropy trends per (variant, seed) (tables.py), and the per-family count of specialised heads
both specialist claims state.

The kinds of estimate (harness/intervals.py): heads of a kind per model are counts, shown with their range over
seeds; a head's largest share of attention lies in [0, 1]; the lower-minus-upper-half entropy is a difference ("t").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run
from harness.report_kit import fmt_mean_ci, in_order
from suites.attention_heads.tables import (
    MIN_OFFSET,
    ORDER,
    SPECIALIST,
    entropy_trends,
    heads_frame,
    job_values,
    specialists,
)
from suites.common.learning import learning_checks, usable

#: a family has such heads when every seed's model has one (HAVE), lacks them when no seed's model has (LACK), and
#: otherwise has them in some seeds only (SOME); the claims' verdicts are read from these outcomes
HAVE, LACK, SOME = "have", "lack", "some"


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: the per-head records of the variants that learned and did not memorise
    heads: pd.DataFrame
    #: per (variant, seed): its specialised heads (tables.specialists; empty without heads)
    table: pd.DataFrame
    #: per (variant, seed): its entropy by layer (tables.entropy_trends; empty without heads)
    trends: pd.DataFrame
    #: ' <the variants left out and why>', or ''
    note: str
    #: why no claim can be judged (no model that learned has per-head records), or ''
    why_not: str


def prepare(df: pd.DataFrame) -> Evidence:
    checks = learning_checks(df, "loss")
    kept, left_out = usable(checks)
    heads = heads_frame(df)
    heads = heads[heads.variant.isin(kept)]
    if not len(heads):
        why = "No model that learned has per-head records" + (f" ({left_out})" if left_out else "") + "."
        return Evidence(heads, pd.DataFrame(), pd.DataFrame(), "", why)
    table = specialists(heads, job_values(df, "delimiter_base"))
    return Evidence(heads, table, entropy_trends(heads), f" {left_out}" if left_out else "", "")


@dataclass(frozen=True)
class Specialists:
    """What a run shows of one kind of specialised head, per model family (position encoding)."""

    #: HAVE when some family has such heads in every seed, LACK when no family's model has one, else SOME
    outcome: str
    sentence: str
    cause: str
    estimates: list[Estimate]
    #: the estimate of the family with the most such heads: the evidence for "some heads"
    headline: int


def specialist_finding(
    claim: Claim, ev: Evidence, verdicts: dict[str, str], column: str, largest: str, kind: str
) -> Finding:
    """The finding on ``claim`` from the per-family count of heads of ``kind`` (``specialist_heads``), its verdict the
    claim's own for the outcome (``verdicts``: HAVE, LACK, SOME -> verdict); not run without per-head records."""
    if ev.why_not:
        return not_run(claim, ev.why_not)
    found = specialist_heads(ev, column, largest, kind)
    return finding(
        claim, verdicts[found.outcome], found.sentence, found.estimates, cause=found.cause, headline=found.headline
    )


def specialist_heads(ev: Evidence, column: str, largest: str, kind: str) -> Specialists:
    """An existential claim ("some heads ..."), stated per model family: a family has such heads when every seed's
    model has at least one, lacks them when no seed's has, has them in some seeds in between. The outcome is HAVE when
    some family has them (the sentence names which), LACK when every family lacks them, SOME otherwise."""
    table = ev.table
    variants = in_order(table.variant.unique(), ORDER)
    per_family = {v: _family(table[table.variant == v][column]) for v in variants}
    estimates = [Estimate.of(f"{v} {kind} heads", table[table.variant == v][column], kind="count") for v in variants]
    told = _told(table, variants, column, largest, kind)
    # the family with the most such heads is the evidence for "some heads" (the headline of the verdict)
    most = max(
        range(len(estimates)),
        key=lambda i: -math.inf if math.isnan(estimates[i].value) else estimates[i].value,
        default=0,
    )
    have = [v for v in variants if per_family[v] == HAVE]
    lack = [v for v in variants if per_family[v] == LACK]
    if have:
        sentence = (
            f"{told} Every seed's model of {_named(have)} has one: this run **agrees** with "
            f"Clark et al. that some heads specialise in {kind.replace('-', ' ')}s"
            + (f" (in these families; {_named(lack)} have none)." if lack else ".")
        )
        return Specialists(HAVE, sentence + ev.note, "", estimates, most)
    if len(lack) == len(variants):
        sentence = f"{told} No family's model has one: this run **disagrees** with Clark et al."
        cause = f"no model of any position encoding has a {kind} head."
        return Specialists(LACK, sentence + ev.note, cause, estimates, most)
    some = [v for v in variants if per_family[v] == SOME]
    sentence = f"{told} No family has one in every seed ({_named(some)} in some): **inconclusive**."
    cause = f"{kind} heads appear in some seeds only ({_named(some)}), in no family in every seed."
    return Specialists(SOME, sentence + ev.note, cause, estimates, most)


def _told(table: pd.DataFrame, variants: list[str], column: str, largest: str, kind: str) -> str:
    """The counts per family behind the outcome, and for offset heads which offsets count and which were found."""
    counts = ", ".join(
        f"`{v}` {_seeds_with(table[table.variant == v][column])} "
        f"({fmt_mean_ci(table[table.variant == v][column], 1, 'count')} heads, largest share "
        f"{fmt_mean_ci(table[table.variant == v][largest], 2, 'bounded', (0, 1))})"
        for v in variants
    )
    told = (
        f"{kind.capitalize()} heads per model family (seeds with one; heads per model; largest {kind} share): {counts}."
    )
    if column != "offset":
        return told
    found = sorted({d for ds in table.offsets for d in ds})
    return (
        told + f" A head counts when at least {SPECIALIST:.0%} of its attention goes to one offset d >= {MIN_OFFSET} "
        f"(d = 1: the previous token; the query itself, d = 0, does not count; a causal model has no next token)"
        + (f"; those found are at d = {', '.join(str(d) for d in found)}." if found else ".")
        + (
            f" Heads on the query itself, not counted: {int(table.self_heads.sum())} over all seeds."
            if "self_heads" in table and table.self_heads.sum()
            else ""
        )
    )


def _family(counts: pd.Series) -> str:
    """Per seed the number of such heads: every seed has one -> HAVE, none -> LACK, else SOME."""
    if len(counts) and (counts > 0).all():
        return HAVE
    return LACK if not (counts > 0).any() else SOME


def _seeds_with(counts: pd.Series) -> str:
    return f"{int((counts > 0).sum())} of {len(counts)}"


def _named(variants: list[str]) -> str:
    return ", ".join(f"`{v}`" for v in variants)
