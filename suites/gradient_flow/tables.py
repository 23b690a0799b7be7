"""The gradient_flow tables and the per-variant summaries its claims read: reach by distance, the radius sweep, lags,
the recurrent weight's singular values, clipping and the runs it diverged."""

from __future__ import annotations

import math

import pandas as pd

from harness.report_kit import fmt_mean_ci, markdown_table, mean_ci, most_seeds, over_seeds, share_cell
from harness.report_sections import HEADLINE, Section, section
from suites.common.narrow import narrow
from suites.gradient_flow.recurrent_spectrum import SIGMA_METRICS

#: float32 underflows (denormals are flushed) below this; log10 ratios are clamped to it
FLOOR = 1e-38
DISTANCES = (1, 5, 10, 20, 50, 100, 200)
#: each Elman cell beside its other initialisation: tanh (default, orthogonal), ReLU (default, identity)
ORDER = ("rnn", "rnn_orthogonal", "rnn_relu", "irnn", "gru", "lstm", "transformer")
#: a clipping run learned the task when its final loss is below this share of the chance loss log(alphabet) (this
#: project's choice: half the loss of guessing uniformly)
LEARNED_SHARE = 0.5


def learned_below(s: dict) -> float:
    """The final loss (nats) under which a clipping run learned the task: LEARNED_SHARE of the chance loss."""
    return LEARNED_SHARE * math.log(s["alphabet"])


def log10(values) -> list[float]:
    return [math.log10(max(float(v), FLOOR)) for v in values]


def with_extra(frame: pd.DataFrame, *keys: str) -> pd.DataFrame:
    frame = frame.copy()
    for key in keys:
        frame[key] = frame.extra.apply(lambda e: e.get(key) if isinstance(e, dict) else None)
    return frame


def reach(frame: pd.DataFrame, key: str) -> pd.DataFrame:
    """Rows from distance 1 on, ``value`` replaced by its ratio to distance 1 of the same (variant, seed, key)."""
    out = []
    for _, part in frame.groupby(["variant", "seed", key]):
        base = part[part.x == 1].value
        if len(base):
            out.append(part[part.x >= 1].assign(value=part[part.x >= 1].value / float(base.iloc[0])))
    return pd.concat(out) if out else frame.iloc[:0]


