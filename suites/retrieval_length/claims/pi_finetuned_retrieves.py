"""Position Interpolation fine-tuned at s x L retrieves there and beats plain RoPE fine-tuned alike (Chen et al. 2023):
accuracy at the fine-tuning length, paired over seeds, and at least the effective-length threshold at every seed."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import all_hold, directional, paired
from suites.retrieval_length.claims._shared import mean, run, said, sentence_of
from suites.retrieval_length.effective import THRESHOLD
from suites.retrieval_length.records import SHARE, by_seed, settings

CLAIM = declared(__file__)
#: what the budget probe shows (reference/probes/pi_finetune_budget and the text fine-tuning probes), filled in where
#: the cause is printed
PROBES = (
    " PI's accuracy here rises with the fine-tuning steps, {probe:pi_finetune_budget.pi_steps} (Chen et al.'s "
    "count); at that count, {probe:pi_finetune_budget.pi_against_rope}: this fine-tuning trains the passkey "
    "task itself at the new length. Chen et al. fine-tune a language model on plain text (the Pile) and test "
    "the passkey untrained; fine-tuned on plain text alone (set.finetune_task=text, "
    "reference/probes/pi_text_finetune), {probe:pi_text_finetune.at_both_lengths}; on plain text at the new "
    "length with passkey sequences kept at the training length (set.finetune_task=mixed, "
    "reference/probes/pi_mixed_finetune), {probe:pi_mixed_finetune.at_both_lengths}."
)


def reaches(values: dict[int, float], threshold: float = THRESHOLD) -> str:
    """'agrees' when every seed's accuracy is at least ``threshold`` (effective.py: RULER's bar, adapted),
    'disagrees' when their mean is below it (the untested rule suite.yaml declares: a bar on a mean)."""
    if not values:
        return "not run"
    if all(v >= threshold for v in values.values()):
        return "agrees"
    return "disagrees" if sum(values.values()) / len(values) < threshold else "inconclusive"


def judge(df) -> Finding:
    """Fine-tuned PI against fine-tuned plain RoPE at the fine-tuning length (directional, paired over seeds), and PI
    at or above THRESHOLD there at every seed (``reaches``): both must hold."""
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
    diff = paired(f"accuracy at {length:.0f}, fine-tuned rope+pi - rope", pi, rope, bounds=SHARE)
    beats, reached = directional(diff, +1), reaches(pi)
    word = all_hold([beats, reached])
    shown = Estimate.of(f"rope+pi fine-tuned, accuracy at {length:.0f}", pi.values(), kind="bounded", bounds=SHARE)
    text = (
        f"After {s.get('finetune_steps')} fine-tuning steps at {length:.0f} (s = {length / s['train_len']:g}), PI "
        f"retrieves {mean(pi):.2f} at {length:.0f} and plain RoPE fine-tuned alike {mean(rope):.2f}: "
        f"PI - RoPE {said(diff)}; PI at or above {THRESHOLD:g} at every seed: {reached}."
    )
    causes = []
    if beats != "agrees":
        causes.append(f"PI does not beat fine-tuned extrapolation at {length:.0f} ({diff.why()})")
    if reached != "agrees":
        causes.append(f"PI does not retrieve at {THRESHOLD:g} or more at {length:.0f} at every seed")
    cause = sentence_of(causes)
    return finding(
        CLAIM, word, f"{text} Verdict: **{word}**.", [diff.estimate, shown], cause=cause + PROBES if cause else ""
    )
