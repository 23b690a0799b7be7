"""The training_stability tables: each training run's label and learning check, the warm-up grid, what dropping
the warm-up costs in each (depth, lr) cell, and the per-layer gradient ratios at initialisation."""

from __future__ import annotations

import math

import pandas as pd

from harness.paired import Difference
from harness.report_kit import fmt_mean_ci, markdown_table, mean_ci, most_seeds, over_seeds
from harness.report_sections import HEADLINE, Section, section
from suites.common.learning import LearningCheck, learning_checks
from suites.common.narrow import narrow
from suites.training_stability.outcomes import COLLAPSE_WITHIN, Cell

ORDER = ("post_ln", "pre_ln")


def _expand(frame: pd.DataFrame, *keys: str) -> pd.DataFrame:
    frame = frame.copy()
    for key in keys:
        frame[key] = frame.extra.apply(lambda e: e.get(key) if isinstance(e, dict) else None)
    return frame


def run_label(variant: str, depth: int, lr: float, warmup: int) -> str:
    """How a report names one training run (a variant at one depth, peak learning rate and warm-up)."""
    return f"{variant}, depth {int(depth)}, lr {lr:g}, " + (
        "no warm-up" if int(warmup) == 0 else f"warm-up {int(warmup)}"
    )


def run_checks(df: pd.DataFrame, variants: list[str]) -> dict[str, LearningCheck]:
    """Whether each training run that finished learned and did not memorise, by run_label, in table order."""
    runs = _expand(df[df.metric.isin(["heldout_loss", "final_train_loss"])], "depth", "warmup")
    if not len(runs):
        return {}
    keys = {}
    for r in runs[(runs.metric == "heldout_loss") & (runs.status == "ok")].itertuples():
        rank = variants.index(r.variant) if r.variant in variants else len(variants)
        keys[run_label(r.variant, r.depth, r.x, r.warmup)] = (rank, r.variant, int(r.depth), float(r.x), int(r.warmup))
    runs["run"] = [run_label(r.variant, r.depth, r.x, r.warmup) for r in runs.itertuples()]
    checks = learning_checks(runs[runs.run.isin(keys)], "heldout_loss", None, "final_train_loss", by="run")
    return {k: checks[k] for k in sorted(keys, key=keys.get)}


def _stuck(values, unigram: float) -> bool:
    return len(values) > 0 and mean_ci(values)[0] >= unigram - COLLAPSE_WITHIN


def _most_seeds(runs: pd.DataFrame) -> int:
    """The most seeds that ran (did not diverge) in one cell of the warm-up grid."""
    ok = runs[runs.status == "ok"]
    return int(ok.groupby(["variant", "depth", "x", "warmup"]).seed.nunique().max()) if len(ok) else 0


def _cell(part: pd.DataFrame, unigram: float) -> str:
    vals = part[part.status == "ok"].value
    bad = int((part.status == "diverged").sum())
    text = fmt_mean_ci(vals, kind="log") + (" †" if _stuck(vals, unigram) else "") if len(vals) else ""
    if bad:
        text = (text + "; " if text else "") + f"diverged {bad}/{len(part)}"
    return text or "-"


def warmup_section(runs: pd.DataFrame, variants: list[str], unigram: float, then: list[str]) -> Section:
    """The headline: the grid of held-out losses, one row per (depth, variant), one column per (peak lr, warm-up);
    ``then``, the lines that follow it in the section (what dropping the warm-up costs)."""
    warmups = sorted(int(w) for w in runs.warmup.dropna().unique())
    lrs = sorted(runs.x.dropna().unique())
    rows = []
    for depth in sorted(int(d) for d in runs.depth.dropna().unique()):
        for v in variants:
            row = {"depth": depth, "variant": v}
            for lr in lrs:
                for w in warmups:
                    part = runs[(runs.variant == v) & (runs.depth == depth) & (runs.x == lr) & (runs.warmup == w)]
                    row[f"lr {lr:g}, " + ("no warm-up" if w == 0 else f"warm-up {w}")] = _cell(part, unigram)
            rows.append(row)
    return section(
        "Warm-up: held-out loss by depth, peak learning rate and warm-up",
        [
            f"Held-out loss in nats/char ({over_seeds(_most_seeds(runs))}, n = seeds that did not diverge); `diverged k/n` "
            "counts diverged seeds; "
            f"† marks a loss within {COLLAPSE_WITHIN:g} of the unigram loss ({unigram:.2f}: character frequencies of the "
            "training text), a run that learned nothing more: collapsed.",
            "",
            narrow(pd.DataFrame(rows), ["variant", "depth"]) if rows else "No training runs.",
            "",
            *then,
        ],
        HEADLINE,
    )


