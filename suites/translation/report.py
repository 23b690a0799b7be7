"""The translation report: BLEU by source length (the answer), BLEU and chrF per variant against the baselines, samples,
the published finding; setup and cells that are not numbers last."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report_kit import (
    code_line,
    fmt_mean_ci,
    markdown_table,
    marked,
    most_seeds,
    over_seeds,
    status_notes,
    title,
    write_markdown,
)
from harness.report_kit import seeds as seeds_of
from suites.common.facts import fact
from suites.translation.compute_verdict import COMPUTE, compute_section
from suites.translation.encoder_verdict import REVERSED, encoder_table
from suites.translation.figures import COMPUTE_FIGURE, FIGURE, bleu_by_length_figure, bleu_compute_figure
from suites.translation.tables import LEARNED, _baseline_lines, _family, _order, _samples, flag_unlearned  # noqa: F401
from suites.translation.verdicts import BLEU, CLAIMS, HOLDS, PUBLISHED, _verdict, findings  # noqa: F401  (the suite's claims and verdicts, read through this module)


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    ok = df[df.status == "ok"]
    specs = {r.variant: r.spec for r in df.drop_duplicates("variant").itertuples()}
    variants = _order(list(specs), specs)
    first = df.iloc[0]
    settings = first.profile_settings
    seeds = seeds_of(df)
    labels = _labels(df)
    lines = title(suite, "Translation", first)
    lines += _by_length(ok, variants, labels)
    lines += encoder_table(ok, specs, labels)
    lines += compute_section(ok, specs)

    # --- scores per variant, then the baselines they are judged against
    flagged = flag_unlearned(ok, variants)
    lines += [f"## Test BLEU and chrF ({over_seeds(most_seeds(ok))})", ""]
    rows = []
    for v in variants:
        got = lambda metric: ok[(ok.variant == v) & (ok.metric == metric)].value  # noqa: E731
        params = ok[ok.variant == v].parameters.dropna()
        bad = df[(df.variant == v) & (df.status != "ok")]
        rows.append(
            {
                "variant": v,
                "model": _family(specs[v]),
                "parameters": f"{int(params.iloc[0]):,}" if len(params) else "-",
                "BLEU": fmt_mean_ci(got("bleu"), kind="bounded", bounds=BLEU)
                if len(got("bleu"))
                else (bad.status.iloc[0] if len(bad) else "-"),
                "chrF": fmt_mean_ci(got("chrf"), kind="bounded", bounds=BLEU),
                "learned": "did not learn" if v in flagged else "yes",
                "valid loss (nats/token)": fmt_mean_ci(got("valid_loss"), 3, kind="log"),
                "train time (s)": marked(
                    fmt_mean_ci(got("train_time"), 0, kind="log"), ok[(ok.variant == v) & (ok.metric == "train_time")]
                ),
            }
        )
    lines += [markdown_table(pd.DataFrame(rows)), ""] + _baseline_lines(ok)
    if flagged:
        lines += ["Did not learn:", ""] + [f"- `{v}`: {why}" for v, why in flagged.items()] + [""]

    figure = bleu_by_length_figure(ok, variants, labels, out_dir / "figures" / FIGURE)
    lines += [
        "## Figure",
        "",
        f"![BLEU against source sentence length](figures/{figure.name})",
        "",
        "Lines join bucket means over seeds; shading is seaborn's 95% bootstrap interval over seeds.",
        "",
    ]
    figures = [figure]
    curve = bleu_compute_figure(ok, variants, out_dir / "figures" / COMPUTE_FIGURE)
    if curve is not None:
        figures.append(curve)
        lines += [f"![BLEU against training FLOPs](figures/{curve.name})", ""]
    lines += _samples(ok, variants)
    found = findings(df)
    lines += ["## Against the published findings", "", PUBLISHED + " " + found[0].sentence, ""]
    lines += [f"{REVERSED.source} report that {REVERSED.published}. {found[1].sentence}", ""]
    lines += [f"{COMPUTE.source} report {COMPUTE.published}. {found[2].sentence}", ""]
    lines += _setup(df, ok, first, settings, seeds)
    reasons = status_notes(df)
    if reasons:
        lines += ["## Cells that are not numbers", ""] + reasons + [""]
    return [write_markdown(suite, lines, out_dir), *figures]


def _labels(df) -> dict:
    """Each length bucket's x and its column label ('31-40 words (n=258)')."""
    buckets = df[df.metric == "bleu_by_length"].drop_duplicates("x").sort_values("x")
    return {r.x: f"{r.extra['bucket']} words (n={r.extra['sentences']})" for r in buckets.itertuples()}


def _by_length(ok, variants, labels) -> list[str]:
    """The report's first table: BLEU per source-length bucket and variant (what the verdict reads)."""
    lines = [
        f"## BLEU by source-sentence length ({over_seeds(most_seeds(ok[ok.metric == 'bleu_by_length']))})",
        "",
        "Each bucket's test sentences are scored as one corpus; n is the number of test sentences in it.",
        "",
    ]
    table = []
    for v in variants:
        row = {"variant": v}
        for x, label in labels.items():
            vals = ok[(ok.variant == v) & (ok.metric == "bleu_by_length") & (ok.x == x)].value
            row[label] = fmt_mean_ci(vals, kind="bounded", bounds=BLEU) if len(vals) else "-"
        table.append(row)
    return lines + [markdown_table(pd.DataFrame(table)), ""]


def _setup(df, ok, first, settings, seeds) -> list[str]:
    bleu = ok[ok.metric == "bleu"]
    signature = bleu.extra.iloc[0].get("signature", "?") if len(bleu) else "?"
    protocol = bleu.extra.iloc[0].get("protocol", "") if len(bleu) else ""
    chrf = ok[ok.metric == "chrf"]
    chrf_sig = chrf.extra.iloc[0].get("signature", "?") if len(chrf) else "?"
    get = lambda key, default="?": first.get(key, default) if key in first else default  # noqa: E731
    dropped = get("dropped_pairs", {}) or {}
    return [
        "## Setup",
        "",
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
        f"{fact(first, 'num_threads')} threads, allocator {fact(first, 'allocator')}; {code_line(df)}.",
        "",
    ]
