"""The training_stability tables: each training run's label and learning check, the warm-up table with its
per-variant counts, and the per-layer gradient ratios at initialisation."""

from __future__ import annotations

from typing import Dict, List

import pandas as pd

from harness.report_kit import fmt_mean_ci, markdown_table, mean_ci
from suites.common.learning import LearningCheck, learning_checks

#: a run without warm-up "trains worse" when its held-out loss exceeds the warmed-up run's by this much (nats/char);
#: a run within this much of the unigram loss learned no more than character frequencies
WORSE_BY = 0.05
ORDER = ("post_ln", "pre_ln")


def _expand(frame: pd.DataFrame, *keys: str) -> pd.DataFrame:
    frame = frame.copy()
    for key in keys:
        frame[key] = frame.extra.apply(lambda e: e.get(key) if isinstance(e, dict) else None)
    return frame


def run_label(variant: str, depth: int, lr: float, warmup: int) -> str:
    """How a report names one training run (a variant at one depth, peak learning rate and warm-up)."""
    return f"{variant}, depth {int(depth)}, lr {lr:g}, " + ("no warm-up" if int(warmup) == 0 else f"warm-up {int(warmup)}")


def run_checks(df: pd.DataFrame, variants: List[str]) -> Dict[str, LearningCheck]:
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


def _short_reason(check: LearningCheck) -> str:
    if not check.heldout:
        return "no held-out loss"
    return ", ".join(why for why, flag in (("did not learn", check.did_not_learn), ("memorised", check.memorised)) if flag)


def _stuck(values, unigram: float) -> bool:
    return len(values) > 0 and mean_ci(values)[0] >= unigram - WORSE_BY


def _cell(part: pd.DataFrame, unigram: float) -> str:
    vals = part[part.status == "ok"].value
    bad = int((part.status == "diverged").sum())
    text = fmt_mean_ci(vals) + (" †" if _stuck(vals, unigram) else "") if len(vals) else ""
    if bad:
        text = (text + "; " if text else "") + f"diverged {bad}/{len(part)}"
    return text or "-"


def _warmup_table(runs: pd.DataFrame, variants: List[str], s: Dict, unigram: float, checks: Dict[str, LearningCheck]):
    """The table, and per variant counts of (depth, lr) cells where no warm-up diverged or trained worse.

    A cell where neither run diverged turns on the two held-out losses; it is left out (its runs listed under
    ``left_out`` with the reason) unless both runs learned and did not memorise.
    """
    warmups = sorted(int(w) for w in runs.warmup.dropna().unique())
    lrs = sorted(runs.x.dropna().unique())
    rows = []
    summary = {v: {"cells": 0, "hurt": 0, "diverged_without": 0, "diverged_with": 0, "runs": 0, "stuck": 0,
                   "left_out": []} for v in variants}
    for depth in sorted(int(d) for d in runs.depth.dropna().unique()):
        for v in variants:
            row = {"depth": depth, "variant": v}
            for lr in lrs:
                for w in warmups:
                    part = runs[(runs.variant == v) & (runs.depth == depth) & (runs.x == lr) & (runs.warmup == w)]
                    row[f"lr {lr:g}, " + ("no warm-up" if w == 0 else f"warm-up {w}")] = _cell(part, unigram)
                    if len(part):
                        summary[v]["runs"] += 1
                        summary[v]["stuck"] += int(_stuck(part[part.status == "ok"].value, unigram)
                                                   or (part.status == "diverged").all())
                if 0 in warmups and len(warmups) > 1:
                    _count(summary[v], runs[(runs.variant == v) & (runs.depth == depth) & (runs.x == lr)], warmups,
                           {w: checks.get(run_label(v, depth, lr, w)) for w in (0, max(warmups))},
                           {w: run_label(v, depth, lr, w) for w in (0, max(warmups))})
            rows.append(row)
    lines = ["## Warm-up: held-out loss by depth, peak learning rate and warm-up", "",
             "Held-out loss in nats/char (mean ± 95% interval over seeds, n = seeds); `diverged k/n` counts diverged seeds; "
             f"† marks a loss within {WORSE_BY:g} of the unigram loss ({unigram:.2f}: character frequencies of the training "
             "text), a run that learned nothing more.", "",
             markdown_table(pd.DataFrame(rows)) if rows else "No training runs.", ""]
    if any(c["cells"] or c["left_out"] for c in summary.values()):
        table = [{"variant": v, "(depth, lr) cells": c["cells"], "diverged without warm-up": c["diverged_without"],
                  "diverged with warm-up": c["diverged_with"],
                  f"no warm-up diverged, did not learn or > {WORSE_BY:g} nats worse": c["hurt"],
                  "cells left out": len(c["left_out"]),
                  "runs diverged or no better than unigram": f"{c['stuck']} of {c['runs']}"} for v, c in summary.items()]
        lines += ["What dropping the warm-up costs each variant (a cell is one depth at one peak learning rate, mean over seeds). "
                  "The warmed-up run is the reference: a cell where neither run diverged counts only if it learned and did "
                  "not memorise (see the next section), and then a run without warm-up that did not learn is hurt by "
                  "dropping the warm-up, as one that diverged is; otherwise the cell is left out.",
                  "", markdown_table(pd.DataFrame(table)), ""]
    return lines, summary


