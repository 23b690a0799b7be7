"""The position_extrapolation report: perplexity by length, the figure, whether each variant extrapolates, the RoPE
extensions and sliding windows beside the published findings, and the setup."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.findings import sentences
from harness.report_kit import begin, code_line, machines, title
from harness.report_sections import BOOKKEEPING, FIGURE, Report, Section, section
from suites.common.facts import fact, parameter_counts
from suites.common.learning import learning_section
from suites.position_extrapolation.claims._shared import EXTENSION_PUBLISHED, PUBLISHED
from suites.position_extrapolation.figures import perplexity_figure
from suites.position_extrapolation.rope_extension import extension_section
from suites.position_extrapolation.tables import (
    ORDER,
    Shape,
    consecutive_section,
    extrapolation_section,
    perplexity_section,
)
from suites.position_extrapolation.window_span import window_section

#: the claims the RoPE-extension section states, in suite.yaml's order
EXTENSION_CLAIMS = ("rope_blows_up", "pi_short", "pi_beats_extrapolation", "ntk_close", "yarn_close")


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    first, variants, seeds = begin(df, out_dir, ORDER)
    ok = df[df.status == "ok"]
    lengths = sorted(ok[ok.metric == "perplexity"].x.dropna().unique())
    train_len = int(first.profile_settings["train_len"])
    found = {f.claim.key: f for f in judge_all(suite, df)}
    shape = Shape(df)
    figure = perplexity_figure(ok, variants, train_len, out_dir / "figures" / f"{suite.name}.png")
    extension = sentences(found[k] for k in EXTENSION_CLAIMS)
    return Report(title(suite, "Length extrapolation", first), files=[figure]).add(
        _setup(df, ok, first, variants, seeds),
        perplexity_section(df, ok, variants, lengths, train_len),
        consecutive_section(ok, lengths, train_len),  # None unless the run has randomized positions
        learning_section(shape.checks, variants),
        extrapolation_section(shape, variants),
        section("Figure", [f"![perplexity against evaluation length](figures/{figure.name})", ""], FIGURE),
        section("Against the published finding", [PUBLISHED + " " + found["alibi_extrapolates"].sentence, ""]),
        extension_section(df, train_len, EXTENSION_PUBLISHED, extension),  # None without rope+<scaling>
        window_section(ok, variants, lengths, train_len),  # None unless the run has rope+window<W> variants
    )


def _setup(df: pd.DataFrame, ok: pd.DataFrame, first, variants: list[str], seeds: list[int]) -> Section:
    """The model, its training, the corpus, the protocol and the device, from the records themselves."""
    settings, spec = first.profile_settings, first.spec
    train_len = int(settings["train_len"])
    return section(
        "Setup",
        [
            f"- Model: decoder-only Transformer, {spec['n_layers']} layers, d_model {spec['d_model']}, "
            f"{spec['n_heads']} heads, Pre-LN, tied embeddings, kernel {spec['kernel']}; parameters: "
            f"{parameter_counts(ok, variants)}.",
            f"- Training: {settings['steps']} steps of {settings['batch_size']} x {train_len} characters "
            f"(L = {train_len}), AdamW lr {settings['lr']:g} (warm-up {settings['warmup_steps']} steps, cosine decay), "
            f"weight decay {settings['weight_decay']:g}, gradient clipping {settings['grad_clip']:g}; profile "
            f"`{first.profile}`; seeds {seeds}.",
            f"- Corpus: {first.get('corpus', '?')} (sha256 {str(first.data_checksum)[:16]}...), "
            f"{first.get('split') or 'last ' + format(settings['heldout_fraction'], '.0%') + ' held out'}; "
            f"{int(first.get('train_chars') or 0):,} training characters, read "
            f"{float(first.get('train_passes') or 0):.2f} times; {int(first.get('eval_chars', 0)):,} held-out "
            "characters scored at every length.",
            f"- Protocol: **{settings['protocol']}** windows"
            + (f" (stride {settings['stride'] or train_len})" if settings["protocol"] == "sliding" else "")
            + ".",
            f"- Device: {first.device} ({machines(df)}), {first['dtype']}, torch {first.torch_version}, "
            f"flush denormals {fact(first, 'flush_denormal')}, allocator {fact(first, 'allocator')}; "
            f"{code_line(df)}.",
            "",
        ],
        BOOKKEEPING,
    )
