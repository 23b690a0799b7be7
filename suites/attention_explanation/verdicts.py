"""The verdicts on Jain & Wallace 2019 (attention ranks the source unlike importance measures) and Wiegreffe & Pinter
2019 (uniform weights do worse where the task needs attention), each one paired test over seeds (two for the first,
both of which must hold)."""

from __future__ import annotations

import pandas as pd

from harness.findings import Finding, finding, not_run
from harness.paired import all_hold, directional, paired
from harness.suite_file import SuiteFile

RANKS, UNIFORM = CLAIMS = SuiteFile.of(__file__).claims(
    "attention_ranks_unlike_importance", "uniform_attention_does_worse"
)
#: the bounds of a BLEU score
BLEU = (0.0, 100.0)
#: a Kendall tau lies in [-1, 1]
TAU = (-1.0, 1.0)


def _seeds(n: int) -> str:
    return f"{n} seed{'' if n == 1 else 's'}"


def _by_seed(ok: pd.DataFrame, variant: str, metric: str) -> dict[int, float]:
    rows = ok[(ok.variant == variant) & (ok.metric == metric)]
    return {int(r.seed): float(r.value) for r in rows.itertuples()}


def probed(ok: pd.DataFrame, specs: dict[str, dict]) -> str | None:
    """The variant with learned (not uniform) attention whose probes the run recorded."""
    return next(
        (
            v
            for v, s in specs.items()
            if s.get("scoring") != "uniform" and (ok[ok.variant == v].metric == "tau_gradient_loo").any()
        ),
        None,
    )


def ranks_finding(ok: pd.DataFrame, specs: dict[str, dict]) -> Finding:
    v = probed(ok, specs)
    if v is None:
        return not_run(
            RANKS, "This run probed no model with learned attention.", "bench run suite=attention_explanation"
        )
    yardstick = _by_seed(ok, v, "tau_gradient_loo")
    gaps = [
        paired(f"tau(attention, {name}) - tau(gradient, leave-one-out)", _by_seed(ok, v, metric), yardstick, bounds=TAU)
        for name, metric in (("gradient", "tau_attention_gradient"), ("leave-one-out", "tau_attention_loo"))
    ]
    verdict = all_hold([directional(g, -1) for g in gaps])
    means = {}
    for m in ("tau_attention_gradient", "tau_attention_loo", "tau_gradient_loo"):
        values = _by_seed(ok, v, m)
        means[m] = sum(values.values()) / max(len(values), 1)
    text = (
        f"`{v}`: mean Kendall tau of attention with gradient importance {means['tau_attention_gradient']:.2f} and with "
        f"leave-one-out {means['tau_attention_loo']:.2f}, against {means['tau_gradient_loo']:.2f} between the two "
        f"importance measures ({_seeds(gaps[0].seeds)}; {gaps[0].why()}; {gaps[1].why()})."
    )
    if verdict == "agrees":
        return finding(
            RANKS,
            "agrees",
            text + " Attention ranks the source words unlike the importance measures.",
            [g.estimate for g in gaps],
        )
    cause = (
        "attention agrees with an importance measure at least as well as the two measures agree with each other"
        if verdict == "disagrees"
        else "a difference from the importance measures' own agreement does not count over these seeds"
    )
    return finding(
        RANKS,
        verdict,
        f"{text} {cause[0].upper()}{cause[1:]}.",
        [g.estimate for g in gaps],
        cause=cause[0].upper() + cause[1:] + ".",
    )


def uniform_finding(ok: pd.DataFrame, specs: dict[str, dict]) -> Finding:
    learned = probed(ok, specs)
    flat = next((v for v, s in specs.items() if s.get("scoring") == "uniform" and (ok.variant == v).any()), None)
    if learned is None or flat is None:
        return not_run(
            UNIFORM,
            "This run lacks a model with learned attention or its twin trained with uniform weights.",
            "bench run suite=attention_explanation",
        )
    gap = paired(
        f"BLEU, {learned} - {flat}", _by_seed(ok, learned, "bleu"), _by_seed(ok, flat, "bleu"), "BLEU", bounds=BLEU
    )
    read = _by_seed(ok, learned, "uniform_bleu")
    text = (
        f"Test BLEU: learned attention `{learned}` - uniform weights `{flat}` is {gap.mean:+.1f} BLEU over {_seeds(gap.seeds)} "
        f"({gap.why()}); the learned model read with uniform weights at inference scores "
        f"{sum(read.values()) / max(len(read), 1):.1f} BLEU."
    )
    verdict = directional(gap, +1)
    if verdict == "agrees":
        return finding(
            UNIFORM, "agrees", text + " This task needs its attention: uniform weights do worse.", [gap.estimate]
        )
    cause = (
        "Uniform weights do as well or better here, so this task does not need its attention."
        if verdict == "disagrees"
        else f"The gap does not count over these seeds ({gap.why()})."
    )
    return finding(UNIFORM, verdict, f"{text} {cause}", [gap.estimate], cause=cause)


def findings(df: pd.DataFrame) -> list[Finding]:
    ok = df[df.status == "ok"]
    specs = {r.variant: r.spec for r in df.drop_duplicates("variant").itertuples()}
    return [ranks_finding(ok, specs), uniform_finding(ok, specs)]
