"""The attention_explanation report: the verdicts, the probes' numbers per variant, and which paper they support."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.report_kit import begin, code_line, fmt_mean_ci, markdown_table, most_seeds, over_seeds, title
from harness.report_sections import BOOKKEEPING, HEADLINE, Report, Section, section
from suites.attention_explanation.claims._shared import BLEU

ROWS = (
    ("bleu", "test BLEU", "bounded"),
    ("uniform_bleu", "test BLEU, weights made uniform at inference", "bounded"),
    ("tau_attention_gradient", "Kendall tau: attention, gradient", None),
    ("tau_attention_loo", "Kendall tau: attention, leave-one-out", None),
    ("tau_gradient_loo", "Kendall tau: gradient, leave-one-out", None),
    ("significant_attention_gradient", "steps whose attention-gradient tau has p < 0.05 (% of steps)", None),
    ("permutation_tvd", "output moved by permuting a step's weights (median TVD, of 1)", None),
    ("uniform_tvd", "output moved by uniform weights (TVD, of 1)", None),
    ("max_attention", "largest attention weight of a step", None),
)


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    first, _, _ = begin(df, out_dir)
    supports = []
    for found in judge_all(suite, df):
        supports += [f"- {found.claim.source}: {found.claim.published}. Here **{found.verdict}**: {found.sentence}", ""]
    settings = first.profile_settings
    setup = [
        f"- Corpus {settings['data']}, BPE vocabulary {settings['vocab_size']}; RNN embedding {settings['d_embed']}, "
        f"hidden {settings['d_hidden']}; {settings['steps']} AdamW steps of {settings['batch_size']} pairs at lr "
        f"{settings['lr']:g}; greedy decoding; {settings['permutations']} permutations per step; profile `{first.profile}`.",
        f"- Device: {first.device}, torch {first.torch_version}; {code_line(df)}.",
        "",
    ]
    return Report(title(suite, "Do attention weights explain a translator?", first)).add(
        _probes(df),
        section("Which paper the measurement supports", supports),
        section("Setup", setup, BOOKKEEPING),
    )


def _probes(df: pd.DataFrame) -> Section:
    """The headline: each probe's measurement per variant, mean over seeds."""
    ok = df[df.status == "ok"]
    variants = list(dict.fromkeys(df.variant))
    table = []
    for metric, label, kind in ROWS:
        row = {"measurement": label}
        for v in variants:
            vals = ok[(ok.variant == v) & (ok.metric == metric)].value
            row[f"`{v}`"] = (
                fmt_mean_ci(vals, 3, kind="bounded", bounds=BLEU)
                if kind and len(vals)
                else (fmt_mean_ci(vals, 3) if len(vals) else "-")
            )
        table.append(row)
    steps = ok[ok.metric == "permutation_tvd"].extra
    probed = (
        f"{int(steps.iloc[0]['steps'])} target steps of {int(steps.iloc[0]['sentences'])} test sentences"
        if len(steps)
        else "no steps"
    )
    return section(
        f"What each model's attention does ({over_seeds(most_seeds(ok))})",
        [
            f"Probes at every teacher-forced target step ({probed} per seed; suites/attention_explanation/probes.py): "
            "Kendall tau between the attention weights over the source words and their gradient importance (the L2 "
            "norm of the gradient of the step's most probable token's log-probability with respect to the word's "
            "embedding, the weights detached) and leave-one-out importance (the total variation distance of the step's "
            "output when the word is removed); TVD is the total variation distance between two output distributions "
            "(at most 1). A dash: not measured for that model (uniform weights have nothing to probe).",
            "",
            markdown_table(pd.DataFrame(table)),
            "",
        ],
        HEADLINE,
    )
