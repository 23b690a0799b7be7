"""What streaming's claims read: the records of the models trained without a sink token and of those trained with
one, each model's perplexity under a cache policy, and the eviction test two claims make.

The unit a comparison pairs over is the trained model: each seed's model streams every held-out stream, and its
perplexity over all of them (one record per policy) is one value; the paired test runs over seeds on the log
ratio of two policies' perplexities (harness/paired.py). Streams of one model are not independent replicates of
the claim, which is about models.

"Fails beyond +m%" is a one-sided test of the log ratio against m (``fails``: harness.paired.reaches), "restores
within +-m%" the equivalence test (harness.paired.equivalent); an eviction claim needs both, combined by
harness.paired.all_hold, whose "disagrees" is held at 2.5% across the two parts (``eviction_rule``).

A claim about attention sinks declares its precondition about the setting: that this model and budget form an
attention sink at all, read on the models trained *without* a sink token (the text's first token draws over twice
even attention in some layer). It is read before the perplexities are judged and applied whatever they show; where
no model forms a sink, the claim is not testable here. Whether a dedicated sink token takes that role is the
sink-token claim's own prediction, so it is shown, never a precondition.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import pandas as pd

from harness.findings import Claim, Finding, finding, not_run, unmet
from harness.paired import Difference, Verdict, all_hold, equivalent, p_against, paired, reaches
from suites.streaming.first_slot import first_slot
from suites.streaming.sink_token import is_sink_spec


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: whether the group streamed at all (a perplexity past the cache); else no claim is tested
    streamed: bool
    #: the records of the models trained without a sink token
    plain: pd.DataFrame
    #: the records of the models trained with a dedicated sink token
    token: pd.DataFrame


def prepare(df: pd.DataFrame) -> Evidence:
    if not len(df) or not (df.metric == "ppl_past_cache").any():
        return Evidence(False, df, df)
    dedicated = df.spec.apply(is_sink_spec)
    return Evidence(True, df[~dedicated], df[dedicated])


def _rows(df: pd.DataFrame, metric: str, policy: str) -> pd.DataFrame:
    """The ok records of one metric under one cache policy."""
    return df[(df.metric == metric) & (df.status == "ok") & (df.extra.apply(lambda e: e.get("policy")) == policy)]


def per_model(df: pd.DataFrame, metric: str, policy: str) -> dict[int, float]:
    """Seed -> the perplexity of that seed's model under one policy over ``metric``'s positions of all its streams
    (the record's value: the exponential of the mean loss over every stream's positions, streams of equal length)."""
    return {int(r.seed): float(r.value) for r in _rows(df, metric, policy).itertuples()}


def mean_of(df: pd.DataFrame, metric: str, policy: str) -> float:
    rows = _rows(df, metric, policy)
    return float(rows.value.mean()) if len(rows) else float("nan")


def fails(diff: Difference, margin: float) -> Verdict:
    """'agrees' when a policy's perplexity exceeds its reference's by more than ``margin`` % (the whole 95% interval
    of the paired log ratio beyond it), 'disagrees' when the whole interval is within it, else 'inconclusive' (one
    seed: no interval, no verdict): the one-sided test of harness.paired.reaches against the margin, carrying its
    p-values for the conjunction it enters."""
    return reaches(diff.estimate, margin)


def interval(d: Difference) -> str:
    e = d.estimate
    inside = f" [{e.low:+.1f}, {e.high:+.1f}]" if e.low is not None else f" ({d.why()})"
    return f"{e.value:+.1f}%{inside}"


def says(verdict: str) -> str:
    return {"agrees": "agrees", "disagrees": "disagrees"}.get(verdict, "is inconclusive")


@dataclass(frozen=True)
class Eviction:
    """What an eviction claim compares and with which margins."""

    #: the source's numbers, the sentence's opening
    source: str
    #: what the sinks policy keeps ('the sinks', 'its sink token') and what the first slot holds in the models the
    #: precondition reads
    kept: str
    first_token: str
    #: window attention fails when its perplexity exceeds the kept tokens' by more than this (%)
    fails: float
    #: the kept tokens restore it when their perplexity is within this (%) of recomputation's
    restores: float
    #: a sink forms when some layer gives the first slot more than this multiple of even attention
    sink_factor: float
    #: which models the precondition reads, as the not-testable sentence names them after 'in any of the N models'
    setting: str = ""


@dataclass(frozen=True)
class Judged:
    """An eviction claim's rule on one kind of model: its two paired differences, each part's verdict, the whole."""

    evict: Difference
    restores: Difference
    failed: Verdict
    restored: Verdict
    verdict: Verdict


def eviction_rule(
    window: dict[int, float],
    sinks: dict[int, float],
    recompute: dict[int, float],
    kept: str,
    fail: float,
    restore: float,
) -> Judged:
    """Window attention fails against the kept tokens (its perplexity above theirs by more than ``fail`` %: a
    one-sided test) and the kept tokens restore it (within +-``restore`` % of recomputation: an equivalence test),
    paired over the models (seeds); both must hold (harness.paired.all_hold: either part refutes the claim only with
    the two held at 2.5% together)."""
    evict = paired(f"window Δ ppl vs {kept}", window, sinks, relative=True)
    restores = paired(f"{kept} Δ ppl vs recompute", sinks, recompute, relative=True)
    failed, restored = fails(evict, fail), equivalent(restores, restore)
    return Judged(evict, restores, failed, restored, all_hold([failed, restored]))


def evicted(df: pd.DataFrame, claim: Claim, how: Eviction, setting: pd.DataFrame | None = None) -> Finding:
    """Window attention against the same cache with the first tokens kept (fails), and those against recomputation
    (restores), paired over the models of one kind; both must hold, and only in a setting where a sink forms, read
    on ``setting`` (the models trained without a sink token; default ``df``) whatever the perplexities show."""
    if not len(df) or not (df.metric == "ppl_past_cache").any():
        return not_run(claim)
    window, sinks, recompute = (per_model(df, "ppl_past_cache", p) for p in ("window", "sinks", "recompute"))
    if not (window and sinks and recompute):
        return not_run(claim)
    kept = how.kept
    rule = eviction_rule(window, sinks, recompute, kept, how.fails, how.restores)
    evict, restores, failed, restored, verdict = rule.evict, rule.restores, rule.failed, rule.restored, rule.verdict
    first = df[df.metric == "ppl_past_cache"].extra.iloc[0].get("from_position")
    variants = ", ".join(f"`{v}`" for v in sorted(df.variant.unique()))
    text = (
        f"{how.source} Here ({variants}), from position {first} on, paired over {evict.seeds} trained models (seeds), "
        f"each over all its streams: window {mean_of(df, 'ppl_past_cache', 'window'):.3f}, with {kept} "
        f"{mean_of(df, 'ppl_past_cache', 'sinks'):.3f}, recomputation {mean_of(df, 'ppl_past_cache', 'recompute'):.3f}; "
        f"window against {kept} {interval(evict)}, {kept} against recomputation {interval(restores)}"
    )
    judged = f" (fails beyond +{how.fails:g}%: {failed}; within ±{how.restores:g}%: {restored})"
    share = first_slot(df if setting is None else setting)
    if share is not None and share[1] <= how.sink_factor * share[2]:
        return _no_sink(claim, how, text, share, [evict.estimate, restores.estimate])
    if share is None:
        judged += "; the precondition is unread: no first-slot shares of the models it reads"
    cause = "" if verdict == "agrees" else _cause(how, evict, restores, failed, restored)
    head = _turns_on(verdict, [failed, restored])
    boundary = how.fails if head == 0 else (how.restores if restores.mean >= 0 else -how.restores)
    return finding(
        claim,
        verdict,
        f"{text}{judged}; this run {says(verdict)}.",
        [evict.estimate, restores.estimate],
        cause=cause,
        headline=head,
        boundary=boundary,
    )


def _turns_on(verdict: str, parts: list[Verdict]) -> int:
    """The part a conjunction's verdict turns on: the one that refutes it (the smallest p against), else the first
    that does not agree, else the eviction test."""
    if verdict == "disagrees":
        return min(range(len(parts)), key=lambda i: p_against(parts[i]) if parts[i] == "disagrees" else math.inf)
    return next((i for i, v in enumerate(parts) if v != "agrees"), 0)


def _no_sink(claim: Claim, how: Eviction, text: str, share, estimates: list) -> Finding:
    """Not testable here: no model gives its first slot over ``sink_factor`` times even attention."""
    estimate, largest, even = share
    forms = how.sink_factor * even
    found = unmet(
        claim,
        f"{how.first_token} draws at most {largest:.4f} of a layer's attention in any of the "
        f"{estimate.seeds} models{how.setting} (mean over heads, streams and steps past the cache), against {even:.4f} "
        f"for even attention, so none passes {forms:.4f}",
        "a model in which a sink forms (Xiao et al.'s pretrained LLMs give the first token most of each "
        "head's attention from layer 2 on), such as a larger model or one trained far longer than this one",
        [estimate, *estimates],
    )
    return dataclasses.replace(found, sentence=f"{text}. {found.sentence}", headline_index=0, boundary=forms)


def _cause(how: Eviction, evict: Difference, restores: Difference, failed: str, restored: str) -> str:
    why = []
    if evict.no_verdict:
        why.append(f"window attention's {evict.mean:+.1f}% against {how.kept} rests on one trained model: no verdict")
    elif failed != "agrees":
        why.append(
            f"window attention's {interval(evict)} against {how.kept} is "
            + ("a loss within +" if failed == "disagrees" else "not a loss that clears +")
            + f"{how.fails:g}%"
        )
    if restored != "agrees":
        why.append(
            f"the perplexity with {how.kept}, {interval(restores)} against recomputation, is not within "
            f"±{how.restores:g}%"
        )
    cause = "; ".join(why) + "."
    return cause[0].upper() + cause[1:]