def _count(c: Dict, cell: pd.DataFrame, warmups: List[int], checks: Dict[int, LearningCheck], labels: Dict[int, str]) -> None:
    """Count one (depth, lr) cell: does dropping the warm-up hurt this variant here?

    The run with warm-up is the reference. Where neither run diverged, the cell means something only when the
    warmed-up model learned and did not memorise; then a run without warm-up that diverged, or did not learn,
    or ended more than WORSE_BY nats/char worse, is hurt by dropping the warm-up. A run without warm-up that
    did not learn is the failure the claim is about, not a model too weak to compare, so it counts; one that
    memorised is left out like a warmed-up run that did not learn.
    """
    W = max(warmups)
    without = cell[cell.warmup == 0]
    with_ = cell[cell.warmup == W]
    if not len(without) or not len(with_):
        return
    div_without = (without.status == "diverged").any()
    div_with = (with_.status == "diverged").any()
    failed_without = False
    if not div_without and not div_with:
        ref, bare = checks[W], checks[0]
        left = [(labels[W], "no held-out loss" if ref is None else _short_reason(ref))] if ref is None or not ref.usable else []
        if bare is None or (bare.memorised and not bare.did_not_learn):
            left.append((labels[0], "no held-out loss" if bare is None else "memorised"))
        if left:
            c["left_out"].append(left)
            return
        failed_without = bare.did_not_learn
    c["cells"] += 1
    c["diverged_without"] += int(div_without)
    c["diverged_with"] += int(div_with)
    a, b = without[without.status == "ok"].value, with_[with_.status == "ok"].value
    worse = len(a) and len(b) and mean_ci(a)[0] > mean_ci(b)[0] + WORSE_BY
    c["hurt"] += int(bool(div_without or failed_without or worse))


def _ratio_table(grads: pd.DataFrame, variants: List[str]):
    rows, ratios, spread = [], {}, {}
    for v in variants:
        for depth in sorted(int(d) for d in grads.depth.dropna().unique()):
            part = grads[(grads.variant == v) & (grads.depth == depth)]
            if not len(part):
                continue
            per_seed = []
            for _, seed_part in part.groupby("seed"):
                last, first = seed_part[seed_part.x == depth].value, seed_part[seed_part.x == 1].value
                if len(last) and len(first):
                    per_seed.append(float(last.iloc[0]) / float(first.iloc[0]))
            ratios[(v, depth)] = mean_ci(per_seed)[0]
            spread[(v, depth)] = per_seed
            rows.append({"variant": v, "depth": depth, "first layer": fmt_mean_ci(part[part.x == 1].value, 3),
                         "last layer": fmt_mean_ci(part[part.x == depth].value, 3),
                         "last / first": fmt_mean_ci(per_seed)})
    return ["## Gradient norm of each layer's FFN weights at initialisation", "",
            "||dL/dW|| over the feed-forward parameters of the first and last layer (mean over the probe batches, then "
            "over seeds) and their ratio per seed.", "", markdown_table(pd.DataFrame(rows)) if rows else "No probes.", ""], \
        ratios, spread
