"""The attention_scaling tables: score statistics at initialisation by d_k and scoring, and the training comparison."""

from __future__ import annotations

import math

import pandas as pd

from harness.report_kit import fmt_mean_ci, markdown_table, marked, mean_ci, most_seeds, over_seeds
from harness.report_sections import HEADLINE, Section, section

ORDER = ("scaled_dot", "dot", "general", "additive+naive", "additive")


def _mean(ok: pd.DataFrame, variant: str, metric: str, x=None) -> float:
    part = ok[(ok.variant == variant) & (ok.metric == metric)]
    if x is not None:
        part = part[part.x == x]
    return mean_ci(part.value)[0]


def _per_seed(ok: pd.DataFrame, variant: str | None, metric: str, x=None) -> list[float]:
    part = ok[ok.metric == metric]
    if variant is not None:
        part = part[part.variant == variant]
    if x is not None:
        part = part[part.x == x]
    return [float(v) for v in part.groupby("seed").value.mean()]


def init_section(ok: pd.DataFrame, variants: list[str], d_ks: list[float], s) -> Section:
    """The score statistics at initialisation, a row per scoring and d_k."""
    rows = []
    for v in variants:
        for d in d_ks:
            cell = ok[(ok.variant == v) & (ok.x == d)]

            def col(metric, digits=2, kind="bounded", bounds=(0.0, math.inf)):
                # every statistic is at least 0 (an entropy at most log n_keys, a fraction at most 1): the interval keeps to it
                return fmt_mean_ci(cell[cell.metric == metric].value, digits, kind, bounds)

            rows.append(
                {
                    "scoring": v,
                    "d_k": int(d),
                    "var(q.k) (theory d_k)": col("qk_variance", 1),
                    "var(score)": col("score_variance", 3),
                    "softmax entropy (nats)": col("softmax_entropy", 3, bounds=(0.0, math.log(s["n_keys"]))),
                    "softmax Jacobian norm": col("softmax_jacobian_norm", 4),
                    "saturated queries": col("softmax_saturated_fraction", 3, bounds=(0.0, 1.0)),
                    "dL/dq norm": col("query_grad_norm", 4),
                }
            )
    return section(
        "At initialisation, by d_k",
        [
            f"Means over queries, then {over_seeds(most_seeds(ok))}. A uniform softmax over {s['n_keys']} keys has entropy "
            f"{math.log(s['n_keys']):.3f} nats and Jacobian norm {math.sqrt(s['n_keys'] - 1) / s['n_keys']:.4f}; a query is "
            "saturated when its Jacobian norm is below a tenth of that. The norm of dL/dq carries the score's own factor on q "
            "(1/sqrt(d_k) for scaled_dot), so it is the gradient a query receives, not the softmax's alone.",
            "",
            markdown_table(pd.DataFrame(rows)) if rows else "No measurements.",
            "",
        ],
        HEADLINE,
    )


def training_section(df: pd.DataFrame, ok: pd.DataFrame, variants: list[str], spec) -> Section:
    """Held-out and training losses of the training comparison, a row per scoring."""
    train_rows = []
    for v in variants:
        curve = ok[(ok.variant == v) & (ok.metric == "train_loss_curve")]
        steps = sorted(curve.x.unique())
        bad = df[(df.variant == v) & (df.metric == "heldout_loss") & (df.status != "ok")]
        train_rows.append(
            {
                "scoring": v,
                "held-out loss (nats/char)": fmt_mean_ci(
                    ok[(ok.variant == v) & (ok.metric == "heldout_loss")].value, 3, "log"
                )
                if not len(bad)
                else f"{bad.status.iloc[0]}: {bad.reason.iloc[0]}",
                **(
                    {
                        f"train loss at step {int(steps[len(steps) // 4])}": fmt_mean_ci(
                            curve[curve.x == steps[len(steps) // 4]].value, 3, "log"
                        ),
                        f"at step {int(steps[-1])}": fmt_mean_ci(curve[curve.x == steps[-1]].value, 3, "log"),
                    }
                    if steps
                    else {}
                ),
                "train time (s)": marked(
                    fmt_mean_ci(ok[(ok.variant == v) & (ok.metric == "train_time")].value, 1, "log"),
                    ok[(ok.variant == v) & (ok.metric == "train_time")],
                ),
            }
        )
    return section(
        f"Training at d_k = {spec['d_model'] // spec['n_heads']}",
        [
            f"Training loss is the mean over the window of steps ending at the step named; "
            f"{over_seeds(most_seeds(ok[ok.metric.isin(['heldout_loss', 'train_loss_curve'])]))}.",
            "",
            markdown_table(pd.DataFrame(train_rows)),
            "",
        ],
    )
