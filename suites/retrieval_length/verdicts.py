"""The retrieval_length verdicts: Chen et al.'s and Peng et al.'s fine-tuned extensions, ALiBi's retrieval at length.

Every comparison pairs the accuracies of one training seed's models on the same scored sequences
(harness/paired.py, bounded in [0, 1]); one seed gives no verdict (no calibrated margin yet).
"""

from __future__ import annotations

import math

import pandas as pd

from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import all_hold, directional, not_worse, paired
from harness.suite_file import SuiteFile
from suites.retrieval_length import window_check
from suites.retrieval_length.effective import THRESHOLD
from suites.retrieval_length.records import SHARE, by_seed, has, settings

PI_FT, YARN_FEWER, ALIBI = SuiteFile.of(__file__).claims(
    "pi_finetuned_retrieves", "yarn_fewer_steps", "alibi_flat_not_retrieval"
)
#: the published findings this suite tests, in the order its report states them (suite.yaml)
CLAIMS = (PI_FT, YARN_FEWER, ALIBI, window_check.SPAN)
#: YaRN after the short budget may trail PI after the long one by at most this much accuracy and still "reach" it
REACH_MARGIN = 0.1
#: the multiple of L at which ALiBi's retrieval is judged against its own at L
ALIBI_AT = 8


def findings(df: pd.DataFrame) -> list[Finding]:
    """One verdict per claim, in CLAIMS' order."""
    return [pi_finding(df), yarn_finding(df), alibi_finding(df), window_check.span_finding(df)]


def _run(variants: str) -> str:
    return f"bench run suite=retrieval_length profile=standard variants=[{variants}]"


def reaches(values: dict[int, float], threshold: float = THRESHOLD) -> str:
    """'agrees' when every seed's accuracy is at least ``threshold``, 'disagrees' when their mean is below it."""
    if not values:
        return "not run"
    if all(v >= threshold for v in values.values()):
        return "agrees"
    return "disagrees" if sum(values.values()) / len(values) < threshold else "inconclusive"


def _said(diff) -> str:
    e = diff.estimate
    interval = "" if e.low is None or diff.seeds < 2 else f" [{e.low:+.2f}, {e.high:+.2f}]"
    return f"{e.value:+.2f}{interval} over {diff.seeds} seed(s), {diff.why()}"


def _mean(values: dict[int, float]) -> float:
    return sum(values.values()) / len(values) if values else math.nan


def pi_finding(df: pd.DataFrame) -> Finding:
    """Fine-tuned PI against fine-tuned plain RoPE at the fine-tuning length (Chen et al.)."""
    s = settings(df)
    length = float(s.get("finetune_len", 0))
    pi, rope = by_seed(df, "rope+pi", "finetuned_accuracy", length), by_seed(df, "rope", "finetuned_accuracy", length)
    if not pi or not rope:
        return not_run(
            PI_FT,
            f"This run lacks fine-tuned accuracy at set.finetune_len={length:.0f} for both `rope+pi` and `rope` "
            "(set.finetune_steps > 0, and the fine-tuning length among the evaluation lengths).",
            _run("rope,rope+pi"),
        )
    diff = paired(f"accuracy at {length:.0f}, fine-tuned rope+pi - rope", pi, rope, bounds=SHARE)
    beats, reached = directional(diff, +1), reaches(pi)
    word = all_hold([beats, reached])
    shown = Estimate.of(f"rope+pi fine-tuned, accuracy at {length:.0f}", pi.values(), kind="bounded", bounds=SHARE)
    text = (
        f"After {s.get('finetune_steps')} fine-tuning steps at {length:.0f} (s = {length / s['train_len']:g}), PI "
        f"retrieves {_mean(pi):.2f} at {length:.0f} and plain RoPE fine-tuned alike {_mean(rope):.2f}: "
        f"PI - RoPE {_said(diff)}; PI at or above {THRESHOLD:g} at every seed: {reached}."
    )
    causes = []
    if beats != "agrees":
        causes.append(f"PI does not beat fine-tuned extrapolation at {length:.0f} ({diff.why()})")
    if reached != "agrees":
        causes.append(f"PI does not retrieve at {THRESHOLD:g} or more at {length:.0f} at every seed")
    cause = "; ".join(causes)
    cause = cause[:1].upper() + cause[1:] + "." if cause else ""
    if cause:  # what the budget probe shows (reference/probes/pi_finetune_budget, filled in where it is printed)
        cause += (
            " PI's accuracy here rises with the fine-tuning steps, {probe:pi_finetune_budget.pi_steps} (Chen et al.'s "
            "count); at that count, {probe:pi_finetune_budget.pi_against_rope}: this fine-tuning trains the passkey "
            "task itself at the new length. Chen et al. fine-tune a language model on plain text (the Pile) and test "
            "the passkey untrained; fine-tuned on plain text alone (set.finetune_task=text, "
            "reference/probes/pi_text_finetune), {probe:pi_text_finetune.at_both_lengths}; on plain text at the new "
            "length with passkey sequences kept at the training length (set.finetune_task=mixed, "
            "reference/probes/pi_mixed_finetune), {probe:pi_mixed_finetune.at_both_lengths}."
        )
    return finding(PI_FT, word, f"{text} Verdict: **{word}**.", [diff.estimate, shown], cause=cause)


