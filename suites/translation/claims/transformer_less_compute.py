"""The Transformer reaches the RNNs' BLEU with less training compute (Vaswani et al. 2017, Table 2): per seed, the
Transformer's training FLOPs to first reach the strongest RNN with attention's final BLEU over that RNN's, paired.

The rows per seed come from suites/translation/compute.py; the verdict is one paired test over seeds on the ratio
F_tr / F_rnn (the log-scale interval of the per-seed ratios), directional: below 1 agrees.
"""

from __future__ import annotations

import math

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import directional, paired
from suites.translation.claims._shared import Evidence
from suites.translation.compute import arms, per_seed_rows

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    """The verdict on Vaswani et al.'s Table 2: the Transformer reaches the RNN's BLEU with fewer training FLOPs."""
    rnn, transformer = arms(ev.ok, ev.specs)
    rows = per_seed_rows(ev.ok, rnn, transformer)
    if not rows:
        return not_run(
            CLAIM,
            "This run has no BLEU during training with training FLOPs for a Transformer and an RNN with attention.",
            "bench run suite=translation profile=standard data=bible_en_es",
        )
    ratio = paired(
        f"training FLOPs to reach {rnn}'s BLEU, {transformer} / {rnn}",
        {r["seed"]: r["tr_flops"] for r in rows},
        {r["seed"]: r["rnn_flops"] for r in rows},
        relative=True,
    )
    missed = [r["seed"] for r in rows if not r["reached"]]
    share = math.exp(sum(math.log(r["tr_flops"] / r["rnn_flops"]) for r in rows) / len(rows))
    text = (
        f"`{transformer}` reaches the BLEU `{rnn}` ends its training at (the strongest RNN with attention here) after "
        f"{share:.2f}x its training FLOPs (geometric mean over {len(rows)} seeds; {ratio.why()})"
        + (
            f"; at seed(s) {', '.join(map(str, missed))} it never does, and its whole budget stands in"
            if missed
            else ""
        )
        + "."
    )
    verdict = directional(ratio, -1)
    if verdict == "agrees":
        return finding(CLAIM, verdict, text, [ratio.estimate])
    cause = (
        "the Transformer needs more training FLOPs than the RNN to reach its BLEU"
        if verdict == "disagrees"
        else f"the ratio's interval reaches 1 ({ratio.why()})"
    )
    cause = cause[0].upper() + cause[1:] + "."
    return finding(CLAIM, verdict, f"{text} {cause}", [ratio.estimate], cause=cause)
