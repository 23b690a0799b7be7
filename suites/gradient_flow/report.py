"""The gradient_flow report: gradient reach by distance, the spectral-radius sweep, lags learned, clipping."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run, sentences
from harness.report import fmt_mean_ci, markdown_table, mean_ci
from harness.groups import code_line

PUBLISHED = (
    "Pascanu, Mikolov & Bengio 2013 (arXiv 1211.5063): with the recurrent weight's largest singular value "
    "below 1/gamma (gamma = 1 for tanh and ReLU) long-term gradients vanish, and above it they can explode; "
    "clipping the gradient norm keeps SGD stable where exploding gradients would throw it off; plain tanh RNNs "
    "fail beyond lags of ~10-20 steps while LSTMs bridge far longer ones."
)
RADIUS = Claim(
    "spectral_radius_bound", "gradient_flow", "Gradients vanish below spectral radius 1 and can explode above it",
    "Pascanu, Mikolov & Bengio 2013 (arXiv 1211.5063)",
    "largest singular value < 1/gamma (gamma = 1 for tanh) is sufficient for vanishing; > 1 necessary for exploding",
    ("rnn",))
REACH = Claim(
    "attention_keeps_gradient", "gradient_flow", "Attention's direct paths keep gradient that an RNN loses over distance",
    "Vaswani et al. 2017 (arXiv 1706.03762, Table 1)", "maximum path length O(1) for self-attention, O(n) for recurrence",
    ("rnn", "transformer"))
LAGS = Claim(
    "gated_rnn_longer_lags", "gradient_flow", "Gated RNNs (LSTM) bridge longer lags than tanh RNNs",
    "Hochreiter & Schmidhuber 1997; Pascanu et al. 2013", "tanh RNNs fail beyond lags of ~10-20 steps; LSTMs bridge > 1000",
    ("rnn", "lstm"))
CLIPPING = Claim(
    "clipping_stabilises_sgd", "gradient_flow", "Clipping the gradient norm keeps SGD stable at large learning rates",
    "Pascanu, Mikolov & Bengio 2013 (arXiv 1211.5063)", "clipping removes the divergence exploding gradients cause",
    ("rnn", "lstm"))
CLAIMS = (RADIUS, REACH, LAGS, CLIPPING)
#: float32 underflows (denormals are flushed) below this; log10 ratios are clamped to it
FLOOR = 1e-38
DISTANCES = (1, 5, 10, 20, 50, 100, 200)
ORDER = ("rnn", "rnn_relu", "gru", "lstm", "transformer")


def _order(variants) -> List[str]:
    return sorted(variants, key=lambda v: (ORDER.index(v) if v in ORDER else len(ORDER), v))


def _log10(values) -> List[float]:
    return [math.log10(max(float(v), FLOOR)) for v in values]


def _with_extra(frame: pd.DataFrame, *keys: str) -> pd.DataFrame:
    frame = frame.copy()
    for key in keys:
        frame[key] = frame.extra.apply(lambda e: e.get(key) if isinstance(e, dict) else None)
    return frame


def _reach(frame: pd.DataFrame, key: str) -> pd.DataFrame:
    """Rows from distance 1 on, ``value`` replaced by its ratio to distance 1 of the same (variant, seed, key)."""
    out = []
    for _, part in frame.groupby(["variant", "seed", key]):
        base = part[part.x == 1].value
        if len(base):
            out.append(part[part.x >= 1].assign(value=part[part.x >= 1].value / float(base.iloc[0])))
    return pd.concat(out) if out else frame.iloc[:0]


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> List[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    ok = df[df.status == "ok"]
    variants = _order(df.variant.unique())
    first = df.iloc[0]
    s = first.profile_settings
    seeds = sorted(int(v) for v in df.seed.unique())
    lines = [f"# Gradient flow through time ({suite.name}, suite version {first.suite_version})", "",
             suite.description.strip().splitlines()[0], ""]
    lines += [
        "## Setup", "",
        f"- Models: Elman RNNs (tanh, ReLU), GRU and LSTM of width {s['d_hidden']} and {s['n_layers']} layer(s) "
        f"(embeddings U(-0.1, 0.1), LSTM forget bias 1); Transformer decoder of {s['transformer_layers']} Pre-LN "
        f"layers, d_model {s['d_model']}, {s['n_heads']} heads. Parameters: "
        + ", ".join(f"{v} {int(p):,}" for v, p in ok.groupby("variant").parameters.first().items()) + ".",
        f"- Task: copy memory, {s['symbols']} symbol(s) from an alphabet of {s['alphabet']} recalled `lag` steps "
        f"later after a gap of blanks (chance accuracy {1 / s['alphabet']:.3f}).",
        f"- Gradient probe: L = cross-entropy of the last step of {s['probe_batch']} sequences at lag {max(s['lags'])} "
        f"(length {int(first.get('probe_length', 0))}); ||dL/dh_k|| per sequence, averaged over sequences, divided by its "
        "value one step before the loss (d = 1; at d = 0 a Transformer's loss also reads its own position through the "
        "residual stream, a path no earlier position has). h_k is the recurrent state after step k (every layer), or "
        "the Transformer's input to its first block at position k.",
        f"- Lag sweep: one model per lag, {s['steps']} AdamW steps of {s['batch_size']} sequences, lr {s['lr']:g} "
        f"(warm-up {s['warmup_steps']}), clipping {s['grad_clip']:g}; a lag is learned at held-out accuracy >= "
        f"{s['learned_accuracy']:g} on {s['eval_sequences']} sequences.",
        f"- Clipping study: lag {s['clip_lag']}, {s['clip_steps']} SGD steps (momentum {s['clip_momentum']:g}, no "
        f"warm-up) at each learning rate, gradient norm clipped at {s['grad_clip']:g} or not at all; a run diverges "
        "when its loss is non-finite or above 3x its first value.",
        f"- Profile `{first.profile}`, seeds {seeds}; device {first.device} ({first.device_name}), torch "
        f"{first.torch_version}, {first.get('num_threads')} threads; {code_line(df)}.", "",
    ]
    flow = _reach(_with_extra(ok[ok.metric == "hidden_grad_norm"], "phase"), "phase")
    sweep = _reach(_with_extra(ok[ok.metric == "radius_hidden_grad_norm"], "radius"), "radius")
    lines += _flow_table(flow, variants)
    lines += _sweep_table(sweep, df)
    lag_lines, longest, _ = _lag_table(df, variants, s)
    lines += lag_lines
    clip_lines, clip_summary = _clip_table(df, variants, 0.5 * math.log(s["alphabet"]))
    lines += clip_lines
    figures = _figures(flow, sweep, ok, variants, out_dir / "figures")
    lines += ["## Figures", ""] + [f"![{name}](figures/{p.name})" for name, p in figures] + [""]
    lines += ["## Against the published finding", "", PUBLISHED, ""]
    lines += [f"- {sentence}" for sentence in sentences(findings(df))] + [""]
    nonok = df[df.status != "ok"].drop_duplicates(["variant", "metric", "x", "status"])
    if len(nonok):
        lines += ["## Runs that did not finish", ""]
        lines += [f"- `{r.variant}` seed {r.seed}, {r.metric}{'' if pd.isna(r.x) else f' at {r.x_name} {r.x:g}'}: "
                  f"{r.status}: {r.reason}" for r in nonok.itertuples()] + [""]
    path = out_dir / f"{suite.name}.md"
    path.write_text("\n".join(lines))
    return [path] + [p for _, p in figures]


def _flow_table(flow: pd.DataFrame, variants: List[str]) -> List[str]:
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
                row[f"d={d}"] = fmt_mean_ci(_log10(part[part.x == d].value), 1)
            rows.append(row)
    return ["## How far back the gradient reaches", "",
            "log10 of ||dL/dh_k|| / ||dL/dh_(T-1)|| at distance d = T - k from the loss's step T (0 = no decay, -3 = a "
            f"thousandth, positive = growth), mean ± 95% interval over seeds; values below {FLOOR:g} (float32 underflow, or an "
            "exact zero where every ReLU unit is off) show as -38 here and are left out of the figures.", "",
            markdown_table(pd.DataFrame(rows)) if rows else "No gradient probes.", ""]


def _sweep_table(sweep: pd.DataFrame, df: pd.DataFrame) -> List[str]:
    if not len(sweep):
        return []
    longest = int(sweep.x.max())
    cols = [d for d in DISTANCES if 1 < d <= longest]
    rows = []
    for (v, radius), part in sweep.groupby(["variant", "radius"]):
        row = {"variant": v, "spectral radius": radius}
        for d in cols:
            row[f"d={d}"] = fmt_mean_ci(_log10(part[part.x == d].value), 1)
        far = part[part.x == cols[-1]].value
        row[f"at d={cols[-1]}"] = "explodes (grows)" if mean_ci(far)[0] > 1 else "vanishes (decays)"
        rows.append(row)
    return ["## Vanishing and exploding gradients against the recurrent weight's spectral radius", "",
            "Elman RNNs at initialisation, the recurrent weight rescaled to each spectral radius (largest |eigenvalue|); "
            "log10 of the same ratio.", "", markdown_table(pd.DataFrame(rows)), ""]


def _lag_table(df: pd.DataFrame, variants: List[str], s: Dict) -> tuple:
    acc = df[df.metric == "copy_accuracy"]
    lags = sorted(acc.x.dropna().unique())
    rows, longest, spread = [], {}, {}
    for v in variants:
        part = acc[acc.variant == v]
        if not len(part):
            continue
        row = {"variant": v}
        for lag in lags:
            cell = part[part.x == lag]
            vals = cell[cell.status == "ok"].value
            row[f"lag {int(lag)}"] = fmt_mean_ci(vals) if len(vals) else (cell.status.iloc[0] if len(cell) else "-")
        per_seed = []
        for _, seed_part in part.groupby("seed"):
            learned = seed_part[(seed_part.status == "ok") & (seed_part.value >= s["learned_accuracy"])].x
            per_seed.append(float(learned.max()) if len(learned) else 0.0)
        longest[v] = mean_ci(per_seed)[0]
        spread[v] = per_seed
        row["longest lag learned"] = fmt_mean_ci(per_seed, 0)
        rows.append(row)
    lines = ["## The longest lag each model learns", "",
             f"Held-out recall accuracy after training at each lag (chance {1 / s['alphabet']:.3f}); the longest lag "
             f"learned is the largest with accuracy >= {s['learned_accuracy']:g} (0 = none), per seed then averaged.", "",
             markdown_table(pd.DataFrame(rows)) if rows else "No lag results.", ""]
    return lines, longest, spread


def _clip_table(df: pd.DataFrame, variants: List[str], learned_below: float) -> tuple:
    clip = _with_extra(df[df.metric == "clip_final_loss"], "clipping")
    rows, summary = [], {"clipped": [0, 0, 0], "unclipped": [0, 0, 0], "learned_below": learned_below}
    # summary: [diverged, runs, learned (final loss below half the chance loss)]
    for v in variants:
        part = clip[clip.variant == v]
        for lr in sorted(part.x.dropna().unique()):
            row = {"variant": v, "SGD lr": f"{lr:g}"}
            for label in sorted(part.clipping.dropna().unique(), key=lambda c: c == "none"):
                cell = part[(part.x == lr) & (part.clipping == label)]
                vals = cell[cell.status == "ok"].value
                bad = int((cell.status == "diverged").sum())
                text = fmt_mean_ci(vals) if len(vals) else ""
                row["no clipping" if label == "none" else f"clipped at {label}"] = \
                    (text + (f"; diverged {bad}/{len(cell)}" if bad else "")).strip("; ") or "-"
                key = "unclipped" if label == "none" else "clipped"
                summary[key][0] += bad
                summary[key][1] += len(cell)
                summary[key][2] += int((vals < learned_below).sum())
            rows.append(row)
    if not rows:
        return [], summary
    return ["## Gradient-norm clipping at large learning rates", "",
            "Final training loss (nats, mean over the last 10% of steps) of SGD runs on the copy task; a diverged run "
            "has no final loss.", "", markdown_table(pd.DataFrame(rows)), ""], summary


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on Pascanu et al.'s findings (and attention's short paths) from one group of records."""
    ok = df[df.status == "ok"]
    s = df.iloc[0].profile_settings
    flow = _reach(_with_extra(ok[ok.metric == "hidden_grad_norm"], "phase"), "phase")
    sweep = _reach(_with_extra(ok[ok.metric == "radius_hidden_grad_norm"], "radius"), "radius")
    variants = _order(df.variant.unique())
    _, longest, spread = _lag_table(df, variants, s)
    clip = _clip_table(df, variants, 0.5 * math.log(s["alphabet"]))[1]
    seeds = int(df.seed.nunique())
    return [_radius(sweep, seeds), _reach_finding(flow), _lags(longest, spread), _clipping(clip, seeds)]