def probes(ok: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(gradient reach by phase, the spectral-radius sweep), each as ratios to distance 1."""
    flow = reach(with_extra(ok[ok.metric == "hidden_grad_norm"], "phase"), "phase")
    sweep = reach(with_extra(ok[ok.metric == "radius_hidden_grad_norm"], "radius"), "radius")
    return flow, sweep


def flow_table(flow: pd.DataFrame, variants: list[str]) -> Section:
    """The headline: log10 of the gradient ratio by distance, per variant and phase."""
    longest = int(flow.x.max()) if len(flow) else 0
    cols = [d for d in DISTANCES if 1 < d <= longest]
    rows = []
    for v in variants:
        for phase in ("init", "trained"):
            part = flow[(flow.variant == v) & (flow.phase == phase)]
            if not len(part):
                continue
            row = {"variant": v, "phase": phase}
            for d in cols:
                row[f"d={d}"] = fmt_mean_ci(log10(part[part.x == d].value), 1)
            rows.append(row)
    return section(
        "How far back the gradient reaches",
        [
            "log10 of ||dL/dh_k|| / ||dL/dh_(T-1)|| at distance d = T - k from the loss's step T (0 = no decay, -3 = a "
            f"thousandth, positive = growth), {over_seeds(most_seeds(flow), brackets=False)}; values below {FLOOR:g} "
            "(float32 underflow, or an "
            "exact zero where every ReLU unit is off) show as -38 here and are left out of the figures.",
            "",
            narrow(pd.DataFrame(rows), ["variant", "phase"]) if rows else "No gradient probes.",
            "",
        ],
        HEADLINE,
    )


def sweep_table(sweep: pd.DataFrame) -> Section | None:
    """The spectral-radius sweep at initialisation, a row per Elman cell and radius (none without a sweep)."""
    if not len(sweep):
        return None
    longest = int(sweep.x.max())
    cols = [d for d in DISTANCES if 1 < d <= longest]
    rows = []
    for (v, radius), part in sweep.groupby(["variant", "radius"]):
        row = {"variant": v, "spectral radius": radius}
        for d in cols:
            row[f"d={d}"] = fmt_mean_ci(log10(part[part.x == d].value), 1)
        far = part[part.x == cols[-1]].value
        row[f"at d={cols[-1]}"] = "explodes (grows)" if mean_ci(far)[0] > 1 else "vanishes (decays)"
        rows.append(row)
    return section(
        "Vanishing and exploding gradients against the recurrent weight's spectral radius",
        [
            "Elman RNNs at initialisation, the recurrent weight rescaled to each spectral radius (largest |eigenvalue|); "
            "log10 of the same ratio.",
            "",
            markdown_table(pd.DataFrame(rows)),
            "",
        ],
    )


def longest_contiguous(accuracy_by_lag: dict[float, float | None], lags, learned: float) -> float:
    """The largest lag L of the sweep such that every lag <= L reached ``learned`` accuracy (0 when the first did not).

    A lag that diverged or has no record counts as not learned, so one lucky long lag after a failed shorter one
    is not "learned up to" it (Hochreiter & Schmidhuber 1997 report the longest lag a model bridges).
    """
    longest = 0.0
    for lag in sorted(float(x) for x in lags):
        acc = accuracy_by_lag.get(lag)
        if acc is None or (isinstance(acc, float) and math.isnan(acc)) or acc < learned:
            break
        longest = lag
    return longest


def longest_by_seed(df: pd.DataFrame, variant: str, s: dict) -> dict[int, float]:
    """seed -> the longest contiguous lag learned by ``variant`` at that seed (every seed with a lag record)."""
    acc = df[(df.metric == "copy_accuracy") & (df.variant == variant)]
    out = {}
    for seed, part in acc.groupby("seed"):
        ok = part[part.status == "ok"]
        out[int(seed)] = longest_contiguous(
            dict(zip(ok.x.astype(float), ok.value.astype(float))), s["lags"], s["learned_accuracy"]
        )
    return out


def lag_table(df: pd.DataFrame, variants: list[str], s: dict) -> tuple[Section, dict[str, dict[int, float]]]:
    """(the report's section, variant -> seed -> longest contiguous lag learned)."""
    acc = df[df.metric == "copy_accuracy"]
    lags = sorted(acc.x.dropna().unique())
    rows, longest = [], {}
    for v in variants:
        part = acc[acc.variant == v]
        if not len(part):
            continue
        row = {"variant": v}
        for lag in lags:
            row[f"lag {int(lag)}"] = share_cell(part[part.x == lag])
        longest[v] = longest_by_seed(df, v, s)
        # a maximum over the sweep's lags: its range over seeds, not an interval (which ran below 0)
        row["longest lag learned"] = fmt_mean_ci(list(longest[v].values()), 0, kind="count")
        row["per seed"] = ", ".join(f"{lag:g}" for _, lag in sorted(longest[v].items()))
        rows.append(row)
    lines = [
        f"Held-out recall accuracy after training at each lag (chance {1 / s['alphabet']:.3f}); the longest lag "
        f"learned is, per seed, the largest lag L such that every lag <= L of the sweep reached accuracy >= "
        f"{s['learned_accuracy']:g} (0 = not even the first; a diverged lag counts as not learned). "
        + (
            "Accuracies: mean [95% interval] over seeds; the longest lag learned: mean (range over seeds)."
            if most_seeds(acc) > 1
            else "One seed: no interval."
        ),
        "",
        markdown_table(pd.DataFrame(rows)) if rows else "No lag results.",
        "",
    ]
    return section("The longest lag each model learns", lines), longest


def rate_table(ok: pd.DataFrame, variants: list[str]) -> Section | None:
    """The peak learning rate each lag's kept model trained at, per seed (none where one rate was given)."""
    acc = ok[ok.metric == "copy_accuracy"]
    kept = acc.extra.apply(lambda e: e.get("lr") if isinstance(e, dict) else None)
    acc = acc[kept.notna()].assign(lr=kept[kept.notna()])
    if acc.empty:
        return None
    lags = sorted(acc.x.unique())
    rows = []
    for v in variants:
        part = acc[acc.variant == v]
        if part.empty:
            continue
        row = {"variant": v}
        for lag in lags:
            at = part[part.x == lag].sort_values("seed")
            row[f"lag {int(lag)}"] = ", ".join(f"{r:g}" for r in at.lr) if len(at) else "-"
        rows.append(row)
    return section(
        "The learning rate each lag kept",
        [
            "The peak learning rate of the model kept at each lag, by seed (in seed order; a dash where every rate "
            "diverged): the rate with the best recall on validation sequences, which are not the held-out sequences "
            "scored above.",
            "",
            markdown_table(pd.DataFrame(rows)),
            "",
        ],
    )


def sigma_table(ok: pd.DataFrame, variants: list[str], s: dict) -> Section | None:
    """The recurrent weight's largest singular value at initialisation, each quarter of training and after it, and
    the mean singular value before and after, per variant and lag (mean over seeds); none without such records."""
    sig = with_extra(ok[ok.metric.isin(SIGMA_METRICS)], "phase", "step")
    if not len(sig):
        return None
    quarters = sorted(int(k) for k in sig[sig.phase == "training"].step.dropna().unique())
    rows = []
    for v in variants:
        part = sig[sig.variant == v]
        for lag in sorted(part.x.dropna().unique()):
            at = part[part.x == lag]
            top, mean = at[at.metric == SIGMA_METRICS[0]], at[at.metric == SIGMA_METRICS[1]]
            row = {"variant": v, "lag": f"{lag:g}", "largest: init": _mean_cell(top[top.phase == "init"].value)}
            for k in quarters:
                row[f"step {k}"] = _mean_cell(top[(top.phase == "training") & (top.step == k)].value)
            row["trained"] = _mean_cell(top[top.phase == "trained"].value)
            row["mean: init -> trained"] = (
                f"{_mean_cell(mean[mean.phase == 'init'].value)} -> {_mean_cell(mean[mean.phase == 'trained'].value)}"
            )
            rows.append(row)
    seeds = int(sig.seed.nunique())
    return section(
        "The recurrent weight's singular values through training",
        [
            f"The largest singular value of the recurrent weight W_hh at initialisation, after each quarter of the "
            f"{s['steps']} steps and after training at each lag, and the mean of its singular values before and after, "
            f"mean over {seeds} seed{'s' if seeds > 1 else ''} (a gated cell's gate blocks stacked, (gates x H, H); a dash "
            "where training diverged): identity and orthogonal initialisation start every singular value at one, and the "
            "columns show whether training keeps them there.",
            "",
            # as written: tabulate would re-read "1.00" as the number 1 in a column without a dash
            pd.DataFrame(rows).to_markdown(index=False, disable_numparse=True),
            "",
        ],
    )


def _mean_cell(values: pd.Series) -> str:
    """The mean of a cell's values over seeds to 2 decimals, or a dash when it has none (a diverged training)."""
    return f"{float(values.mean()):.2f}" if len(values) else "-"


def clip_table(df: pd.DataFrame, variants: list[str]) -> Section | None:
    """Final losses of the clipping study's SGD runs, a row per variant and learning rate (none without the study)."""
    clip = with_extra(df[df.metric == "clip_final_loss"], "clipping")
    rows = []
    for v in variants:
        part = clip[clip.variant == v]
        for lr in sorted(part.x.dropna().unique()):
            row = {"variant": v, "SGD lr": f"{lr:g}"}
            for label in sorted(part.clipping.dropna().unique(), key=lambda c: c == "none"):
                cell = part[(part.x == lr) & (part.clipping == label)]
                vals = cell[cell.status == "ok"].value
                bad = int((cell.status == "diverged").sum())
                text = fmt_mean_ci(vals, kind="log") if len(vals) else ""
                row["no clipping" if label == "none" else f"clipped at {label}"] = (
                    text + (f"; diverged {bad}/{len(cell)}" if bad else "")
                ).strip("; ") or "-"
            rows.append(row)
    if not rows:
        return None
    return section(
        "Gradient-norm clipping at large learning rates",
        [
            "Final training loss (nats, mean over the last 10% of steps) of SGD runs on the copy task; a diverged run "
            f"has no final loss; {over_seeds(most_seeds(clip))}.",
            "",
            markdown_table(pd.DataFrame(rows)),
            "",
        ],
    )


def diverged_by_seed(df: pd.DataFrame) -> dict[str, dict[int, float]]:
    """{"clipped"/"unclipped": seed -> runs of the clipping study that diverged (over every variant and learning rate)},
    with "runs"/"learned" likewise: how many ran, and how many reached a final loss below half the chance loss."""
    clip = with_extra(df[df.metric == "clip_final_loss"], "clipping")
    out: dict[str, dict[int, float]] = {}
    if not len(clip):
        return out
    below = learned_below(df.iloc[0].profile_settings)
    for arm, rows in (("clipped", clip[clip.clipping != "none"]), ("unclipped", clip[clip.clipping == "none"])):
        for seed, part in rows.groupby("seed"):
            out.setdefault(arm, {})[int(seed)] = float((part.status == "diverged").sum())
            out.setdefault(f"{arm} runs", {})[int(seed)] = float(len(part))
            ok = part[part.status == "ok"]
            out.setdefault(f"{arm} learned", {})[int(seed)] = float((ok.value < below).sum())
    return out
