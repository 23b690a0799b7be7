"""Attention holds BLEU on long sources where the fixed-vector encoder-decoder loses it (Bahdanau, Cho & Bengio
2014): BLEU on the longest source-length bucket, the RNNs with attention against those without, paired over seeds."""

from __future__ import annotations

import math

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import Difference, directional, paired
from harness.report_kit import mean_ci
from suites.translation.baselines import LEARNED_MARGIN
from suites.translation.claims._shared import Evidence
from suites.translation.encoders import encoder_kind
from suites.translation.tables import BLEU, _is_rnnsearch, per_seed

CLAIM = declared(__file__)
#: a model "holds" BLEU on the longest bucket when it keeps at least this share of its best bucket's BLEU (this
#: project's choice: the source's Figure 2 shows RNNsearch-50 flat to 50 words and more and gives no threshold)
HOLDS = 0.8


def judge(ev: Evidence) -> Finding:
    """Whether this run reproduces Bahdanau et al.'s finding, from the RNN variants that learned.

    The attention side is their model (the bahdanau decoder with the additive score) when the run has it,
    otherwise the other attention RNNs, said so; variants in ``ev.flagged`` (did not learn) are left out.
    """
    if not ev.labels:
        return not_run(CLAIM, "This run has no BLEU by source length, so it cannot be compared.")
    means = _bucket_means(ev)
    longest = max(ev.labels)
    rnn = [v for v in ev.variants if ev.specs[v].get("family") == "rnn_seq2seq" and longest in means[v]]
    # Bahdanau et al.'s RNNencdec reads the source forward; reversed and bidirectional encoders are another claim's
    plain = [v for v in rnn if ev.specs[v]["scoring"] == "none" and encoder_kind(ev.specs[v]) == "forward"]
    searches = [v for v in rnn if _is_rnnsearch(ev.specs[v])]
    attn = searches or [v for v in rnn if ev.specs[v]["scoring"] != "none"]
    if not plain or not attn:
        return not_run(
            CLAIM,
            "This run lacks RNN encoder-decoders with and without attention on the longest bucket, "
            "so it cannot be compared.",
        )
    short = "Bahdanau's attention" if searches else "attention"
    out = [v for v in plain + attn if v in ev.flagged]
    sentences = [_left_out(out, len(plain + attn), ev.flagged)] if out else []
    plain = [v for v in plain if v not in ev.flagged]
    attn = [v for v in attn if v not in ev.flagged]
    if not attn:
        cause = f"No model with {short} learned the task with this budget, so this run cannot test the finding."
        return finding(CLAIM, "inconclusive", " ".join(sentences + [cause]), cause=cause)
    if not plain:
        cause = "No model without attention learned the task, so this run cannot test the finding."
        return finding(CLAIM, "inconclusive", " ".join(sentences + [cause]), cause=cause)
    side = (
        f"{short} (the bahdanau decoder with the additive score)"
        if searches
        else "attention (none is Bahdanau's model, the bahdanau decoder with the additive score, so this compares "
        "attention in general)"
    )
    return _compared(ev, means, plain, attn, side, sentences, bool(out))


def _bucket_means(ev: Evidence) -> dict[str, dict[float, float]]:
    """variant -> {bucket x: mean BLEU over seeds} for the buckets it has."""
    means: dict[str, dict[float, float]] = {}
    for v in ev.variants:
        rows = ev.ok[(ev.ok.variant == v) & (ev.ok.metric == "bleu_by_length")]
        means[v] = {x: mean_ci(rows[rows.x == x].value)[0] for x in ev.labels if (rows.x == x).any()}
    return means


def _left_out(out: list[str], compared: int, flagged: dict[str, str]) -> str:
    """The sentence naming the compared variants left out because they did not learn."""
    return (
        f"Here {len(out)} of the {compared} RNN variants compared {'is' if len(out) == 1 else 'are'} left out "
        f"because {'it' if len(out) == 1 else 'they'} did not learn (mean BLEU not at least {LEARNED_MARGIN:g} above the "
        f"better baseline): " + ", ".join(f"{v} ({flagged[v]})" for v in out) + "."
    )


