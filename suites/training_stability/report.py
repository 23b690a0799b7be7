"""The training_stability report: the warm-up grid, what dropping the warm-up costs per cell, whether each run
learned, per-layer gradient ratios, the findings.

Divergence and collapse are the findings here, so every run counts (claims/): a collapsed run enters the
comparisons at its loss, never left out.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.report_kit import begin, code_line, status_notes, title
from harness.report_sections import BOOKKEEPING, FIGURE, Report, Section, section
from suites.common.learning import learning_section
from suites.training_stability.claims._shared import PUBLISHED
from suites.training_stability.figures import gradient_figure
from suites.training_stability.init_probe import METRIC as W2_METRIC
from suites.training_stability.outcomes import cells, outcomes
from suites.training_stability.probe_table import probe_section
from suites.training_stability.tables import ORDER, _expand, cost_lines, ratio_section, run_checks, warmup_section


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    found = judge_all(suite, df)
    probe = df[(df.metric == W2_METRIC) & (df.status == "ok")]
    df = df[df.metric != W2_METRIC]  # the training grid's records (the probe's are in their own table)
    first, variants, seeds = begin(df, out_dir, ORDER)
    runs = _expand(df[df.metric == "heldout_loss"], "depth", "warmup")
    grads = _expand(df[(df.metric == "ffn_grad_norm") & (df.status == "ok")], "depth")
    unigram = float(first.get("unigram_loss", float("nan")))
    costs = cost_lines(cells(outcomes(runs, unigram), unigram) if len(runs) else [], variants)
    figure = gradient_figure(grads, variants, out_dir / "figures" / f"{suite.name}.png")
    checks = learning_section(run_checks(df, variants), label="run")
    failed = status_notes(df, statuses=["failed", "oom", "skipped"])
    report = Report(title(suite, "Post-LN vs Pre-LN training stability", first), files=[figure])
    return report.add(
        warmup_section(runs, variants, unigram, costs),
        probe_section(probe),
        ratio_section(grads, variants),
        section("Figure", [f"![FFN gradient norm by layer at initialisation](figures/{figure.name})", ""], FIGURE),
        section("Against the published finding", [PUBLISHED, ""] + _verdict_lines(suite, found) + [""]),
        _setup(df, first, seeds),
        Section(
            checks.heading,
            (
                *checks.lines,
                "Only runs that finished are in this table; the flags are shown to read the grid by. No verdict leaves "
                "a run out: a diverged run, or one no better than the unigram loss, is the instability these claims are "
                "about and enters at its loss.",
                "",
            ),
            BOOKKEEPING,
        ),
        section("Cells that are not numbers: jobs that did not run", failed + [""], BOOKKEEPING) if failed else None,
    )


def _verdict_lines(suite, found) -> list[str]:
    """One line per claim: the gradient and warm-up verdicts' sentences repeat the tables above, so each is its
    verdict and cause; trainability's counts per seed are in no table, so its sentence stays."""
    says = {"agrees": "**agrees**", "disagrees": "**disagrees**"}
    return [
        f"- {f.sentence}"
        if f.claim.key == "post_ln_harder_to_train" and f.sentence
        else f"- {f.claim.name}: this run {says.get(f.verdict, f'is **{f.verdict}**')}"
        + (f" ({f.cause.rstrip('.')})" if f.cause and f.verdict != "agrees" else "")
        + "."
        for f in found
    ]


def _setup(df: pd.DataFrame, first, seeds: list[int]) -> Section:
    s, spec = first.profile_settings, first.spec
    return section(
        "Setup",
        [
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
            f"{int(first.get('train_chars') or 0):,} training characters, read "
            f"{float(first.get('train_passes') or 0):.2f} times by each run.",
            "- Diverged: the loss became non-finite or exceeded 3x its start during training, or the final training "
            "loss (mean of the last 10% of steps) is not below the first step's.",
            f"- Held-out loss: {int(first.get('eval_chars', 0)):,} held-out characters in non-overlapping windows of "
            f"{s['train_len']}. Device {first.device} ({first.device_name}), torch {first.torch_version}; "
            f"{code_line(df)}.",
            "",
        ],
        BOOKKEEPING,
    )
