"""The retrieval_length report: setup, accuracy by length with effective lengths, by depth, the loss beside it,
figures and the verdicts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.findings import sentences
from harness.report_kit import code_line, in_order, machines, status_notes, title, write_markdown
from harness.report_kit import seeds as seeds_of
from suites.retrieval_length.figures import accuracy_figure, depth_figure
from suites.retrieval_length.index_view import index_section  # noqa: F401  (the index reads it from this module)
from suites.retrieval_length.passkey import NEEDLE, QUESTION
from suites.retrieval_length.probe_figures import PROBE_FIGURES  # noqa: F401  (the figures its claims cite)
from suites.retrieval_length.records import settings as settings_of
from suites.retrieval_length.tables import ORDER, accuracy_section, depth_section, loss_section
from suites.retrieval_length.verdicts import CLAIMS, findings  # noqa: F401  (the suite's claims and verdicts)


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    ok = df[df.status == "ok"]
    variants = in_order(df.variant.unique(), ORDER)
    first = ok.iloc[0] if len(ok) else df.iloc[0]
    s = settings_of(df)
    train_len = int(s["train_len"])
    seeds = seeds_of(df)
    spec = first.spec
    params = ok.groupby("variant").parameters.first() if "parameters" in ok else pd.Series(dtype=float)
    lines = title(suite, "Passkey retrieval at length", first)
    lines += [
        "## Setup",
        "",
        f"- Model: decoder-only Transformer, {spec['n_layers']} layers, d_model {spec['d_model']}, {spec['n_heads']} "
        f"heads, initialisation {spec.get('init', 'gpt2')}; parameters: "
        + ", ".join(f"{v} {int(params[v]):,}" for v in variants if v in params.index)
        + ".",
        f"- Task: passkey retrieval (Mohtashami & Jaggi 2023): a needle '{NEEDLE.strip()}' with 5 random digits at a "
        f"depth of corpus filler, the sequence ending '{QUESTION.strip()}' before the key. Training: {s['steps']} steps "
        f"of {s['batch_size']} sequences of L = {train_len}, depths uniform in [0, 1], loss on the key plus "
        f"{s['lm_weight']:g} x the next-character loss on the rest; AdamW lr {s['lr']:g} (warm-up {s['warmup_steps']}, "
        f"cosine decay); profile `{first.profile}`; seeds {seeds}.",
        f"- Fine-tuning arms (RoPE without a window): {s['short_finetune_steps']} and {s['finetune_steps']} steps at "
        f"{s['finetune_len']} characters (s = {s['finetune_len'] / train_len:g}, the scaling at that fixed s; plain RoPE "
        "unscaled as the control), lr 0.1 x the training's, constant after a 10% warm-up.",
        f"- Corpus: {first.get('corpus', '?')} ({first.get('split', '')}); training filler from the training split, "
        f"scored filler from the held-out split; characters added to its vocabulary: {first.get('added_chars') or 'none'}.",
        f"- Device: {first.device} ({machines(df)}), {first['dtype']}, torch {first.torch_version}; {code_line(df)}.",
        "",
    ]
    lines += accuracy_section(df, variants, s, len(seeds))
    lines += depth_section(df, variants, s)
    lines += loss_section(df, variants, s)
    notes = status_notes(df)
    if notes:
        lines += ["## Not measured", ""] + notes + [""]
    figures = [
        accuracy_figure(df, variants, s, out_dir / "figures" / f"{suite.name}.png"),
        depth_figure(df, variants, s, out_dir / "figures" / f"{suite.name}_depth.png"),
    ]
    lines += ["## Figures", ""] + [f"![{p.stem}](figures/{p.name})" for p in figures] + [""]
    lines += ["## Against the published findings", ""] + [f"- {t}" for t in sentences(findings(df))] + [""]
    return [write_markdown(suite, lines, out_dir), *figures]