def _compared(
    ev: Evidence,
    means: dict[str, dict[float, float]],
    plain: list[str],
    attn: list[str],
    side: str,
    sentences: list[str],
    any_out: bool,
) -> Finding:
    """The verdict from the models that learned: attention's paired lead on the longest bucket, and which models
    keep at least HOLDS of their best bucket's BLEU there."""
    longest = max(ev.labels)

    def kept(v):
        peak = max(means[v].values())
        return means[v][longest] / peak if peak > 0 else math.nan

    def describe(vs):
        return ", ".join(f"{v} {means[v][longest]:.1f} ({kept(v):.0%} of its best bucket)" for v in vs)

    bucket = ev.labels[longest].split(" (")[0]
    sentences.append(
        f"{'Of the others' if any_out else 'Here'}, on the longest bucket ({bucket}), the RNNs without attention "
        f"reach BLEU {describe(plain)}, and those with {side} {describe(attn)}."
    )
    estimates, gap = _estimates(ev, bucket, plain, attn)
    holds = all(kept(v) >= HOLDS for v in attn)
    falls = all(kept(v) < HOLDS for v in plain)
    return _decided(" ".join(sentences), estimates, gap, holds, falls)


def _estimates(ev: Evidence, bucket: str, plain: list[str], attn: list[str]) -> tuple[list[Estimate], Difference]:
    """Each model's BLEU on the longest bucket, then the paired gap: the weakest attention model against the
    strongest one without attention, seed by seed."""
    ok, longest = ev.ok, max(ev.labels)
    estimates = [
        Estimate.of(
            f"BLEU on {bucket}, {v}",
            ok[(ok.variant == v) & (ok.metric == "bleu_by_length") & (ok.x == longest)].value,
            kind="bounded",
            bounds=BLEU,
        )
        for v in attn + plain
    ]
    seeds_bleu = {v: per_seed(ok, v, "bleu_by_length", longest) for v in attn + plain}
    common = set.intersection(*(set(b) for b in seeds_bleu.values()))
    weakest = {s: min(seeds_bleu[v][s] for v in attn) for s in common}
    strongest = {s: max(seeds_bleu[v][s] for v in plain) for s in common}
    gap = paired(f"BLEU on {bucket}, attention - no attention", weakest, strongest, "BLEU", bounds=BLEU)
    return estimates + [gap.estimate], gap


def _decided(text: str, estimates: list[Estimate], gap: Difference, holds: bool, falls: bool) -> Finding:
    """Agrees when attention's paired lead counts, attention holds and the models without it fall; inconclusive
    when the lead does not count; else disagrees, saying which part failed."""
    better = directional(gap, +1)
    last = len(estimates) - 1
    if better == "agrees" and holds and falls:
        return finding(
            CLAIM,
            "agrees",
            text
            + (
                f" This run agrees: attention holds BLEU on long sources (at least {HOLDS:.0%} of the best "
                f"bucket) while the fixed-vector models fall below it, and attention's lead on the longest bucket "
                f"counts ({gap.why()})."
            ),
            estimates,
            headline=last,
        )
    if better == "inconclusive":
        cause = (
            f"attention's lead on the longest bucket ({gap.mean:+.1f} BLEU over {gap.seeds} seeds) does not count: "
            f"{gap.why()}."
        )
        return finding(
            CLAIM, "inconclusive", text + " This run is inconclusive: " + cause, estimates, cause=cause, headline=last
        )
    why = []
    if better == "disagrees":
        why.append("the models without attention beat attention on the longest bucket")
    if not holds:
        why.append("an attention model also loses BLEU on long sources")
    if not falls:
        why.append("a model without attention keeps its BLEU on long sources")
    cause = "; ".join(why)[0].upper() + "; ".join(why)[1:] + "."
    return finding(
        CLAIM,
        "disagrees",
        text + f" This run does not fully reproduce the finding at this size: {'; '.join(why)}.",
        estimates,
        cause=cause,
        headline=last,
    )
