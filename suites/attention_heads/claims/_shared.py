"""What attention_heads' claims read: the per-head records of the models that learned and did not memorise, their
specialised heads and entropy trends per (variant, seed) (tables.py), and the rule both specialist claims state: per
family, the count of specialised heads against the shuffled-position null's (null.py), paired over seeds, and the
existential combination over the families (``some_family``, Holm-held).

The kinds of estimate (harness/intervals.py): heads of a kind per model are shown as counts with their range over
seeds; a family's count over the null's is a paired difference ("t"), as is the lower-minus-upper-half entropy; a
head's largest share of attention lies in [0, 1], its margin over the bar in [-1, 1].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run, unmet
from harness.paired import BRANCH_LEVEL, Difference, Verdict, all_hold, directional, paired, reaches
from harness.report_kit import fmt_mean_ci, in_order
from suites.attention_heads import null
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
class Family:
    """One position encoding's evidence on one kind of specialised head."""

    variant: str
    #: its count of such heads per seed minus the shuffled-position null's, paired over seeds
    excess: Difference
    #: its strongest head's share minus the bar, per seed (negative: no head reaches the bar)
    margin: Estimate
    #: "agrees" (more such heads than the null), "disagrees" (its strongest head stays below the bar) or
    #: "inconclusive", carrying the one-sided p of each (``p_for``: the count's; ``p_against``: the margin's)
    verdict: Verdict


def family_verdict(excess: Difference, margin: Estimate) -> Verdict:
    """A family has such heads when its count exceeds the null's, paired over seeds (directional, one-sided 2.5%);
    it lacks them when its strongest head's share stays below the bar (a one-sided test of the mean over seeds,
    ``reaches``); otherwise inconclusive."""
    has = directional(excess, +1)
    lacks = reaches(margin, 0.0, above=False)
    word = "agrees" if has == "agrees" else "disagrees" if lacks == "agrees" else "inconclusive"
    return Verdict(word, has.p_for, lacks.p_for)


def _flip(v: Verdict) -> Verdict:
    """The verdict on the claim's negation: agrees and disagrees swapped with their p-values."""
    word = {"agrees": "disagrees", "disagrees": "agrees"}.get(str(v), str(v))
    return Verdict(word, getattr(v, "p_against", math.nan), getattr(v, "p_for", math.nan))


def some_family(verdicts: list[Verdict]) -> Verdict:
    """The existential claim over families: agrees when some family has such heads with the families held at 2.5%
    together (Holm: the smallest count p at most 2.5% / k), disagrees when every family lacks them (an
    intersection-union test: each family's size), otherwise inconclusive. It is ``all_hold`` on the negation ("no
    family has them"), whose refutation by one family is the claim."""
    return _flip(all_hold([_flip(v) for v in verdicts]))


@dataclass(frozen=True)
class Specialists:
    """What a run shows of one kind of specialised head, per model family (position encoding)."""

    verdict: Verdict
    sentence: str
    cause: str
    estimates: list[Estimate]
    #: the estimate the verdict rests on: the decisive family's count over the null (agrees, inconclusive) or the
    #: strongest head's margin of the family nearest to the bar (disagrees)
    headline: int


def specialist_finding(claim: Claim, ev: Evidence, column: str, largest: str, kind: str) -> Finding:
    """The finding on ``claim`` from the per-family count of heads of ``kind`` against the shuffled-position null
    (``specialist_heads``); not run without per-head records; not testable where the null's bound reaches the bar
    (too few scored queries for the bar to tell a specialised head from a shuffled one)."""
    if ev.why_not:
        return not_run(claim, ev.why_not)
    table = ev.table
    reached = table[table[f"{column}_null"] > 0]
    if len(reached):
        bound = float(reached[f"{column}_null_bound"].max())
        bar = float(reached[f"{column}_bar" if column == "offset" else "delimiter_threshold"].min())
        return unmet(
            claim,
            f"a head with shuffled key positions may reach {bound:.2f} of its attention on one "
            f"{'offset' if column == 'offset' else 'class of keys'} (Hoeffding's bound at {null.DELTA:g} over "
            f"{len(reached)} jobs' scored queries), at or above the bar {bar:.2f}",
            "more held-out windows read (eval_windows), until the null's bound lies below the bar",
        )
    found = specialist_heads(ev, column, largest, kind)
    return finding(claim, found.verdict, found.sentence, found.estimates, cause=found.cause, headline=found.headline)


