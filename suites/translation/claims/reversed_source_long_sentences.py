"""Reversing the source helps an encoder-decoder without attention on long sentences (Sutskever, Vinyals & Le 2014,
sections 3.3 and 3.7), judged on the length interaction the claim states: per seed, the reversed model's gain over the
forward one on the longest source-length bucket minus its gain on the shortest, paired over seeds, directional.

Sutskever et al. expected reversal to help only the first words of the translation and found instead that "LSTMs
trained on reversed source sentences did much better on long sentences": a gain that grows with length. A gain on
the longest bucket alone is not that finding when the gain on the shortest is as large or larger."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run, unmet
from harness.paired import Verdict, directional, paired
from suites.translation.claims._shared import Evidence, LengthEffect, length_effect, shared_buckets
from suites.translation.encoders import plain
from suites.translation.tables import BLEU, per_seed

CLAIM = declared(__file__)


def rule(effect: LengthEffect) -> Verdict:
    """The reversal's gain grows with source length: the paired length interaction is above 0 (directional)."""
    return directional(effect.interaction, +1)


def judge(ev: Evidence) -> Finding:
    """The verdict on Sutskever et al.'s reversed source, from the LSTMs without attention; a forward or reversed
    LSTM that did not learn leaves the claim's precondition unmet (not testable here)."""
    ok, labels, flagged = ev.ok, ev.labels, ev.flagged
    forward, backward = plain(ok, ev.specs, "lstm", "forward"), plain(ok, ev.specs, "lstm", "reversed")
    if forward is None or backward is None or len(shared_buckets(ok, labels, [forward, backward])) < 2:
        return not_run(
            CLAIM,
            "This run lacks an LSTM encoder-decoder without attention reading the source forward and one reading it "
            "reversed, with BLEU by at least two source-length buckets.",
            "bench run suite=translation profile=bottleneck variants=[lstm,lstm+reversed]",
        )
    effect = length_effect(ok, labels, backward, forward)
    overall = paired(
        f"test BLEU, {backward} - {forward}",
        per_seed(ok, backward, "bleu"),
        per_seed(ok, forward, "bleu"),
        "BLEU",
        bounds=BLEU,
    )
    estimates = [effect.interaction.estimate, effect.long.estimate, effect.short.estimate, overall.estimate]
    text = f"`{backward}` - `{forward}`: {effect.told()}; on the whole test set {overall.mean:+.1f} BLEU."
    unlearned = [v for v in (forward, backward) if v in flagged]
    if unlearned:
        measured = (
            f"{' and '.join(f'`{v}`' for v in unlearned)} did not learn ({'; '.join(flagged[v] for v in unlearned)})"
        )
        return unmet(
            CLAIM,
            measured,
            "a budget at which both LSTMs learn the task (profile bottleneck)",
            estimates,
        )
    verdict = rule(effect)
    if verdict == "agrees":
        return finding(
            CLAIM,
            verdict,
            f"{text} Reversing the source helps more on the longest sentences than on the shortest.",
            estimates,
        )
    if verdict == "disagrees":
        cause = (
            f"Reversing the source helps less on {effect.long_bucket} ({effect.long.mean:+.1f} BLEU) than on "
            f"{effect.short_bucket} ({effect.short.mean:+.1f}): its gain shrinks with length, the length interaction "
            f"{effect.interaction.mean:+.1f} BLEU ({effect.interaction.why()})."
        )
    else:
        cause = (
            f"The reversal's gain on {effect.long_bucket} minus its gain on {effect.short_bucket} "
            f"({effect.interaction.mean:+.1f} BLEU) does not count ({effect.interaction.why()})."
        )
    return finding(CLAIM, verdict, f"{text} {cause}", estimates, cause=cause)