def _radius(sweep: pd.DataFrame, seeds: int) -> Finding:
    """Below spectral radius 1 gradients vanish; growth needs a radius above 1."""
    if not len(sweep):
        return not_run(RADIUS)
    far = int(min(50, sweep.x.max()))
    at = sweep[sweep.x == far].groupby("radius").value.apply(lambda v: mean_ci(v)[0])
    small, big = at[at.index < 1], at[at.index > 1]
    vanish = bool(len(small)) and bool((small < 1).all())
    explode = big[big > 1]
    never_below = bool((at[at.index <= 1] <= 1).all())
    bound = vanish and bool(len(explode)) and never_below
    text = (f"Spectral-radius sweep (Elman RNNs at initialisation, distance {far}, ratios averaged over the cells): every "
            "radius below 1 " + ("vanishes" if vanish else "does not always vanish") + f" (largest ratio {small.max():.2g}); "
            + (f"gradients grow with distance from radius {explode.index.min():g} up (ratio {explode.max():.3g} at the "
               f"largest), and never below radius 1" if len(explode) and never_below
               else "no radius above 1 makes them grow" if not len(explode) else "some radius at or below 1 grows")
            + ". This run " + ("agrees with" if bound else "does not fully reproduce")
            + " the bound (below 1 vanish, growth needs above 1).")
    estimates = [Estimate(f"gradient ratio at distance {far}, largest radius below 1", float(small.max()), seeds=seeds)]
    if len(big):
        estimates.append(Estimate(f"at radius {big.index.max():g}", float(big.loc[big.index.max()]), seeds=seeds))
    return finding(RADIUS, "agrees" if bound else "disagrees", text, estimates)


