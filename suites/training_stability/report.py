"""The training_stability report: the warm-up grid, what dropping the warm-up costs per cell, whether each run
learned, per-layer gradient ratios, the findings.

Divergence and collapse are the findings here, so every run counts (verdicts.py): a collapsed run enters the
comparisons at its loss, never left out.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report_kit import begin, code_line, status_notes, title, write_markdown
from suites.common.learning import learning_section
from suites.training_stability.figures import gradient_figure
from suites.training_stability.init_probe import METRIC as W2_METRIC
from suites.training_stability.outcomes import cells, outcomes
from suites.training_stability.probe_table import probe_table
from suites.training_stability.tables import (  # noqa: F401
    ORDER,
    _cost_table,
    _expand,
    _ratio_table,
    _warmup_table,
    run_checks,
    run_label,
)
from suites.training_stability.verdicts import CLAIMS, GRADIENTS, PUBLISHED, TRAINABILITY, findings  # noqa: F401  (the suite's claims and verdicts, read through this module)


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> list[Path]:
    found = findings(df)
    probe = df[(df.metric == W2_METRIC) & (df.status == "ok")]
    df = df[df.metric != W2_METRIC]  # the training grid's records (the probe's are in their own table)
    first, variants, seeds = begin(df, out_dir, ORDER)
    s, spec = first.profile_settings, first.spec
    lines = title(suite, "Post-LN vs Pre-LN training stability", first)
    setup = [
        "## Setup",
        "",
        f"- Model: decoder-only Transformer, d_model {spec['d_model']}, {spec['n_heads']} heads, depths "
        f"{list(s['depths'])}, {spec['norm']}, {spec['ffn']} FFN, {spec['position']} positions; weights initialised "
        + (
            "Xavier-uniform in every linear layer (Xiong et al.'s setting)"
            if s["init"] == "xavier"
            else "by the model's own scheme"
        )
        + "; variants differ only in norm placement.",
        f"- Training: {s['steps']} Adam steps (betas 0.9/0.98, weight decay {s['weight_decay']:g}, "
        f"{'no clipping' if not s['grad_clip'] else 'clipping at %g' % s['grad_clip']}) of {s['batch_size']} x "
        f"{s['train_len']} characters; peak learning rates {list(s['lrs'])}, warm-up "
        f"steps {list(s['warmups'])} (linear), then cosine decay; seeds {seeds}; profile `{first.profile}`.",
        f"- Corpus: {first.get('corpus', '?')} (sha256 {str(first.data_checksum)[:16]}...), "
        f"{first.get('split') or 'last ' + format(s['heldout_fraction'], '.0%') + ' held out'}; "
        f"{int(first.get('train_chars') or 0):,} training characters, read {float(first.get('train_passes') or 0):.2f} "
        "times by each run.",
        "- Diverged: the loss became non-finite or exceeded 3x its start during training, or the final training loss "
        "(mean of the last 10% of steps) is not below the first step's.",
        f"- Held-out loss: {int(first.get('eval_chars', 0)):,} held-out characters in non-overlapping windows of "
        f"{s['train_len']}. Device {first.device} ({first.device_name}), torch {first.torch_version}; "
        f"{code_line(df)}.",
        "",
    ]
    runs = _expand(df[df.metric == "heldout_loss"], "depth", "warmup")
    grads = _expand(df[(df.metric == "ffn_grad_norm") & (df.status == "ok")], "depth")
    unigram = float(first.get("unigram_loss", float("nan")))
    checks = run_checks(df, variants)
    lines += _warmup_table(runs, variants, unigram)
    lines += _cost_table(cells(outcomes(runs, unigram), unigram) if len(runs) else [], variants)
    ratio_lines, _, _ = _ratio_table(grads, variants)
    lines += probe_table(probe) + ratio_lines
    figure = gradient_figure(grads, variants, out_dir / "figures" / f"{suite.name}.png")
    lines += ["## Figure", "", f"![FFN gradient norm by layer at initialisation](figures/{figure.name})", ""]
    # the gradient and warm-up verdicts' sentences repeat the tables above: one line each; trainability's counts
    # per seed are in no table, so its sentence stays
    says = {"agrees": "**agrees**", "disagrees": "**disagrees**"}
    lines += (
        ["## Against the published finding", "", PUBLISHED, ""]
        + [
            f"- {f.sentence}"
            if f.claim == TRAINABILITY and f.sentence
            else f"- {f.claim.name}: this run {says.get(f.verdict, f'is **{f.verdict}**')}"
            + (f" ({f.cause.rstrip('.')})" if f.cause and f.verdict != "agrees" else "")
            + "."
            for f in found
        ]
        + [""]
    )
    lines += setup + learning_section(checks, label="run").markdown()
    lines += [
        "Only runs that finished are in this table; the flags are shown to read the grid by. No verdict leaves a "
        "run out: a diverged run, or one no better than the unigram loss, is the instability these claims are about "
        "and enters at its loss.",
        "",
    ]
    failed = status_notes(df, statuses=["failed", "oom", "skipped"])
    if failed:
        lines += ["## Cells that are not numbers: jobs that did not run", ""] + failed + [""]
    return [write_markdown(suite, lines, out_dir), figure]