def yarn_finding(df: pd.DataFrame) -> Finding:
    """YaRN after the short budget against PI after the long one, and against PI after the same short budget."""
    s = settings(df)
    length = float(s.get("finetune_len", 0))
    yarn_short = by_seed(df, "rope+yarn", "short_finetuned_accuracy", length)
    pi_short = by_seed(df, "rope+pi", "short_finetuned_accuracy", length)
    pi_long = by_seed(df, "rope+pi", "finetuned_accuracy", length)
    if not (yarn_short and pi_short and pi_long):
        return not_run(
            YARN_FEWER,
            "This run lacks `rope+yarn` and `rope+pi` fine-tuned at both budgets (set.short_finetune_steps and "
            "set.finetune_steps above 0).",
            _run("rope,rope+pi,rope+yarn"),
        )
    short, long = s.get("short_finetune_steps"), s.get("finetune_steps")
    # not worse: PI(long) - YaRN(short) at most REACH_MARGIN (a - b > 0 is YaRN's shortfall)
    gap = paired(f"accuracy at {length:.0f}, PI {long} steps - YaRN {short} steps", pi_long, yarn_short, bounds=SHARE)
    sooner = paired(f"accuracy at {length:.0f}, YaRN - PI, both {short} steps", yarn_short, pi_short, bounds=SHARE)
    parts = [not_worse(gap, REACH_MARGIN), directional(sooner, +1)]
    word = all_hold(parts)
    text = (
        f"At {length:.0f}, YaRN after {short} steps retrieves {_mean(yarn_short):.2f}, PI after {long} steps "
        f"{_mean(pi_long):.2f} and PI after {short} steps {_mean(pi_short):.2f}: PI({long}) - YaRN({short}) "
        f"{_said(gap)} (reached when at most {REACH_MARGIN:g}: {parts[0]}); YaRN - PI at {short} steps "
        f"{_said(sooner)} ({parts[1]})."
    )
    causes = []
    if parts[0] != "agrees":
        causes.append(f"YaRN after {short} steps is not shown within {REACH_MARGIN:g} of PI after {long}")
    if parts[1] != "agrees":
        causes.append(f"YaRN is not shown ahead of PI after the same {short} steps ({sooner.why()})")
    cause = "; ".join(causes)
    cause = cause[:1].upper() + cause[1:] + "." if cause else ""
    headline = 0 if parts[0] != "agrees" else 1
    return finding(
        YARN_FEWER,
        word,
        f"{text} Verdict: **{word}**.",
        [gap.estimate, sooner.estimate],
        cause=cause,
        headline=headline,
        boundary=REACH_MARGIN if headline == 0 else 0.0,
    )


def alibi_finding(df: pd.DataFrame) -> Finding:
    """ALiBi's accuracy at ALIBI_AT x L against its own at L, with its perplexity ratio on the filler."""
    s = settings(df)
    if not s or not has(df, "alibi", "accuracy"):
        return not_run(ALIBI, "This run has no `alibi` accuracy.", _run("alibi"))
    train_len = float(s["train_len"])
    far = train_len * ALIBI_AT
    at_l, at_far = by_seed(df, "alibi", "accuracy", train_len), by_seed(df, "alibi", "accuracy", far)
    if not at_l or not at_far:
        return not_run(ALIBI, f"This run lacks `alibi`'s accuracy at L and {ALIBI_AT}L.", _run("alibi"))
    diff = paired(f"alibi accuracy, {ALIBI_AT}L - L", at_far, at_l, bounds=SHARE)
    loss_l, loss_far = by_seed(df, "alibi", "text_loss", train_len), by_seed(df, "alibi", "text_loss", far)
    ratios = [math.exp(loss_far[k] - loss_l[k]) for k in loss_l if k in loss_far]
    ppl = Estimate.of(f"alibi ppl({ALIBI_AT}L)/ppl(L) on the filler", ratios, kind="log") if ratios else None
    word = directional(diff, -1)
    flat = f"; its perplexity on the filler changes by a factor {sum(ratios) / len(ratios):.2f}" if ratios else ""
    text = (
        f"ALiBi retrieves {_mean(at_l):.2f} at L and {_mean(at_far):.2f} at {ALIBI_AT}L ({_said(diff)}){flat}. "
        f"Verdict: **{word}**."
    )
    cause = {
        "agrees": "",
        "disagrees": f"ALiBi retrieves better at {ALIBI_AT}L than at L.",
        "inconclusive": f"ALiBi's accuracy at {ALIBI_AT}L is not shown to fall ({diff.why()}).",
    }[word]
    return finding(ALIBI, word, text, [diff.estimate, ppl], cause=cause)