def _reach_finding(flow: pd.DataFrame) -> Finding:
    """Attention's direct paths keep gradient over distances where a tanh RNN's vanishes (at initialisation)."""
    if not len(flow):
        return not_run(REACH)
    d = int(min(20, flow.x.max()))
    cell = flow[(flow.phase == "init") & (flow.x == d)]
    init = cell.groupby("variant").value.apply(lambda v: mean_ci(v)[0])
    if not len(init):
        return not_run(REACH)
    parts = ", ".join(f"{v} {init[v]:.1e}" for v in _order(init.index))
    rnn, tr = init.get("rnn"), init.get("transformer")
    if rnn is None or tr is None:
        return not_run(REACH, f"At initialisation the gradient ratio at distance {d} is {parts}.")
    clause = (" The Transformer keeps far more gradient at that distance than the tanh RNN, as attention's direct paths "
              "predict." if tr > 10 * rnn else " The Transformer does not keep clearly more gradient than the tanh RNN here.")
    estimates = [Estimate.of(f"gradient ratio at distance {d}, {v}", cell[cell.variant == v].groupby("seed").value.mean())
                 for v in ("transformer", "rnn")]
    return finding(REACH, "agrees" if tr > 10 * rnn else "disagrees",
                   f"At initialisation the gradient ratio at distance {d} is {parts}.{clause}", estimates)


