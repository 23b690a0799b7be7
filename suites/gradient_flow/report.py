"""The gradient_flow report: gradient reach by distance, the spectral-radius sweep, lags learned, the recurrent
weight's singular values, clipping."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.claims import judge_all
from harness.findings import sentences
from harness.report_kit import begin, code_line, in_order, status_notes, title
from harness.report_sections import BOOKKEEPING, FIGURE, Report, Section, section
from suites.common.facts import fact
from suites.gradient_flow.claims._shared import PUBLISHED
from suites.gradient_flow.figures import figures as make_figures
from suites.gradient_flow.tables import (
    ORDER,
    clip_table,
    flow_table,
    lag_table,
    probes,
    rate_table,
    sigma_table,
    sweep_table,
)
from variants.models.recurrent_init import RECURRENT_INITS


def write_report(suite, df: pd.DataFrame, out_dir: Path) -> Report:
    first, variants, seeds = begin(df, out_dir, ORDER)
    ok = df[df.status == "ok"]
    s = first.profile_settings
    flow, sweep = probes(ok)
    lags, _ = lag_table(df, variants, s)
    figures = make_figures(flow, sweep, ok, variants, out_dir / "figures")
    notes = status_notes(
        df,
        lambda r: (
            f"- `{r.variant}` seed {r.seed}, {r.metric}"
            f"{'' if pd.isna(r.x) else f' at {r.x_name} {r.x:g}'}: {r.status}: {r.reason}"
        ),
        keys=("variant", "metric", "x", "status"),
    )
    report = Report(title(suite, "Gradient flow through time", first), files=[p for _, p in figures])
    return report.add(
        _setup(df, ok, first, seeds),
        flow_table(flow, variants),
        sweep_table(sweep),
        lags,
        rate_table(ok, variants),
        sigma_table(ok, variants, s),
        clip_table(df, variants),
        section("Figures", [f"![{name}](figures/{p.name})" for name, p in figures] + [""], FIGURE),
        section(
            "Against the published finding",
            [PUBLISHED, ""] + [f"- {sentence}" for sentence in sentences(judge_all(suite, df))] + [""],
        ),
        section("Runs that did not finish", notes + [""], BOOKKEEPING) if notes else None,
    )


def _setup(df: pd.DataFrame, ok: pd.DataFrame, first, seeds: list[int]) -> Section:
    s = first.profile_settings
    return section(
        "Setup",
        [
            f"- Models: Elman RNNs (tanh, ReLU), GRU and LSTM of width {s['d_hidden']} and {s['n_layers']} layer(s) "
            f"(embeddings U(-0.1, 0.1); {_gate_init(s)}); Transformer decoder of {s['transformer_layers']} Pre-LN "
            f"layers, d_model {s['d_model']}, {s['n_heads']} heads. Parameters: "
            + ", ".join(f"{v} {int(p):,}" for v, p in ok.groupby("variant").parameters.first().items())
            + ".",
            *_recurrent_inits(df),
            f"- Task: copy memory, {s['symbols']} symbol(s) from an alphabet of {s['alphabet']} recalled `lag` steps "
            f"later after a gap of {_gap(s)} (chance accuracy {1 / s['alphabet']:.3f}).",
            f"- Gradient probe: L = cross-entropy of the last step of {s['probe_batch']} sequences at lag {max(s['lags'])} "
            f"(length {int(first.get('probe_length', 0))}); ||dL/dh_k|| per sequence, averaged over sequences, divided by its "
            "value one step before the loss (d = 1; at d = 0 a Transformer's loss also reads its own position through the "
            "residual stream, a path no earlier position has). h_k is the recurrent state after step k (every layer), or "
            "the Transformer's input to its first block at position k.",
            f"- Lag sweep: one model per lag, {s['steps']} AdamW steps of {s['batch_size']} sequences, {_rates(s)} "
            f"(warm-up {s['warmup_steps']}), clipping {s['grad_clip']:g}; a lag is learned at held-out accuracy >= "
            f"{s['learned_accuracy']:g} on {s['eval_sequences']} sequences.",
            f"- Clipping study: lag {s['clip_lag']}, {s['clip_steps']} SGD steps (momentum {s['clip_momentum']:g}, no "
            f"warm-up) at each learning rate, gradient norm clipped at {s['grad_clip']:g} or not at all; a run diverges "
            "when its loss is non-finite or above 3x its first value.",
            f"- Profile `{first.profile}`, seeds {seeds}; device {first.device} ({first.device_name}), torch "
            f"{first.torch_version}, {fact(first, 'num_threads')} threads; {code_line(df)}.",
            "",
        ],
        BOOKKEEPING,
    )


def _recurrent_inits(df: pd.DataFrame) -> list[str]:
    """A Setup line naming the Elman RNNs whose recurrent weight does not start at PyTorch's default (none if all do),
    read from the records' specs (a spec leaves recurrent_init out at its default)."""
    named = {}
    for variant, spec in df.groupby("variant").spec.first().items():
        init = spec.get("recurrent_init", "default") if isinstance(spec, dict) else "default"
        if init != "default":
            named[variant] = init
    if not named:
        return []
    return [
        f"- Recurrent weight W_hh at initialisation: {RECURRENT_INITS['default']} unless named: "
        + "; ".join(f"{v} {named[v]}, {RECURRENT_INITS.get(named[v], named[v])}" for v in in_order(named, ORDER))
        + "."
    ]


def _rates(s) -> str:
    """The lag sweep's learning rate, in words: one peak rate, or the rates each lag's model is chosen among."""
    rates = s.get("lag_lrs") or []
    if not rates:
        return f"lr {s['lr']:g}"
    return (
        f"at each peak lr of {', '.join(f'{r:g}' for r in rates)} in turn until one recalls every validation sequence, "
        f"the model with the best recall on {s['eval_sequences']} validation sequences kept (as Le et al. 2015 "
        "grid-search each model's rate) and scored on others"
    )


def _gap(s) -> str:
    """What fills the gap, in words (records from before the setting existed ran the blank gap)."""
    if s.get("gap", "blank") == "blank":
        return "blanks (a latch with one symbol: an input-free tanh RNN can hold it in an attractor)"
    return (
        f"random distractors drawn from {s['distractors']} tokens of their own (Hochreiter & Schmidhuber 1997, "
        "experiment 2)"
    )


def _gate_init(s) -> str:
    """The gated cells' gate-bias initialisation, in words."""
    if s.get("gate_init", "constant") == "constant":
        return "LSTM forget bias 1, GRU PyTorch's default"
    return (
        f"LSTM and GRU gate biases chrono-initialised, Tallec & Ollivier 2018: forget (GRU update) bias log(u), "
        f"u ~ U(1, T_max - 1), T_max = {max(s['lags'])} the longest lag, LSTM input bias its negative"
    )
