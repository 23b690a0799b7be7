"""BLEU against training compute: the Transformer and the strongest RNN with attention, seed by seed.

From the jobs' BLEU during training (suites/translation/curve.py) and their training FLOPs per step: per seed, the
strongest RNN with attention's BLEU at the end of its training on the scored sentences, B, and its training FLOPs,
F_rnn; the training FLOPs the Transformer of the same seed spends before its curve first reaches B (linear
between the scored points; a curve that never reaches B gives its whole budget, a lower bound), F_tr. The claim
(claims/transformer_less_compute.py) reads these rows; the report's section shows them.
"""

from __future__ import annotations

import math

import pandas as pd

from harness.report_kit import markdown_table, mean_ci
from harness.report_sections import Section, section


def _flops_per_step(ok: pd.DataFrame, variant: str) -> dict[int, float]:
    """seed -> training FLOPs of one step of ``variant`` (train_flops' extra)."""
    rows = ok[(ok.variant == variant) & (ok.metric == "train_flops")]
    return {int(r.seed): float(r.extra["flops_per_step"]) for r in rows.itertuples() if "flops_per_step" in r.extra}


def _curve(ok: pd.DataFrame, variant: str, seed: int) -> list[tuple[float, float, float]]:
    """(step, BLEU, training seconds) of one job's points, in step order."""
    rows = ok[(ok.variant == variant) & (ok.metric == "bleu_during_training") & (ok.seed == seed)].sort_values("x")
    return [(float(r.x), float(r.value), float(r.extra.get("train_s", math.nan))) for r in rows.itertuples()]


def first_reach(curve: list[tuple[float, float, float]], target: float) -> tuple[float, float, bool]:
    """(step, training seconds) at which ``curve`` first reaches BLEU ``target``, linear between its points (from
    step 0 at BLEU 0), and whether it does; a curve that never does gives its last point (a lower bound)."""
    previous = (0.0, 0.0, 0.0)
    for step, bleu, seconds in curve:
        if bleu >= target:
            s0, b0, t0 = previous
            share = 1.0 if bleu == b0 else (target - b0) / (bleu - b0)
            return s0 + share * (step - s0), t0 + share * (seconds - t0), True
        previous = (step, bleu, seconds)
    step, _, seconds = curve[-1]
    return step, seconds, False


def arms(ok: pd.DataFrame, specs: dict[str, dict]) -> tuple[str | None, str | None]:
    """(the RNN with attention whose final scored BLEU is highest in mean, the Transformer), where the run has them."""
    curves = ok[ok.metric == "bleu_during_training"]
    rnns = [
        v
        for v, s in specs.items()
        if s.get("family") == "rnn_seq2seq" and s.get("scoring", "none") != "none" and (curves.variant == v).any()
    ]
    transformers = [v for v, s in specs.items() if s.get("family") != "rnn_seq2seq" and (curves.variant == v).any()]

    def final(v):
        last = curves[curves.variant == v]
        return mean_ci(last[last.x == last.x.max()].value)[0]

    rnn = max(rnns, key=final) if rnns else None
    return rnn, ("transformer" if "transformer" in transformers else (transformers[0] if transformers else None))


def per_seed_rows(ok: pd.DataFrame, rnn: str | None, transformer: str | None) -> list[dict]:
    """One row per seed both arms have: the target BLEU, both arms' FLOPs and seconds, whether it was reached (none
    without both arms)."""
    if not rnn or not transformer:
        return []
    rnn_step, tr_step = _flops_per_step(ok, rnn), _flops_per_step(ok, transformer)
    rows = []
    for seed in sorted(set(rnn_step) & set(tr_step)):
        rc, tc = _curve(ok, rnn, seed), _curve(ok, transformer, seed)
        if not rc or not tc:
            continue
        target = rc[-1][1]
        step, seconds, reached = first_reach(tc, target)
        rows.append(
            {
                "seed": seed,
                "target": target,
                "rnn_flops": rnn_step[seed] * rc[-1][0],
                "rnn_s": rc[-1][2],
                "tr_flops": tr_step[seed] * step,
                "tr_s": seconds,
                "tr_final": tc[-1][1],
                "reached": reached,
            }
        )
    return rows


def compute_section(ok: pd.DataFrame, specs: dict[str, dict]) -> Section | None:
    """The section on BLEU against training compute: per seed, the target, both arms' FLOPs and seconds."""
    rnn, transformer = arms(ok, specs)
    rows = per_seed_rows(ok, rnn, transformer)
    if not rows:
        return None
    table = [
        {
            "seed": r["seed"],
            f"{rnn} BLEU at the end": f"{r['target']:.2f}",
            f"{rnn} training FLOPs": f"{r['rnn_flops']:.3g}",
            f"{transformer} FLOPs to reach it": f"{r['tr_flops']:.3g}" + ("" if r["reached"] else " (not reached)"),
            "FLOPs ratio": f"{r['tr_flops'] / r['rnn_flops']:.2f}x",
            "seconds ratio": f"{r['tr_s'] / r['rnn_s']:.2f}x" if r["rnn_s"] > 0 else "-",
            f"{transformer} BLEU at the end": f"{r['tr_final']:.2f}",
        }
        for r in rows
    ]
    sentences = int(ok[ok.metric == "bleu_during_training"].extra.iloc[0].get("sentences", 0))
    return section(
        "BLEU against training compute",
        [
            f"Greedy BLEU of the first {sentences} test sentences at evenly spaced points of training; training FLOPs at "
            "a point are the job's counted FLOPs per step (forward and backward matrix products) times the steps done, "
            "and seconds are training time with the scoring left out. Per seed: the BLEU the strongest RNN with "
            f"attention (`{rnn}`) ends at, and the FLOPs and seconds `{transformer}` spends before it first reaches that "
            "BLEU (linear between points); the ratios are the Transformer's over the RNN's.",
            "",
            markdown_table(pd.DataFrame(table)),
            "",
        ],
    )
