"""The translation verdict: Bahdanau, Cho & Bengio 2014's attention on long sentences.

BLEU lies in [0, 100]: its estimates and the paired gap between two models' BLEU (within [-100, 100]) have
intervals that keep to those bounds ("bounded", harness/intervals.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import directional, paired
from harness.report_kit import mean_ci
from harness.suite_file import SuiteFile
from suites.translation.baselines import LEARNED_MARGIN
from suites.translation.compute_verdict import COMPUTE, compute_finding
from suites.translation.encoder_verdict import REVERSED, encoder_kind, reversal_finding
from suites.translation.tables import _is_rnnsearch, _order, flag_unlearned, per_seed

PUBLISHED = (
    "Bahdanau, Cho & Bengio 2014 (arXiv 1409.0473, WMT'14 English-French) report test BLEU 13.93 for the "
    "encoder-decoder without attention (RNNencdec-30) against 21.50 with attention (RNNsearch-30), and 17.82 "
    "against 26.75 for the models trained on sentences of up to 50 words; in their Figure 2 the models without "
    "attention lose BLEU steeply once sources pass about 20 words, while RNNsearch-50 stays flat to 50 words and more."
)

#: the published findings this suite tests, in the order its report states them (suite.yaml)
(BOTTLENECK,) = SuiteFile.of(__file__).claims("attention_long_sentences")
CLAIMS = (BOTTLENECK, REVERSED, COMPUTE)
#: a model "holds" BLEU on the longest bucket when it keeps at least this share of its best bucket's BLEU
HOLDS = 0.8
#: the bounds of a BLEU score
BLEU = (0.0, 100.0)


def findings(df: pd.DataFrame) -> list[Finding]:
    """This suite's verdicts on Bahdanau et al.'s, Sutskever et al.'s and Vaswani et al.'s findings from one group of
    records."""
    ok = df[df.status == "ok"]
    specs = {r.variant: r.spec for r in df.drop_duplicates("variant").itertuples()}
    variants = _order(list(specs), specs)
    buckets = df[df.metric == "bleu_by_length"].drop_duplicates("x").sort_values("x")
    labels = {r.x: f"{r.extra['bucket']} words (n={r.extra['sentences']})" for r in buckets.itertuples()}
    flagged = flag_unlearned(ok, variants)
    return [
        _verdict(ok, variants, specs, labels, flagged),
        reversal_finding(ok, specs, labels, flagged),
        compute_finding(ok, specs),
    ]


def _verdict(
    ok: pd.DataFrame,
    variants: list[str],
    specs: dict[str, dict],
    labels: dict[float, str],
    flagged: Mapping[str, str] | None = None,
) -> Finding:
    """Whether this run reproduces Bahdanau et al.'s finding, from the RNN variants that learned.

    The attention side is their model (the bahdanau decoder with the additive score) when the run has it,
    otherwise the other attention RNNs, said so; variants in ``flagged`` (did not learn) are left out.
    """
    if not labels:
        return not_run(BOTTLENECK, "This run has no BLEU by source length, so it cannot be compared.")
    flagged = dict(flagged or {})
    means: dict[str, dict[float, float]] = {}
    for v in variants:
        rows = ok[(ok.variant == v) & (ok.metric == "bleu_by_length")]
        means[v] = {x: mean_ci(rows[rows.x == x].value)[0] for x in labels if (rows.x == x).any()}
    longest = max(labels)
    rnn = [v for v in variants if specs[v].get("family") == "rnn_seq2seq" and longest in means[v]]
    # Bahdanau et al.'s RNNencdec reads the source forward; reversed and bidirectional encoders are another claim's
    plain = [v for v in rnn if specs[v]["scoring"] == "none" and encoder_kind(specs[v]) == "forward"]
    searches = [v for v in rnn if _is_rnnsearch(specs[v])]
    attn = searches or [v for v in rnn if specs[v]["scoring"] != "none"]
    if not plain or not attn:
        return not_run(
            BOTTLENECK,
            "This run lacks RNN encoder-decoders with and without attention on the longest bucket, "
            "so it cannot be compared.",
        )
    short = "Bahdanau's attention" if searches else "attention"
    side = (
        f"{short} (the bahdanau decoder with the additive score)"
        if searches
        else "attention (none is Bahdanau's model, the bahdanau decoder with the additive score, so this compares "
        "attention in general)"
    )
    out = [v for v in plain + attn if v in flagged]
    sentences = []
    if out:
        sentences.append(
            f"Here {len(out)} of the {len(plain + attn)} RNN variants compared {'is' if len(out) == 1 else 'are'} left out "
            f"because {'it' if len(out) == 1 else 'they'} did not learn (mean BLEU not at least {LEARNED_MARGIN:g} above the "
            f"better baseline): " + ", ".join(f"{v} ({flagged[v]})" for v in out) + "."
        )
    plain = [v for v in plain if v not in flagged]
    attn = [v for v in attn if v not in flagged]
    if not attn:
        cause = f"No model with {short} learned the task with this budget, so this run cannot test the finding."
        return finding(BOTTLENECK, "inconclusive", " ".join(sentences + [cause]), cause=cause)
    if not plain:
        cause = "No model without attention learned the task, so this run cannot test the finding."
        return finding(BOTTLENECK, "inconclusive", " ".join(sentences + [cause]), cause=cause)

    def kept(v):
        peak = max(means[v].values())
        return means[v][longest] / peak if peak > 0 else math.nan

    def describe(vs):
        return ", ".join(f"{v} {means[v][longest]:.1f} ({kept(v):.0%} of its best bucket)" for v in vs)

    bucket = labels[longest].split(" (")[0]
    sentences.append(
        f"{'Of the others' if out else 'Here'}, on the longest bucket ({bucket}), the RNNs without attention "
        f"reach BLEU {describe(plain)}, and those with {side} {describe(attn)}."
    )
    text = " ".join(sentences)
    holds = all(kept(v) >= HOLDS for v in attn)
    falls = all(kept(v) < HOLDS for v in plain)
    estimates = [
        Estimate.of(
            f"BLEU on {bucket}, {v}",
            ok[(ok.variant == v) & (ok.metric == "bleu_by_length") & (ok.x == longest)].value,
            kind="bounded",
            bounds=BLEU,
        )
        for v in attn + plain
    ]
    # paired over seeds: the weakest attention model against the strongest one without attention, seed by seed
    seeds_bleu = {v: per_seed(ok, v, "bleu_by_length", longest) for v in attn + plain}
    common = set.intersection(*(set(b) for b in seeds_bleu.values()))
    weakest = {s: min(seeds_bleu[v][s] for v in attn) for s in common}
    strongest = {s: max(seeds_bleu[v][s] for v in plain) for s in common}
    gap = paired(f"BLEU on {bucket}, attention - no attention", weakest, strongest, "BLEU", bounds=BLEU)
    estimates.append(gap.estimate)
    better = directional(gap, +1)
    if better == "agrees" and holds and falls:
        return finding(
            BOTTLENECK,
            "agrees",
            text
            + (
                f" This run agrees: attention holds BLEU on long sources (at least {HOLDS:.0%} of the best "
                f"bucket) while the fixed-vector models fall below it, and attention's lead on the longest bucket "
                f"counts ({gap.why()})."
            ),
            estimates,
            headline=len(estimates) - 1,
        )
    if better == "inconclusive":
        cause = (
            f"attention's lead on the longest bucket ({gap.mean:+.1f} BLEU over {gap.seeds} seeds) does not count: "
            f"{gap.why()}."
        )
        return finding(
            BOTTLENECK,
            "inconclusive",
            text + " This run is inconclusive: " + cause,
            estimates,
            cause=cause,
            headline=len(estimates) - 1,
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
        BOTTLENECK,
        "disagrees",
        text + f" This run does not fully reproduce the finding at this size: {'; '.join(why)}.",
        estimates,
        cause=cause,
        headline=len(estimates) - 1,
    )
