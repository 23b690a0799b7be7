"""ALiBi's flat perplexity past L does not mean retrieval at length (Press et al. 2022; RULER): its accuracy at
ALIBI_AT x L falls from its own at L, paired over seeds, its perplexity ratio on the filler shown beside."""

from __future__ import annotations

import math

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import directional, paired
from suites.retrieval_length.claims._shared import mean, run, said
from suites.retrieval_length.records import SHARE, by_seed, has, settings

CLAIM = declared(__file__)
#: the multiple of L at which ALiBi's retrieval is judged against its own at L (Press et al.'s ALiBi stays flat up to
#: ~7L; the suite's evaluation lengths are powers of two)
ALIBI_AT = 8


def judge(df) -> Finding:
    """ALiBi's accuracy at ALIBI_AT x L against its own at L: agrees when it falls (directional), with its perplexity
    ratio on the filler beside."""
    s = settings(df)
    if not s or not has(df, "alibi", "accuracy"):
        return not_run(CLAIM, "This run has no `alibi` accuracy.", run("alibi"))
    train_len = float(s["train_len"])
    far = train_len * ALIBI_AT
    at_l, at_far = by_seed(df, "alibi", "accuracy", train_len), by_seed(df, "alibi", "accuracy", far)
    if not at_l or not at_far:
        return not_run(CLAIM, f"This run lacks `alibi`'s accuracy at L and {ALIBI_AT}L.", run("alibi"))
    diff = paired(f"alibi accuracy, {ALIBI_AT}L - L", at_far, at_l, bounds=SHARE)
    loss_l, loss_far = by_seed(df, "alibi", "text_loss", train_len), by_seed(df, "alibi", "text_loss", far)
    ratios = [math.exp(loss_far[k] - loss_l[k]) for k in loss_l if k in loss_far]
    ppl = Estimate.of(f"alibi ppl({ALIBI_AT}L)/ppl(L) on the filler", ratios, kind="log") if ratios else None
    word = directional(diff, -1)
    flat = f"; its perplexity on the filler changes by a factor {sum(ratios) / len(ratios):.2f}" if ratios else ""
    text = (
        f"ALiBi retrieves {mean(at_l):.2f} at L and {mean(at_far):.2f} at {ALIBI_AT}L ({said(diff)}){flat}. "
        f"Verdict: **{word}**."
    )
    cause = {
        "agrees": "",
        "disagrees": f"ALiBi retrieves better at {ALIBI_AT}L than at L.",
        "inconclusive": f"ALiBi's accuracy at {ALIBI_AT}L is not shown to fall ({diff.why()}).",
    }[word]
    return finding(CLAIM, word, text, [diff.estimate, ppl], cause=cause)