def _lags(longest: Dict[str, float], spread: Dict[str, List[float]]) -> Finding:
    """A gated RNN (LSTM or GRU) learns longer lags than the tanh RNN."""
    if not longest:
        return not_run(LAGS)
    parts = ", ".join(f"{v} {lag:g}" for v, lag in longest.items())
    gated = max((v for v in ("lstm", "gru") if v in longest), key=lambda v: longest[v], default=None)
    if "rnn" not in longest or gated is None:
        return not_run(LAGS, f"Longest lag learned: {parts}. This run lacks a tanh RNN or a gated RNN to compare.")
    agrees = longest[gated] > longest["rnn"]
    verdict = ("agrees: a gated RNN bridges longer lags than the tanh RNN" if agrees else
               "does not reproduce the gated RNNs' advantage at this budget (the tanh RNN reaches as far)")
    estimates = [Estimate.of(f"longest lag learned, {v}", spread[v], "steps") for v in ("rnn", gated)]
    return finding(LAGS, "agrees" if agrees else "disagrees", f"Longest lag learned: {parts}. This run {verdict}.", estimates)


def _clipping(clip: Dict, seeds: int) -> Finding:
    """Clipping the gradient norm keeps large-learning-rate SGD from diverging (counts: [diverged, runs, learned])."""
    c, u = clip["clipped"], clip["unclipped"]
    if not (c[1] and u[1]):
        return not_run(CLIPPING)
    if c[0] < u[0] and c[2] >= u[2]:
        label, verdict = "agrees", "this run agrees that clipping keeps large-learning-rate training stable."
    elif c[0] <= u[0] and c[2] > u[2]:
        label, verdict = "inconclusive", ("clipping let more runs learn, which agrees in spirit, though no unclipped run "
                                          "diverged more.")
    elif c[0] < u[0]:
        label, verdict = "inconclusive", ("clipping prevented divergence but did not let more runs learn: a mixed result "
                                          "at these learning rates.")
    else:
        label, verdict = "disagrees", "this run shows no stabilising effect of clipping at these learning rates."
    text = (f"Clipping (SGD): {c[0]} of {c[1]} clipped runs diverged and {c[2]} learned the task (final loss below "
            f"{clip['learned_below']:.2f} nats, half the chance loss), against {u[0]} diverged and {u[2]} learned "
            f"of {u[1]} unclipped; {verdict}")
    estimates = [Estimate("clipped runs diverged", c[0], unit=f"of {c[1]}", seeds=0),
                 Estimate("unclipped", u[0], unit=f"of {u[1]}", seeds=0)]
    return finding(CLIPPING, label, text, estimates, seeds)


