"""Attention removes the fixed-vector bottleneck on long sentences (Bahdanau, Cho & Bengio 2014, figure 2), judged on
the length interaction the claim states: per seed, attention's lead over the encoder-decoder without it on the longest
source-length bucket minus its lead on the shortest, paired over seeds, directional; every attention model against
every model without it must show it.

In the source's figure 2 the models without attention lose BLEU as sentences grow while RNNsearch-50 does not: the
gap between them widens with length. A lead on the longest bucket alone is a main effect, which a model that is better
at every length shows without any bottleneck being removed."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run, unmet
from harness.paired import Verdict, all_hold, directional
from harness.report_kit import mean_ci
from suites.translation.baselines import LEARNED_MARGIN
from suites.translation.claims._shared import Evidence, LengthEffect, length_effect, shared_buckets
from suites.translation.encoders import encoder_kind
from suites.translation.tables import _is_rnnsearch

CLAIM = declared(__file__)


def rule(effects: list[LengthEffect]) -> Verdict:
    """Attention's lead grows with source length for every pair (attention model, model without): a conjunction of
    directional paired tests of the length interaction (``all_hold``: each part's size for "agrees", Holm across the
    parts for "disagrees")."""
    return all_hold([directional(e.interaction, +1) for e in effects])


def judge(ev: Evidence) -> Finding:
    """Whether this run reproduces Bahdanau et al.'s finding, from the RNN variants that learned.

    The attention side is their model (the bahdanau decoder with the additive score) when the run has it,
    otherwise the other attention RNNs, said so; variants in ``ev.flagged`` (did not learn) are left out.
    """
    if len(ev.labels) < 2:
        return not_run(CLAIM, "This run has no BLEU by at least two source-length buckets, so it cannot be compared.")
    means = _bucket_means(ev)
    rnn = [v for v in ev.variants if ev.specs[v].get("family") == "rnn_seq2seq" and len(means[v]) >= 2]
    # Bahdanau et al.'s RNNencdec reads the source forward; reversed and bidirectional encoders are another claim's
    plain = [v for v in rnn if ev.specs[v]["scoring"] == "none" and encoder_kind(ev.specs[v]) == "forward"]
    searches = [v for v in rnn if _is_rnnsearch(ev.specs[v])]
    attn = searches or [v for v in rnn if ev.specs[v]["scoring"] != "none"]
    if not plain or not attn:
        return not_run(
            CLAIM,
            "This run lacks RNN encoder-decoders with and without attention with BLEU on at least two source-length "
            "buckets, so it cannot be compared.",
        )
    short = "Bahdanau's attention" if searches else "attention"
    out = [v for v in plain + attn if v in ev.flagged]
    sentences = [_left_out(out, len(plain + attn), ev.flagged)] if out else []
    plain = [v for v in plain if v not in ev.flagged]
    attn = [v for v in attn if v not in ev.flagged]
    if not attn or not plain:
        missing = (
            f"no model with {short} or without attention"
            if not attn and not plain
            else f"no model with {short}"
            if not attn
            else "no model without attention"
        )
        return unmet(
            CLAIM,
            f"{missing} learned the task with this budget (" + "; ".join(f"`{v}` {ev.flagged[v]}" for v in out) + ")",
            "a budget at which the models with and without attention learn the task (profile bottleneck)",
        )
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
    """The verdict from the models that learned: for every pair (attention, no attention), attention's lead on the
    longest bucket minus its lead on the shortest, paired over seeds; every pair must show it grow."""
    buckets = shared_buckets(ev.ok, ev.labels, plain + attn)
    if len(buckets) < 2:
        return not_run(CLAIM, "The models compared share fewer than two source-length buckets.")
    short, longest = buckets[0], buckets[-1]
    names = {x: ev.labels[x].split(" (")[0] for x in (short, longest)}

    def describe(vs):
        return ", ".join(f"{v} {means[v][short]:.1f} -> {means[v][longest]:.1f}" for v in vs)

    sentences.append(
        f"{'Of the others' if any_out else 'Here'}, BLEU from {names[short]} to {names[longest]}: the RNNs without "
        f"attention {describe(plain)}; those with {side} {describe(attn)}."
    )
    pairs = [(a, p) for a in attn for p in plain]
    effects = [length_effect(ev.ok, ev.labels, a, p) for a, p in pairs]
    parts = [directional(e.interaction, +1) for e in effects]
    verdict = rule(effects)
    told = "; ".join(f"`{a}` - `{p}`: {e.told()}" for (a, p), e in zip(pairs, effects))
    sentences.append(f"Attention's lead: {told}.")
    # the headline: the pair that refutes the claim, else the smallest interaction (the pair nearest to failing it)
    order = sorted(range(len(effects)), key=lambda i: (parts[i] != "disagrees", effects[i].interaction.mean))
    head = order[0]
    estimates = [e.interaction.estimate for e in effects] + [e.long.estimate for e in effects]
    e = effects[head]
    if verdict == "agrees":
        text = (
            " ".join(sentences)
            + " This run agrees: attention's lead grows from the shortest to the longest sources, as the bottleneck "
            "of the models without it predicts."
        )
        return finding(CLAIM, verdict, text, estimates, headline=head)
    if verdict == "disagrees":
        cause = (
            f"Attention's lead over `{pairs[head][1]}` does not grow with length ({e.short.mean:+.1f} BLEU on "
            f"{e.short_bucket}, {e.long.mean:+.1f} on {e.long_bucket}; {e.interaction.why()}): no bottleneck on long "
            "sentences is left for attention to remove."
        )
    else:
        cause = (
            f"Attention's lead over `{pairs[head][1]}` on {e.long_bucket} minus on {e.short_bucket} "
            f"({e.interaction.mean:+.1f} BLEU) does not count ({e.interaction.why()})."
        )
    return finding(CLAIM, verdict, " ".join(sentences) + " " + cause, estimates, cause=cause, headline=head)
