"""The translation tables: each variant's specs, model family and order, the length buckets, the baselines the jobs
recorded, which variants did not learn, and the baseline and sample-translation sections.

BLEU lies in [0, 100]: its estimates and the paired gap between two models' BLEU (within [-100, 100]) have
intervals that keep to those bounds ("bounded", harness/intervals.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from harness.report_kit import markdown_table, mean_ci
from harness.report_sections import Section, section
from suites.translation.baselines import BASELINES, LEARNED_MARGIN, best_baseline, unlearned

#: without recorded baselines (records of suite version 1), a model whose best bucket stays below this BLEU did not learn
LEARNED = 5.0
#: the bounds of a BLEU score
BLEU = (0.0, 100.0)


def specs_of(df: pd.DataFrame) -> dict[str, dict]:
    """variant -> its stored spec (the first record's of each variant)."""
    return {r.variant: r.spec for r in df.drop_duplicates("variant").itertuples()}


def length_labels(df: pd.DataFrame) -> dict[float, str]:
    """Each length bucket's x and its column label ('31-40 words (n=258)')."""
    buckets = df[df.metric == "bleu_by_length"].drop_duplicates("x").sort_values("x")
    return {r.x: f"{r.extra['bucket']} words (n={r.extra['sentences']})" for r in buckets.itertuples()}


def _decoder(spec: dict) -> str:
    """The RNN attention decoder of a stored spec (records before the field existed used Luong's)."""
    return spec.get("decoder", "luong")


def _family(spec: dict) -> str:
    if spec.get("family") == "rnn_seq2seq":
        reads = ", bidirectional encoder" if spec.get("bidirectional") else ""
        reads += ", reversed source" if spec.get("reverse_source") else ""
        if spec["scoring"] == "none":
            return f"RNN, no attention{reads}"
        return f"RNN, {_decoder(spec).capitalize()} decoder, {spec['scoring']} attention{reads}"
    return "Transformer"


def _is_rnnsearch(spec: dict) -> bool:
    """Bahdanau et al.'s RNNsearch: their decoder with their additive score."""
    return spec.get("family") == "rnn_seq2seq" and _decoder(spec) == "bahdanau" and spec["scoring"] == "additive"


def _baselines(ok: pd.DataFrame) -> Mapping[str, Mapping[str, Any]] | None:
    """The baselines the jobs recorded (one test split, so the first record's), or None for older records."""
    if "baselines" not in ok:
        return None
    found = [b for b in ok.baselines if isinstance(b, dict) and b]
    return found[0] if found else None


def flag_unlearned(ok: pd.DataFrame, variants: list[str]) -> dict[str, str]:
    """Variants that did not learn, with the reason: BLEU not clearly above the better baseline.

    Records without baselines fall back to the best length bucket staying below BLEU ``LEARNED``.
    """
    baselines = _baselines(ok)
    if baselines is not None:
        means = {v: mean_ci(ok[(ok.variant == v) & (ok.metric == "bleu")].value)[0] for v in variants}
        return unlearned(means, baselines)
    flagged = {}
    for v in variants:
        rows = ok[(ok.variant == v) & (ok.metric == "bleu_by_length")]
        best = max((mean_ci(rows[rows.x == x].value)[0] for x in rows.x.unique()), default=math.nan)
        if not best >= LEARNED:
            flagged[v] = f"best length bucket BLEU {best:.1f}, below {LEARNED:g} (these records carry no baselines)"
    return flagged


def _order(variants: list[str], specs: dict[str, dict]) -> list[str]:
    def key(v):
        s = specs[v]
        if s.get("family") != "rnn_seq2seq":
            return (2, v)
        return (
            0 if s["scoring"] == "none" else 1,
            ("rnn", "gru", "lstm").index(s["cell"]) if s["cell"] in ("rnn", "gru", "lstm") else 3,
            v,
        )

    return sorted(variants, key=key)


def _baseline_lines(ok: pd.DataFrame) -> list[str]:
    """The two trivial translations of the test split, so the table's numbers can be read as learned or not."""
    baselines = _baselines(ok)
    if baselines is None:
        return [
            "These records carry no baselines (they predate them); a model counts as not learned when every "
            f"length bucket stays below BLEU {LEARNED:g}.",
            "",
        ]
    rows = [
        {"baseline": BASELINES[name], "BLEU": f"{b['bleu']:.1f}", "chrF": f"{b['chrf']:.1f}"}
        for name, b in baselines.items()
    ]
    frequent = baselines.get("most_frequent_target", {})
    name, best = best_baseline(baselines)
    return [
        f'Baselines on the same test split and scorer (the most frequent training target is "{frequent.get("sentence", "?")}", '
        f"{frequent.get('count', '?')} times):",
        "",
        markdown_table(pd.DataFrame(rows)),
        "",
        f"A variant whose mean BLEU is not at least {LEARNED_MARGIN:g} above the better baseline ({best:.1f}) is marked "
        '"did not learn" and left out of the comparison with the paper.',
        "",
    ]


def samples_section(ok: pd.DataFrame, variants: list[str]) -> Section | None:
    """Sample translations of the lowest seed of each variant (none without samples)."""
    bleu = ok[ok.metric == "bleu"].sort_values("seed")
    per_variant = {
        v: bleu[bleu.variant == v].extra.iloc[0].get("samples", []) for v in variants if (bleu.variant == v).any()
    }
    if not per_variant:
        return None
    reference = next(iter(per_variant.values()))
    lines = []
    for i, sample in enumerate(reference):
        rows = [{"": "source", "text": sample["source"]}, {"": "reference", "text": sample["reference"]}]
        rows += [{"": v, "text": s[i]["hypothesis"]} for v, s in per_variant.items() if i < len(s)]
        lines += [f"{sample['source_words']} source words:", "", markdown_table(pd.DataFrame(rows)), ""]
    return section("Sample translations (lowest seed of each variant)", lines)


def per_seed(ok: pd.DataFrame, variant: str, metric: str, x: float | None = None) -> dict[int, float]:
    """seed -> value of one variant's ``metric`` (at ``x`` when given: a length bucket)."""
    rows = ok[(ok.variant == variant) & (ok.metric == metric)]
    if x is not None:
        rows = rows[rows.x == x]
    return {int(r.seed): float(r.value) for r in rows.itertuples()}
