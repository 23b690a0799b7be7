"""The translation report: setup, baselines, BLEU and chrF per variant, BLEU by source length, samples, the published finding."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run
from harness.report import fmt_mean_ci, markdown_table, mean_ci
from suites.translation.baselines import BASELINES, LEARNED_MARGIN, best_baseline, unlearned
from harness.groups import code_line

PUBLISHED = (
    "Bahdanau, Cho & Bengio 2014 (arXiv 1409.0473, WMT'14 English-French) report test BLEU 13.93 for the "
    "encoder-decoder without attention (RNNencdec-30) against 21.50 with attention (RNNsearch-30), and 17.82 "
    "against 26.75 for the models trained on sentences of up to 50 words; in their Figure 2 the models without "
    "attention lose BLEU steeply once sources pass about 20 words, while RNNsearch-50 stays flat to 50 words and more."
)
BOTTLENECK = Claim(
    "attention_long_sentences", "translation", "Attention removes the fixed-vector bottleneck on long sentences",
    "Bahdanau, Cho & Bengio 2014 (arXiv 1409.0473)",
    "WMT'14 En-Fr test BLEU 13.93 without attention vs 21.50 with (17.82 vs 26.75 at 50 words); no loss to 50+ words",
    ("rnn", "lstm", "lstm+bahdanau+additive"))
CLAIMS = (BOTTLENECK,)
#: a model "holds" BLEU on the longest bucket when it keeps at least this share of its best bucket's BLEU
HOLDS = 0.8
#: without recorded baselines (records of suite version 1), a model whose best bucket stays below this BLEU did not learn
LEARNED = 5.0
FIGURE = "translation_bleu_by_length.png"


def _decoder(spec: dict) -> str:
    """The RNN attention decoder of a stored spec (records before the field existed used Luong's)."""
    return spec.get("decoder", "luong")


def _family(spec: dict) -> str:
    if spec.get("family") == "rnn_seq2seq":
        if spec["scoring"] == "none":
            return "RNN, no attention"
        return f"RNN, {_decoder(spec).capitalize()} decoder, {spec['scoring']} attention"
    return "Transformer"


def _is_rnnsearch(spec: dict) -> bool:
    """Bahdanau et al.'s RNNsearch: their decoder with their additive score."""
    return spec.get("family") == "rnn_seq2seq" and _decoder(spec) == "bahdanau" and spec["scoring"] == "additive"


def _baselines(ok: pd.DataFrame) -> Optional[Mapping[str, Mapping[str, Any]]]:
    """The baselines the jobs recorded (one test split, so the first record's), or None for older records."""
    if "baselines" not in ok:
        return None
    found = [b for b in ok.baselines if isinstance(b, dict) and b]
    return found[0] if found else None


def flag_unlearned(ok: pd.DataFrame, variants: List[str]) -> Dict[str, str]:
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


def _order(variants: List[str], specs: Dict[str, dict]) -> List[str]:
    def key(v):
        s = specs[v]
        if s.get("family") != "rnn_seq2seq":
            return (2, v)
        return (0 if s["scoring"] == "none" else 1, ("rnn", "gru", "lstm").index(s["cell"]) if s["cell"] in ("rnn", "gru", "lstm") else 3, v)

    return sorted(variants, key=key)


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> List[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    ok = df[df.status == "ok"]
    specs = {r.variant: r.spec for r in df.drop_duplicates("variant").itertuples()}
    variants = _order(list(specs), specs)
    first = df.iloc[0]
    settings = first.profile_settings
    seeds = sorted(int(s) for s in df.seed.unique())
    lines = [f"# Translation ({suite.name}, suite version {first.suite_version})", "",
             suite.description.strip().splitlines()[0], ""]
    lines += _setup(df, ok, first, settings, seeds)

    # --- scores per variant, against the baselines
    flagged = flag_unlearned(ok, variants)
    lines += ["## Test BLEU and chrF (mean ± 95% interval over seeds)", ""] + _baseline_lines(ok)
    rows = []
    for v in variants:
        got = lambda metric: ok[(ok.variant == v) & (ok.metric == metric)].value  # noqa: E731
        params = ok[ok.variant == v].parameters.dropna()
        bad = df[(df.variant == v) & (df.status != "ok")]
        rows.append({
            "variant": v, "model": _family(specs[v]), "parameters": f"{int(params.iloc[0]):,}" if len(params) else "-",
            "BLEU": fmt_mean_ci(got("bleu")) if len(got("bleu")) else (bad.status.iloc[0] if len(bad) else "-"),
            "chrF": fmt_mean_ci(got("chrf")), "learned": "did not learn" if v in flagged else "yes",
            "valid loss (nats/token)": fmt_mean_ci(got("valid_loss"), 3), "train time (s)": fmt_mean_ci(got("train_time"), 0),
        })
    lines += [markdown_table(pd.DataFrame(rows)), ""]
    if flagged:
        lines += ["Did not learn:", ""] + [f"- `{v}`: {why}" for v, why in flagged.items()] + [""]

    # --- BLEU by source length
    by_len = df[df.metric == "bleu_by_length"]
    buckets = by_len.drop_duplicates("x").sort_values("x")
    labels = {r.x: f"{r.extra['bucket']} words (n={r.extra['sentences']})" for r in buckets.itertuples()}
    lines += ["## BLEU by source-sentence length (mean ± 95% interval over seeds)", "",
              "Each bucket's test sentences are scored as one corpus; n is the number of test sentences in it.", ""]
    table = []
    for v in variants:
        row = {"variant": v}
        for x, label in labels.items():
            vals = ok[(ok.variant == v) & (ok.metric == "bleu_by_length") & (ok.x == x)].value
            row[label] = fmt_mean_ci(vals) if len(vals) else "-"
        table.append(row)
    lines += [markdown_table(pd.DataFrame(table)), ""]
    reasons = df[df.status != "ok"].drop_duplicates(["variant", "status", "reason"])
    if len(reasons):
        lines += ["Cells that are not numbers:", ""] + [f"- `{r.variant}`: {r.status}: {r.reason}" for r in reasons.itertuples()] + [""]

    figure = _figure(ok, variants, labels, out_dir / "figures" / FIGURE)
    lines += ["## Figure", "", f"![BLEU against source sentence length](figures/{figure.name})", "",
              "Lines join bucket means over seeds; shading is seaborn's 95% bootstrap interval over seeds.", ""]
    lines += _samples(ok, variants)
    lines += ["## Against the published finding", "", PUBLISHED + " " + findings(df)[0].sentence, ""]
    path = out_dir / f"{suite.name}.md"
    path.write_text("\n".join(lines))
    return [path, figure]


def _setup(df, ok, first, settings, seeds) -> List[str]:
    bleu = ok[ok.metric == "bleu"]
    signature = bleu.extra.iloc[0].get("signature", "?") if len(bleu) else "?"
    protocol = bleu.extra.iloc[0].get("protocol", "") if len(bleu) else ""
    chrf = ok[ok.metric == "chrf"]
    chrf_sig = chrf.extra.iloc[0].get("signature", "?") if len(chrf) else "?"
    get = lambda key, default="?": first.get(key, default) if key in first else default  # noqa: E731
    dropped = get("dropped_pairs", {}) or {}
    return [
        "## Setup", "",
        f"- Corpus: {get('corpus')} ({get('corpus_description')}), sha256 {str(first.data_checksum)[:16]}...; "
        f"{get('train_pairs')} training pairs, {get('test_sentences')} test sentences; joint BPE vocabulary of "
        f"{get('vocab_size')} tokens trained on the training split; pairs over {settings['max_len']} tokens dropped "
        f"({', '.join(f'{k} {v}' for k, v in dropped.items()) or 'none'}).",
        f"- RNN encoder-decoders: embedding {settings['d_embed']}, hidden {settings['d_hidden']}, {settings['rnn_layers']} {'layer' if settings['rnn_layers'] == 1 else 'layers'}; "
        f"attention decoders as in the model column: Bahdanau et al. 2014 (the previous state s_(i-1) scores the encoder "
        f"states, the context is fed into the RNN step, a maxout layer reads out) or Luong et al. 2015 (the new state h_t "
        f"scores them, tanh(W_c [c_t; h_t]) reads out), each with the named score. Transformer encoder-decoder: d_model {settings['d_model']}, {settings['n_layers']} encoder and "
        f"{settings['n_layers']} decoder layers, {settings['n_heads']} heads, tied embeddings.",
        f"- Training: {settings['steps']} steps of {settings['batch_size']} sentence pairs (teacher forcing), AdamW with "
        f"warm-up and cosine decay: lr {settings['lr']:g} after {settings['warmup_steps']} warm-up steps for the RNNs, "
        f"{settings.get('transformer_lr', settings['lr']):g} after {settings.get('transformer_warmup_steps', settings['warmup_steps'])} "
        f"for the Transformer (it needs the longer warm-up); weight decay {settings['weight_decay']:g}, "
        f"dropout {settings['dropout']:g}, gradient clipping {settings['grad_clip']:g}; profile `{first.profile}`; seeds {seeds}.",
        f"- Decoding: {get('decoding')}. {protocol[0].upper() + protocol[1:] if protocol else ''}.",
        f"- BLEU signature `{signature}`; chrF signature `{chrf_sig}`.",
        f"- Device: {first.device} ({first.device_name}), {first['dtype']}, torch {first.torch_version}, "
        f"{first.get('num_threads')} threads, allocator {first.get('allocator')}; {code_line(df)}.",
        "",
    ]


def _baseline_lines(ok: pd.DataFrame) -> List[str]:
    """The two trivial translations of the test split, so the table's numbers can be read as learned or not."""
    baselines = _baselines(ok)
    if baselines is None:
        return ["These records carry no baselines (they predate them); a model counts as not learned when every "
                f"length bucket stays below BLEU {LEARNED:g}.", ""]
    rows = [{"baseline": BASELINES[name], "BLEU": f"{b['bleu']:.1f}", "chrF": f"{b['chrf']:.1f}"} for name, b in baselines.items()]
    frequent = baselines.get("most_frequent_target", {})
    name, best = best_baseline(baselines)
    return [f"Baselines on the same test split and scorer (the most frequent training target is \"{frequent.get('sentence', '?')}\", "
            f"{frequent.get('count', '?')} times):", "", markdown_table(pd.DataFrame(rows)), "",
            f"A variant whose mean BLEU is not at least {LEARNED_MARGIN:g} above the better baseline ({best:.1f}) is marked "
            "\"did not learn\" and left out of the comparison with the paper.", ""]


def _samples(ok: pd.DataFrame, variants: List[str]) -> List[str]:
    bleu = ok[ok.metric == "bleu"].sort_values("seed")
    per_variant = {v: bleu[bleu.variant == v].extra.iloc[0].get("samples", []) for v in variants if (bleu.variant == v).any()}
    if not per_variant:
        return []
    reference = next(iter(per_variant.values()))
    lines = ["## Sample translations (lowest seed of each variant)", ""]
    for i, sample in enumerate(reference):
        rows = [{"": "source", "text": sample["source"]}, {"": "reference", "text": sample["reference"]}]
        rows += [{"": v, "text": s[i]["hypothesis"]} for v, s in per_variant.items() if i < len(s)]
        lines += [f"{sample['source_words']} source words:", "", markdown_table(pd.DataFrame(rows)), ""]
    return lines


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdict on Bahdanau et al.'s finding from one group of records."""
    ok = df[df.status == "ok"]
    specs = {r.variant: r.spec for r in df.drop_duplicates("variant").itertuples()}
    variants = _order(list(specs), specs)
    buckets = df[df.metric == "bleu_by_length"].drop_duplicates("x").sort_values("x")
    labels = {r.x: f"{r.extra['bucket']} words (n={r.extra['sentences']})" for r in buckets.itertuples()}
    return [_verdict(ok, variants, specs, labels, flag_unlearned(ok, variants))]


def _verdict(ok: pd.DataFrame, variants: List[str], specs: Dict[str, dict], labels: Dict[float, str],
             flagged: Optional[Mapping[str, str]] = None) -> Finding:
    """Whether this run reproduces Bahdanau et al.'s finding, from the RNN variants that learned.

    The attention side is their model (the bahdanau decoder with the additive score) when the run has it,
    otherwise the other attention RNNs, said so; variants in ``flagged`` (did not learn) are left out.
    """
    if not labels:
        return not_run(BOTTLENECK, "This run has no BLEU by source length, so it cannot be compared.")
    flagged = dict(flagged or {})
    means: Dict[str, Dict[float, float]] = {}
    for v in variants:
        rows = ok[(ok.variant == v) & (ok.metric == "bleu_by_length")]
        means[v] = {x: mean_ci(rows[rows.x == x].value)[0] for x in labels if (rows.x == x).any()}
    longest = max(labels)
    rnn = [v for v in variants if specs[v].get("family") == "rnn_seq2seq" and longest in means[v]]
    plain = [v for v in rnn if specs[v]["scoring"] == "none"]
    searches = [v for v in rnn if _is_rnnsearch(specs[v])]
    attn = searches or [v for v in rnn if specs[v]["scoring"] != "none"]
    if not plain or not attn:
        return not_run(BOTTLENECK, "This run lacks RNN encoder-decoders with and without attention on the longest bucket, "
                       "so it cannot be compared.")
    short = "Bahdanau's attention" if searches else "attention"
    side = (f"{short} (the bahdanau decoder with the additive score)" if searches else
            "attention (none is Bahdanau's model, the bahdanau decoder with the additive score, so this compares "
            "attention in general)")
    out = [v for v in plain + attn if v in flagged]
    sentences = []
    if out:
        sentences.append(
            f"Here {len(out)} of the {len(plain + attn)} RNN variants compared {'is' if len(out) == 1 else 'are'} left out "
            f"because {'it' if len(out) == 1 else 'they'} did not learn (mean BLEU not at least {LEARNED_MARGIN:g} above the "
            f"better baseline): " + ", ".join(f"{v} ({flagged[v]})" for v in out) + ".")
    plain = [v for v in plain if v not in flagged]
    attn = [v for v in attn if v not in flagged]
    if not attn:
        return finding(BOTTLENECK, "inconclusive", " ".join(
            sentences + [f"No model with {short} learned the task with this budget, so this run cannot test the finding."]))
    if not plain:
        return finding(BOTTLENECK, "inconclusive", " ".join(
            sentences + ["No model without attention learned the task, so this run cannot test the finding."]))

    def kept(v):
        peak = max(means[v].values())
        return means[v][longest] / peak if peak > 0 else math.nan

    def describe(vs):
        return ", ".join(f"{v} {means[v][longest]:.1f} ({kept(v):.0%} of its best bucket)" for v in vs)

    bucket = labels[longest].split(" (")[0]
    sentences.append(f"{'Of the others' if out else 'Here'}, on the longest bucket ({bucket}), the RNNs without attention "
                     f"reach BLEU {describe(plain)}, and those with {side} {describe(attn)}.")
    text = " ".join(sentences)
    holds = all(kept(v) >= HOLDS for v in attn)
    falls = all(kept(v) < HOLDS for v in plain)
    better = min(means[v][longest] for v in attn) > max(means[v][longest] for v in plain)
    estimates = [Estimate.of(f"BLEU on {bucket}, {v}", ok[(ok.variant == v) & (ok.metric == "bleu_by_length")
                                                                 & (ok.x == longest)].value) for v in attn + plain]
    if holds and falls and better:
        return finding(BOTTLENECK, "agrees", text + (f" This run agrees: attention holds BLEU on long sources (at least {HOLDS:.0%} of the best "
                       f"bucket) while the fixed-vector models fall below it."), estimates)
    why = []
    if not holds:
        why.append("an attention model also loses BLEU on long sources")
    if not falls:
        why.append("a model without attention keeps its BLEU on long sources")
    if not better:
        why.append("attention does not beat every model without attention on the longest bucket")
    return finding(BOTTLENECK, "disagrees",
                   text + f" This run does not fully reproduce the finding at this size: {'; '.join(why)}.", estimates)


def _figure(ok: pd.DataFrame, variants: List[str], labels: Dict[float, str], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    path.parent.mkdir(parents=True, exist_ok=True)
    data = ok[ok.metric == "bleu_by_length"].rename(columns={"x": "source length (words, bucket upper bound)", "value": "BLEU"})
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    sns.lineplot(data=data, x="source length (words, bucket upper bound)", y="BLEU", hue="variant",
                 hue_order=[v for v in variants if v in set(data.variant)], marker="o", errorbar=("ci", 95), ax=ax)
    ax.set_xticks(sorted(labels))
    ax.set_xticklabels([labels[x].split(" words")[0] for x in sorted(labels)])
    ax.set_xlabel("source sentence length (words)")
    ax.set_ylabel("test BLEU of the bucket")
    ax.set_ylim(bottom=0)
    ax.set_title("BLEU against source sentence length (cf. Bahdanau et al. 2014, Fig. 2)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
