"""Where the task needs attention, uniform weights do worse than learned ones (Wiegreffe & Pinter 2019): test BLEU of
the learned-attention translator against its twin trained with uniform weights, paired over seeds, directional.

A check, not a test of the finding (suite.yaml): translating number words needs an alignment, so uniform weights do
worse here by the task's construction and the comparison cannot fail the way Wiegreffe & Pinter's can (on a task
that does not need its attention). It checks that the uniform twin is their baseline and that this task needs the
attention the Jain & Wallace claim beside it reads."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import directional, paired
from suites.attention_explanation.claims._shared import BLEU, Evidence, by_seed, probed, seeds_text

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    """Agrees (the check passes) when the learned attention's BLEU is above the uniform twin's on the paired test."""
    ok, specs = ev.ok, ev.specs
    learned = probed(ok, specs)
    flat = next((v for v, s in specs.items() if s.get("scoring") == "uniform" and (ok.variant == v).any()), None)
    if learned is None or flat is None:
        return not_run(
            CLAIM,
            "This run lacks a model with learned attention or its twin trained with uniform weights.",
            "bench run suite=attention_explanation",
        )
    gap = paired(
        f"BLEU, {learned} - {flat}", by_seed(ok, learned, "bleu"), by_seed(ok, flat, "bleu"), "BLEU", bounds=BLEU
    )
    read = by_seed(ok, learned, "uniform_bleu")
    text = (
        f"Test BLEU: learned attention `{learned}` - uniform weights `{flat}` is {gap.mean:+.1f} BLEU over "
        f"{seeds_text(gap.seeds)} ({gap.why()}); the learned model read with uniform weights at inference scores "
        f"{sum(read.values()) / max(len(read), 1):.1f} BLEU."
    )
    verdict = directional(gap, +1)
    if verdict == "agrees":
        return finding(
            CLAIM,
            verdict,
            text + " This task needs its attention, as it was built to: uniform weights do worse.",
            [gap.estimate],
        )
    cause = (
        "Uniform weights do as well or better here: this task, built to need an alignment, does not need its "
        "attention, so the learned or the uniform model is broken."
        if verdict == "disagrees"
        else f"The gap does not count over these seeds ({gap.why()})."
    )
    return finding(CLAIM, verdict, f"{text} {cause}", [gap.estimate], cause=cause)
