"""The retrieval_length report: accuracy by length with effective lengths, the figures, by depth, the loss beside it,
the verdicts' sentences, and the setup."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.findings import sentences
from harness.report_kit import begin, code_line, first_ok, machines, status_notes, title
from harness.report_sections import BOOKKEEPING, FIGURE, Report, Section, section
from suites.common.facts import parameter_counts
from suites.retrieval_length.figures import accuracy_figure, depth_figure
from suites.retrieval_length.index_view import effective_lengths
from suites.retrieval_length.passkey import NEEDLE, QUESTION
from suites.retrieval_length.records import settings as settings_of
from suites.retrieval_length.tables import ORDER, accuracy_section, depth_section, loss_section


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    _, variants, seeds = begin(df, out_dir, ORDER)
    first, s = first_ok(df), settings_of(df)
    notes = status_notes(df)
    figures = [
        accuracy_figure(df, variants, s, out_dir / "figures" / f"{suite.name}.png"),
        depth_figure(df, variants, s, out_dir / "figures" / f"{suite.name}_depth.png"),
    ]
    return Report(title(suite, "Passkey retrieval at length", first), files=figures).add(
        _setup(df, first, s, variants, seeds),
        accuracy_section(df, variants, s, len(seeds)),
        depth_section(df, variants, s),
        loss_section(df, variants, s),
        section("Not measured", notes + [""]) if notes else None,
        section("Figures", [f"![{p.stem}](figures/{p.name})" for p in figures] + [""], FIGURE),
        section("Against the published findings", [f"- {t}" for t in sentences(judge_all(suite, df))] + [""]),
    )


def index_section(frames: Mapping[str, pd.DataFrame], reports_dir: Path) -> list[str]:
    """The index's "Effective length by passkey retrieval" (index_view.py), which the index reads from this module."""
    return effective_lengths(frames, reports_dir)


def _setup(df: pd.DataFrame, first, s: dict, variants: list[str], seeds: list[int]) -> Section:
    """The model, the task and its training, the fine-tuning arms, the corpus and the device."""
    spec, train_len = first.spec, int(s["train_len"])
    ok = df[df.status == "ok"]
    return section(
        "Setup",
        [
            f"- Model: decoder-only Transformer, {spec['n_layers']} layers, d_model {spec['d_model']}, "
            f"{spec['n_heads']} heads, initialisation {spec.get('init', 'gpt2')}; parameters: "
            f"{parameter_counts(ok, variants)}.",
            f"- Task: passkey retrieval (Mohtashami & Jaggi 2023): a needle '{NEEDLE.strip()}' with 5 random digits at "
            f"a depth of corpus filler, the sequence ending '{QUESTION.strip()}' before the key. Training: "
            f"{s['steps']} steps of {s['batch_size']} sequences of L = {train_len}, depths uniform in [0, 1], loss on "
            f"the key plus {s['lm_weight']:g} x the next-character loss on the rest; AdamW lr {s['lr']:g} (warm-up "
            f"{s['warmup_steps']}, cosine decay); profile `{first.profile}`; seeds {seeds}.",
            f"- Fine-tuning arms (RoPE without a window): {s['short_finetune_steps']} and {s['finetune_steps']} steps "
            f"at {s['finetune_len']} characters (s = {s['finetune_len'] / train_len:g}, the scaling at that fixed s; "
            "plain RoPE unscaled as the control), lr 0.1 x the training's, constant after a 10% warm-up.",
            f"- Corpus: {first.get('corpus', '?')} ({first.get('split', '')}); training filler from the training "
            "split, scored filler from the held-out split; characters added to its vocabulary: "
            f"{first.get('added_chars') or 'none'}.",
            f"- Device: {first.device} ({machines(df)}), {first['dtype']}, torch {first.torch_version}; "
            f"{code_line(df)}.",
            "",
        ],
        BOOKKEEPING,
    )
