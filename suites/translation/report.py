"""The translation report: BLEU by source length (the answer), BLEU and chrF per variant against the baselines, samples,
the published finding; setup and cells that are not numbers last."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.report_kit import (
    begin,
    code_line,
    fmt_mean_ci,
    markdown_table,
    marked,
    most_seeds,
    over_seeds,
    status_notes,
    title,
)
from harness.report_sections import BOOKKEEPING, FIGURE, HEADLINE, Report, Section, section
from suites.common.facts import fact
from suites.translation.claims._shared import PUBLISHED, Evidence, prepare
from suites.translation.compute import compute_section
from suites.translation.encoders import encoder_section
from suites.translation.figures import COMPUTE_FIGURE, bleu_by_length_figure, bleu_compute_figure
from suites.translation.figures import FIGURE as FIGURE_FILE
from suites.translation.tables import BLEU, _baseline_lines, _family, samples_section


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    first, _, seeds = begin(df, out_dir)
    ev = prepare(df)
    ok, variants = ev.ok, ev.variants
    figure = bleu_by_length_figure(ok, variants, ev.labels, out_dir / "figures" / FIGURE_FILE)
    curve = bleu_compute_figure(ok, variants, out_dir / "figures" / COMPUTE_FIGURE)
    images = [f"![BLEU against source sentence length](figures/{figure.name})", ""]
    images += [
        "Lines join bucket means over seeds; shading is seaborn's 95% bootstrap interval over seeds.",
        "",
    ]
    if curve is not None:
        images += [f"![BLEU against training FLOPs](figures/{curve.name})", ""]
    bottleneck, reversed_source, compute = judge_all(suite, df)
    published = [
        PUBLISHED + " " + bottleneck.sentence,
        "",
        f"{reversed_source.claim.source} report that {reversed_source.claim.published}. {reversed_source.sentence}",
        "",
        f"{compute.claim.source} report {compute.claim.published}. {compute.sentence}",
        "",
    ]
    reasons = status_notes(df)
    report = Report(title(suite, "Translation", first), files=[figure] + ([curve] if curve is not None else []))
    return report.add(
        _by_length(ok, variants, ev.labels),
        encoder_section(ok, ev.specs, ev.labels),
        compute_section(ok, ev.specs),
        _scores(df, ev),
        section("Figure", images, FIGURE),
        samples_section(ok, variants),
        section("Against the published findings", published),
        _setup(df, ok, first, first.profile_settings, seeds),
        section("Cells that are not numbers", reasons + [""], BOOKKEEPING) if reasons else None,
    )


def _by_length(ok, variants, labels) -> Section:
    """The report's first table: BLEU per source-length bucket and variant (what the verdict reads)."""
    table = []
    for v in variants:
        row = {"variant": v}
        for x, label in labels.items():
            vals = ok[(ok.variant == v) & (ok.metric == "bleu_by_length") & (ok.x == x)].value
            row[label] = fmt_mean_ci(vals, kind="bounded", bounds=BLEU) if len(vals) else "-"
        table.append(row)
    return section(
        f"BLEU by source-sentence length ({over_seeds(most_seeds(ok[ok.metric == 'bleu_by_length']))})",
        [
            "Each bucket's test sentences are scored as one corpus; n is the number of test sentences in it.",
            "",
            markdown_table(pd.DataFrame(table)),
            "",
        ],
        HEADLINE,
    )


def _scores(df: pd.DataFrame, ev: Evidence) -> Section:
    """Scores per variant, then the baselines they are judged against and the variants that did not learn."""
    ok, flagged = ev.ok, ev.flagged
    rows = []
    for v in ev.variants:
        got = lambda metric: ok[(ok.variant == v) & (ok.metric == metric)].value  # noqa: E731
        params = ok[ok.variant == v].parameters.dropna()
        bad = df[(df.variant == v) & (df.status != "ok")]
        rows.append(
            {
                "variant": v,
                "model": _family(ev.specs[v]),
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
    lines = [markdown_table(pd.DataFrame(rows)), ""] + _baseline_lines(ok)
    if flagged:
        lines += ["Did not learn:", ""] + [f"- `{v}`: {why}" for v, why in flagged.items()] + [""]
    return section(f"Test BLEU and chrF ({over_seeds(most_seeds(ok))})", lines)


def _setup(df, ok, first, settings, seeds) -> Section:
    bleu = ok[ok.metric == "bleu"]
    signature = bleu.extra.iloc[0].get("signature", "?") if len(bleu) else "?"
    protocol = bleu.extra.iloc[0].get("protocol", "") if len(bleu) else ""
    chrf = ok[ok.metric == "chrf"]
    chrf_sig = chrf.extra.iloc[0].get("signature", "?") if len(chrf) else "?"
    get = lambda key, default="?": first.get(key, default) if key in first else default  # noqa: E731
    dropped = get("dropped_pairs", {}) or {}
    return section(
        "Setup",
        [
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
        ],
        BOOKKEEPING,
    )
