"""Reversing the source helps an encoder-decoder without attention on long sentences (Sutskever, Vinyals & Le 2014,
section 3.3): BLEU on the longest source-length bucket, reversed minus forward, paired over seeds, directional."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import directional, paired
from suites.translation.claims._shared import Evidence
from suites.translation.encoders import plain
from suites.translation.tables import BLEU, per_seed

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    """The verdict on Sutskever et al.'s reversed source, from the LSTMs without attention; a forward or reversed
    LSTM that did not learn leaves it inconclusive."""
    ok, labels, flagged = ev.ok, ev.labels, ev.flagged
    forward, backward = plain(ok, ev.specs, "lstm", "forward"), plain(ok, ev.specs, "lstm", "reversed")
    if not labels or forward is None or backward is None:
        return not_run(
            CLAIM,
            "This run lacks an LSTM encoder-decoder without attention reading the source forward and one reading it "
            "reversed, with BLEU by source length.",
            "bench run suite=translation profile=bottleneck variants=[lstm,lstm+reversed]",
        )
    longest = max(labels)
    bucket = labels[longest].split(" (")[0]
    gap = paired(
        f"BLEU on {bucket}, {backward} - {forward}",
        per_seed(ok, backward, "bleu_by_length", longest),
        per_seed(ok, forward, "bleu_by_length", longest),
        "BLEU",
        bounds=BLEU,
    )
    overall = paired(
        f"test BLEU, {backward} - {forward}",
        per_seed(ok, backward, "bleu"),
        per_seed(ok, forward, "bleu"),
        "BLEU",
        bounds=BLEU,
    )
    text = (
        f"On the longest bucket ({bucket}) `{backward}` - `{forward}` is {gap.mean:+.1f} BLEU over {gap.seeds} seeds "
        f"({gap.why()}); on the whole test set {overall.mean:+.1f} BLEU."
    )
    unlearned = [v for v in (forward, backward) if v in flagged]
    if unlearned:
        cause = (
            f"{' and '.join(f'`{v}`' for v in unlearned)} did not learn ({'; '.join(flagged[v] for v in unlearned)}), "
            "so this run cannot compare the two source orders."
        )
        return finding(CLAIM, "inconclusive", f"{text} {cause}", [gap.estimate, overall.estimate], cause=cause)
    verdict = directional(gap, +1)
    if verdict == "agrees":
        return finding(
            CLAIM, verdict, f"{text} Reversing the source helps on long sentences.", [gap.estimate, overall.estimate]
        )
    cause = (
        f"the reversed source's difference on the longest bucket does not count ({gap.why()})"
        if verdict == "inconclusive"
        else "the forward source translates long sentences better than the reversed one"
    )
    cause = cause[0].upper() + cause[1:] + "."
    return finding(CLAIM, verdict, f"{text} {cause}", [gap.estimate, overall.estimate], cause=cause)