def cost_lines(found: list[Cell], variants: list[str]) -> list[str]:
    """Per (depth, lr) cell: each variant's cost of dropping the warm-up, their paired difference, and whether the
    cell tests warm-up at all."""
    if not found or not set(variants) >= {"post_ln", "pre_ln"}:
        return []
    rows = []
    for c in found:
        row = {"depth": c.depth, "peak lr": f"{c.lr:g}"}
        for v in variants:
            row[f"{v} cost (nats/char)"] = fmt_mean_ci(c.cost.get(v, {}).values(), 2) if c.cost.get(v) else "-"
        d = c.difference("post_ln", "pre_ln")
        row["post_ln - pre_ln [95%]"] = _diff_text(d)
        row["counts"] = "yes" if d.counts else "no"
        row["cell"] = (
            "does not test warm-up: the warmed-up Post-LN collapsed in every seed"
            if c.fails_even_warmed("post_ln")
            else "tests warm-up"
        )
        rows.append(row)
    return [
        "What dropping the warm-up costs: per seed, the held-out loss without warm-up minus the loss with "
        f"{found[0].warmup} warm-up steps (a diverged run at the unigram loss), then Post-LN's cost against Pre-LN's "
        "paired by seed. A cell where the warmed-up Post-LN also collapsed shows Post-LN's fragility (the "
        "trainability claim counts it), not whether warm-up helps it, so the warm-up verdict does not pool it. "
        f"Costs are differences: {over_seeds(max(len(c.cost.get(v, {})) for c in found for v in variants), brackets=False)}.",
        "",
        markdown_table(pd.DataFrame(rows)),
        "",
    ]


def _diff_text(d: Difference) -> str:
    e = d.estimate
    if math.isnan(e.value):
        return "-"
    return f"{e.value:+.2f}" + (f" [{e.low:+.2f}, {e.high:+.2f}]" if e.low is not None else "") + f" (n={d.seeds})"


def ratio_section(grads: pd.DataFrame, variants: list[str]) -> Section:
    """The grid's models' gradient at initialisation: first and last layer, and their ratio per seed (shown, not
    judged)."""
    rows = []
    for v in variants:
        for depth in sorted(int(d) for d in grads.depth.dropna().unique()):
            part = grads[(grads.variant == v) & (grads.depth == depth)]
            if not len(part):
                continue
            per_seed = {}
            for seed, seed_part in part.groupby("seed"):
                last, first = seed_part[seed_part.x == depth].value, seed_part[seed_part.x == 1].value
                if len(last) and len(first):
                    per_seed[int(seed)] = float(last.iloc[0]) / float(first.iloc[0])
            # gradient norms and their ratios are positive: log-scale intervals
            rows.append(
                {
                    "variant": v,
                    "depth": depth,
                    "first layer": fmt_mean_ci(part[part.x == 1].value, 3, "log"),
                    "last layer": fmt_mean_ci(part[part.x == depth].value, 3, "log"),
                    "last / first": fmt_mean_ci(per_seed.values(), kind="log"),
                    "per seed": ", ".join(f"{r:.2f}" for _, r in sorted(per_seed.items())),
                }
            )
    return section(
        "The grid's models: all FFN weights' gradient at initialisation",
        [
            "||dL/dW|| over all the feed-forward parameters of the first and last layer of the grid's models (mean over "
            f"the probe batches, then over seeds) and their ratio per seed; {over_seeds(most_seeds(grads))}. Shown, not "
            "judged: the gradient verdict reads the W^2 probe above, at the source's size.",
            "",
            markdown_table(pd.DataFrame(rows)) if rows else "No probes.",
            "",
        ],
    )