def _figures(flow: pd.DataFrame, sweep: pd.DataFrame, ok: pd.DataFrame, variants: List[str], folder: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    folder.mkdir(parents=True, exist_ok=True)
    made = []
    if len(flow):
        data = flow[flow.value > FLOOR]
        data = data.assign(log=_log10(data.value)).rename(columns={"x": "distance from the loss (steps)"})
        phases = [p for p in ("init", "trained") if p in set(data.phase)]
        fig, axes = plt.subplots(1, len(phases), figsize=(6 * len(phases), 4.2), sharey=True, squeeze=False)
        for ax, phase in zip(axes[0], phases):
            sns.lineplot(data=data[data.phase == phase], x="distance from the loss (steps)", y="log", hue="variant",
                         hue_order=[v for v in variants if v in set(data.variant)], errorbar=("ci", 95), ax=ax)
            ax.set_title("at initialisation" if phase == "init" else "after training")
            ax.set_ylabel("log10 ||dL/dh_k|| / ||dL/dh_(T-1)||")
        fig.suptitle("How far back the gradient reaches")
        fig.tight_layout()
        made.append(("gradient norm against distance", _save(fig, folder / "gradient_flow_distance.png")))
    if len(sweep):
        data = sweep[sweep.value > FLOOR]
        data = data.assign(log=_log10(data.value)).rename(columns={"x": "distance from the loss (steps)"})
        cells = sorted(data.variant.unique())
        fig, axes = plt.subplots(1, len(cells), figsize=(6 * len(cells), 4.2), sharey=True, squeeze=False)
        for ax, v in zip(axes[0], cells):
            sns.lineplot(data=data[data.variant == v], x="distance from the loss (steps)", y="log", hue="radius",
                         palette="coolwarm", errorbar=None, ax=ax, legend="full")
            ax.axhline(0, color="grey", linewidth=1, linestyle="--")
            ax.set_title(f"{v} at initialisation")
            ax.set_ylabel("log10 ||dL/dh_k|| / ||dL/dh_(T-1)||")
            ax.legend(title="spectral radius", fontsize=8)
        fig.tight_layout()
        made.append(("spectral-radius sweep", _save(fig, folder / "gradient_flow_radius.png")))
    acc = ok[ok.metric == "copy_accuracy"].rename(columns={"x": "lag (steps)", "value": "held-out recall accuracy"})
    if len(acc):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        sns.lineplot(data=acc, x="lag (steps)", y="held-out recall accuracy", hue="variant", marker="o",
                     hue_order=[v for v in variants if v in set(acc.variant)], errorbar=("ci", 95), ax=ax)
        ax.set_xscale("log")
        ax.set_ylim(0, 1.05)
        ax.set_title("Copy-task accuracy against lag")
        fig.tight_layout()
        made.append(("accuracy against lag", _save(fig, folder / "gradient_flow_lags.png")))
    return made


def _save(fig, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
