"""YaRN reaches PI's retrieval with fewer fine-tuning steps (Peng et al. 2023): YaRN after the short budget within
REACH_MARGIN of PI after the long one, and ahead of PI after the same short budget, paired over seeds.

Testable only where the fine-tuning is the source's (the protocol precondition it shares with
pi_finetuned_retrieves, claims/_shared.py): Peng et al. fine-tune on plain text and test the passkey untrained, so
records fine-tuned on the passkey task itself at the new length are "not testable here" whatever the comparison
would say."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import all_hold, directional, not_worse, paired
from suites.retrieval_length.claims._shared import (
    mean,
    protocol_unmet,
    run,
    said,
    sentence_of,
    source_protocol_run,
)
from suites.retrieval_length.records import SHARE, by_seed, settings

CLAIM = declared(__file__)
#: YaRN after the short budget may trail PI after the long one by at most this much accuracy and still "reach" it
#: (this project's choice, in accuracy: Peng et al. state the reach without a margin)
REACH_MARGIN = 0.1
#: the fine-tuning budgets that would test the claim: the sources' own step counts, YaRN's 400 and PI's 1000
SOURCE_BUDGETS = "set.finetune_steps=1000 set.short_finetune_steps=400"


def judge(df) -> Finding:
    """Where the fine-tuning is the source's: YaRN after the short budget against PI after the long one
    (non-inferiority within REACH_MARGIN), and against PI after the same short budget (directional): both must hold
    (``all_hold``)."""
    s = settings(df)
    length = float(s.get("finetune_len", 0))
    yarn_short = by_seed(df, "rope+yarn", "short_finetuned_accuracy", length)
    pi_short = by_seed(df, "rope+pi", "short_finetuned_accuracy", length)
    pi_long = by_seed(df, "rope+pi", "finetuned_accuracy", length)
    if not (yarn_short and pi_short and pi_long):
        return not_run(
            CLAIM,
            "This run lacks `rope+yarn` and `rope+pi` fine-tuned at both budgets (set.short_finetune_steps and "
            "set.finetune_steps above 0).",
            run("rope,rope+pi,rope+yarn"),
        )
    short, long = s.get("short_finetune_steps"), s.get("finetune_steps")
    # not worse: PI(long) - YaRN(short) at most REACH_MARGIN (a - b > 0 is YaRN's shortfall)
    gap = paired(f"accuracy at {length:.0f}, PI {long} steps - YaRN {short} steps", pi_long, yarn_short, bounds=SHARE)
    sooner = paired(f"accuracy at {length:.0f}, YaRN - PI, both {short} steps", yarn_short, pi_short, bounds=SHARE)
    blocked = protocol_unmet(
        CLAIM,
        df,
        [
            ("rope+yarn", "short_finetuned_accuracy"),
            ("rope+pi", "short_finetuned_accuracy"),
            ("rope+pi", "finetuned_accuracy"),
        ],
        source_protocol_run("rope+pi,rope+yarn", SOURCE_BUDGETS),
        [gap.estimate, sooner.estimate],  # shown, not judged: the comparison these records make
    )
    if blocked is not None:
        return blocked
    parts = [not_worse(gap, REACH_MARGIN), directional(sooner, +1)]
    word = all_hold(parts)
    text = (
        f"At {length:.0f}, YaRN after {short} steps retrieves {mean(yarn_short):.2f}, PI after {long} steps "
        f"{mean(pi_long):.2f} and PI after {short} steps {mean(pi_short):.2f}: PI({long}) - YaRN({short}) "
        f"{said(gap)} (reached when at most {REACH_MARGIN:g}: {parts[0]}); YaRN - PI at {short} steps "
        f"{said(sooner)} ({parts[1]})."
    )
    causes = []
    if parts[0] != "agrees":
        causes.append(f"YaRN after {short} steps is not shown within {REACH_MARGIN:g} of PI after {long}")
    if parts[1] != "agrees":
        causes.append(f"YaRN is not shown ahead of PI after the same {short} steps ({sooner.why()})")
    headline = 0 if parts[0] != "agrees" else 1
    return finding(
        CLAIM,
        word,
        f"{text} Verdict: **{word}**.",
        [gap.estimate, sooner.estimate],
        cause=sentence_of(causes),
        headline=headline,
        boundary=REACH_MARGIN if headline == 0 else 0.0,
    )