def families(ev: Evidence, column: str, largest: str, kind: str) -> list[Family]:
    """Each family's count of ``kind`` heads over the null's, and its strongest head's margin over the bar."""
    table = ev.table
    bar = table["offset_bar"] if column == "offset" else table["delimiter_threshold"]
    table = table.assign(_margin=table[largest] - bar)
    out = []
    for v in in_order(table.variant.unique(), ORDER):
        part = table[table.variant == v].set_index("seed")
        excess = paired(
            f"{v} {kind} heads over the shuffled-position null",
            part[column].astype(float).to_dict(),
            part[f"{column}_null"].astype(float).to_dict(),
            "heads",
        )
        margin = Estimate.of(
            f"{v} largest {kind} share - the bar", part._margin.dropna(), "", "bounded", bounds=(-1.0, 1.0)
        )
        out.append(Family(v, excess, margin, family_verdict(excess, margin)))
    return out


def specialist_heads(ev: Evidence, column: str, largest: str, kind: str) -> Specialists:
    """An existential claim ("some heads ..."), stated per model family: a family has such heads when its count
    exceeds the shuffled-position null's (0 while the bar lies above the null's bound), paired over seeds; it lacks
    them when its strongest head stays below the bar. The claim agrees when some family has them (held over the
    families, Holm), disagrees when every family lacks them (``some_family``)."""
    fams = families(ev, column, largest, kind)
    verdict = some_family([f.verdict for f in fams])
    estimates = [f.excess.estimate for f in fams] + [f.margin for f in fams]
    k = len(fams)
    told = _told(ev.table, [f.variant for f in fams], column, largest, kind)
    bound = float(ev.table[f"{column}_null_bound"].max())
    null_said = (
        f" With the key positions shuffled, no head of any model would put more than {bound:.2f} of its attention "
        f"{'at one offset' if column == 'offset' else 'on delimiters'} (Hoeffding's bound, all but {null.DELTA:g}), "
        "so the null's count is 0 in every seed."
    )
    p_has = [f.verdict.p_for for f in fams]
    # the family whose count is most clearly above the null's: the evidence for "some heads"
    best = min(range(k), key=lambda i: math.inf if math.isnan(p_has[i]) else p_has[i], default=0)
    have = [f.variant for f in fams if f.verdict == "agrees"]
    lack = [f.variant for f in fams if f.verdict == "disagrees"]
    open_ = [f.variant for f in fams if f.verdict == "inconclusive"]
    level = f"{BRANCH_LEVEL / max(k, 1):.3g}"
    b = fams[best] if fams else None
    if verdict == "agrees":
        sentence = (
            f"{told}{null_said} `{b.variant}`'s count exceeds it: {_excess(b)}, one-sided p {p_has[best]:.2g}, within "
            f"the {level} that holds the {k} families at {BRANCH_LEVEL:.1%} together: this run **agrees** with "
            f"Clark et al. that some heads specialise in {kind.replace('-', ' ')}s."
        )
        return Specialists(verdict, sentence + ev.note, "", estimates, best)
    if verdict == "disagrees":
        # the family whose strongest head comes nearest to the bar is the one the verdict rests on
        near = max(range(k), key=lambda i: fams[i].margin.value)
        sentence = (
            f"{told}{null_said} In every family the strongest {kind} head stays below the bar beyond the seeds' noise "
            f"(nearest: `{fams[near].variant}`, {_margin(fams[near])}): this run **disagrees** with Clark et al."
        )
        cause = f"no position encoding's models have a {kind} head: every family's strongest head stays below the bar."
        return Specialists(verdict, sentence + ev.note, cause, estimates, k + near)
    cause = (
        f"no family's count of {kind} heads exceeds the shuffled-position null's once the {k} families are held "
        f"together (the clearest, `{b.variant}`, {_excess(b)}, one-sided p {p_has[best]:.2g} against the "
        f"{level} needed)"
        + (
            f", and {_named(open_)} neither {'has' if len(open_) == 1 else 'have'} nor clearly lack them"
            if open_
            else ""
        )
        + "."
    )
    sentence = f"{told}{null_said} This run is **inconclusive**: {cause}"
    if have:
        sentence += f" Alone at {BRANCH_LEVEL:.1%}, {_named(have)} would have them; {_named(lack) or 'none'} lack them."
    return Specialists(verdict, sentence + ev.note, cause, estimates, best)


def _excess(f: Family) -> str:
    e = f.excess.estimate
    interval = f" [{e.low:.1f}, {e.high:.1f}]" if e.low is not None else ""
    return f"{e.value:.1f}{interval} heads per model over {f.excess.seeds} seeds"


def _margin(f: Family) -> str:
    e = f.margin
    interval = f" [{e.low:+.2f}, {e.high:+.2f}]" if e.low is not None else ""
    return f"largest share minus the bar {e.value:+.2f}{interval}"


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


def _seeds_with(counts: pd.Series) -> str:
    return f"{int((counts > 0).sum())} of {len(counts)} seeds with one"


def _named(variants: list[str]) -> str:
    return ", ".join(f"`{v}`" for v in variants)
