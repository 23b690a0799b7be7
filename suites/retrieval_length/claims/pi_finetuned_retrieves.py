"""Position Interpolation fine-tuned at s x L retrieves there and beats plain RoPE fine-tuned alike (Chen et al. 2023):
accuracy at the fine-tuning length, paired over seeds, and a mean over seeds at or above the effective-length
threshold (a one-sided test against it), both parts held together by the core's conjunction.

Testable only where the fine-tuning is the source's (the protocol precondition, claims/_shared.py): Chen et al.
fine-tune on plain text and test the passkey untrained, so records fine-tuned on the passkey task itself at the new
length (set.finetune_task=passkey, the reference's) are "not testable here" whatever the comparison would say."""

from __future__ import annotations

import math
from dataclasses import dataclass

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import Difference, Verdict, all_hold, directional, p_against, paired, reaches
from suites.retrieval_length.claims._shared import (
    mean,
    protocol_unmet,
    run,
    said,
    sentence_of,
    source_protocol_run,
)
from suites.retrieval_length.effective import THRESHOLD
from suites.retrieval_length.records import SHARE, by_seed, settings

CLAIM = declared(__file__)
#: the fine-tuning budget that would test the claim: Chen et al.'s own step count (reference/probes/pi_mixed_finetune)
SOURCE_BUDGET = "set.finetune_steps=1000 set.short_finetune_steps=0"


@dataclass(frozen=True)
class Judged:
    """The rule's parts on one set of per-seed accuracies at the fine-tuning length."""

    #: PI - RoPE, paired over seeds (bounded)
    diff: Difference
    #: PI's mean accuracy over seeds (bounded)
    pi: Estimate
    #: PI above RoPE (directional)
    beats: Verdict
    #: PI's mean at or above THRESHOLD (one-sided)
    reached: Verdict
    #: both must hold (all_hold: its "disagrees" Holm-controlled across the two parts)
    word: Verdict


def rule(pi: dict[int, float], rope: dict[int, float], length: float) -> Judged:
    """The verdict on PI's and RoPE's per-seed accuracies at ``length``: PI above RoPE (directional) and PI's mean at
    or above THRESHOLD (``reaches``), both held (``all_hold``)."""
    diff = paired(f"accuracy at {length:.0f}, fine-tuned rope+pi - rope", pi, rope, bounds=SHARE)
    shown = Estimate.of(f"rope+pi fine-tuned, accuracy at {length:.0f}", pi.values(), kind="bounded", bounds=SHARE)
    beats, reached = directional(diff, +1), reaches(shown, THRESHOLD)
    return Judged(diff, shown, beats, reached, all_hold([beats, reached]))


def judge(df) -> Finding:
    """Where the fine-tuning is the source's: fine-tuned PI against fine-tuned plain RoPE at the fine-tuning length
    (directional, paired over seeds), and PI's mean accuracy there at or above THRESHOLD (``reaches``, one-sided):
    both must hold (``all_hold``)."""
    s = settings(df)
    length = float(s.get("finetune_len", 0))
    pi, rope = by_seed(df, "rope+pi", "finetuned_accuracy", length), by_seed(df, "rope", "finetuned_accuracy", length)
    if not pi or not rope:
        return not_run(
            CLAIM,
            f"This run lacks fine-tuned accuracy at set.finetune_len={length:.0f} for both `rope+pi` and `rope` "
            "(set.finetune_steps > 0, and the fine-tuning length among the evaluation lengths).",
            run("rope,rope+pi"),
        )
    judged = rule(pi, rope, length)
    diff, shown, beats, reached, word = judged.diff, judged.pi, judged.beats, judged.reached, judged.word
    blocked = protocol_unmet(
        CLAIM,
        df,
        [("rope+pi", "finetuned_accuracy"), ("rope", "finetuned_accuracy")],
        source_protocol_run("rope,rope+pi", SOURCE_BUDGET),
        [diff.estimate, shown],  # shown, not judged: the comparison these records make
        "fine-tuned on the passkey for Chen et al.'s 1000 steps (reference/probes/pi_finetune_budget), "
        "{probe:pi_finetune_budget.pi_against_rope}",
    )
    if blocked is not None:
        return blocked
    text = (
        f"After {s.get('finetune_steps')} fine-tuning steps at {length:.0f} (s = {length / s['train_len']:g}), PI "
        f"retrieves {mean(pi):.2f} at {length:.0f} and plain RoPE fine-tuned alike {mean(rope):.2f}: "
        f"PI - RoPE {said(diff)} ({beats}); PI's mean {shown.text()} against the threshold {THRESHOLD:g} "
        f"({reached}, one-sided)."
    )
    causes = []
    if beats != "agrees":
        causes.append(f"PI does not beat fine-tuned extrapolation at {length:.0f} ({diff.why()})")
    if reached != "agrees":
        where = (
            "1 seed: no interval to test"
            if shown.low is None
            else f"its 95% interval {'lies wholly below' if reached == 'disagrees' else 'includes'} {THRESHOLD:g}"
        )
        causes.append(f"PI's mean accuracy at {length:.0f} is not shown to reach {THRESHOLD:g} ({where})")
    # the headline is the part the verdict turns on: the refuting part with the stronger evidence against the claim;
    # else the reach where PI beats RoPE but the reach is not shown; else the comparison
    if word == "disagrees":
        parts = (beats, reached)
        headline = min(range(2), key=lambda i: (parts[i] != "disagrees", _or_inf(p_against(parts[i]))))
    else:
        headline = 1 if beats == "agrees" and reached != "agrees" else 0
    return finding(
        CLAIM,
        word,
        f"{text} Verdict: **{word}**.",
        [diff.estimate, shown],
        cause=sentence_of(causes),
        headline=headline,
        boundary=THRESHOLD if headline == 1 else 0.0,
    )


def _or_inf(p: float) -> float:
    return math.inf if math.isnan(p) else p
