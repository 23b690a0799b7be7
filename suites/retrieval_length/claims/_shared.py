"""What retrieval_length's claims share: how a comparison reads in a sentence, a mean over seeds, the command
that runs what a claim needs, and the fine-tuning claims' precondition. Every judge reads the group's records
themselves (records.py reads them).

Every comparison pairs the accuracies of one training seed's models on the same scored sequences
(harness/paired.py, bounded in [0, 1]); one seed gives no verdict (no calibrated margin yet).

The two fine-tuning claims (PI beats extrapolation, YaRN reaches PI sooner) share one precondition about the
protocol, declared in suite.yaml and applied before any comparison, whatever its direction (``protocol_unmet``):
the sources fine-tune a language model on plain text at the new length and test the passkey untrained, so a
fine-tuning that trains the passkey task itself at the new length (set.finetune_task=passkey) cannot test them;
and a fine-tuning after which neither compared arm retrieves even at the training length L (the task forgotten)
leaves nothing to extend.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from harness.findings import Claim, Estimate, Finding, unmet
from harness.paired import Difference
from suites.retrieval_length.probe_figures import FORGOTTEN  # below it at L after fine-tuning, the task is forgotten
from suites.retrieval_length.records import SHARE, by_seed, settings

#: set.finetune_task values that fine-tune as the sources do: on plain text at the new length, the passkey never
#: trained there ("mixed" keeps passkey sequences at L so that a model this small keeps the task where it learned it)
SOURCE_TASKS = ("text", "mixed")
#: where one seed of each protocol that meets the precondition is kept, and what it shows (the cause cites it; the
#: report fills the figures where it prints the cause)
SOURCE_PROBES = (
    "One seed of each protocol that meets it: set.finetune_task=mixed, plain text at the new length with passkey "
    "sequences kept at L (reference/probes/pi_mixed_finetune), {probe:pi_mixed_finetune.at_both_lengths}; "
    "set.finetune_task=text, plain text alone as the sources (reference/probes/pi_text_finetune), "
    "{probe:pi_text_finetune.at_both_lengths}."
)


def finetune_task(df) -> str:
    """What the group's fine-tuning trained on (records from before set.finetune_task existed: passkey)."""
    return str(settings(df).get("finetune_task") or "passkey")


def source_protocol_run(variants: str, settings_: str) -> str:
    """The command that runs ``variants`` fine-tuned as the sources do (set.finetune_task=mixed), 3 seeds, with the
    fine-tuning budgets ``settings_`` (the sources' own step counts)."""
    return (
        f"bench run suite=retrieval_length profile=standard variants=[{variants}] set.finetune_task=mixed {settings_}"
    )


def protocol_unmet(
    claim: Claim,
    df,
    arms: list[tuple[str, str]],
    command: str,
    shown: Sequence[Estimate] = (),
    evidence: str = "",
) -> Finding | None:
    """The finding of a fine-tuning claim whose protocol precondition the records do not meet, or None where they
    meet it: "not testable here" where the fine-tuning trained the passkey at the new length, or where every
    compared arm (``arms``: (variant, metric) pairs) retrieves less than FORGOTTEN at L after it; ``command``: the
    run that would test it; ``shown``: the comparison the records make, shown beside the verdict, not judged;
    ``evidence``: what else shows that the passkey fine-tuning teaches the task (a probe figure), if anything.
    Decided from the settings and the accuracy at L only, never from the comparison the claim makes, so it applies
    whatever that comparison's direction."""
    s = settings(df)
    task = finetune_task(df)
    length = float(s.get("finetune_len", 0))
    would = f"the sources' protocol over 3 seeds, `{command}`"
    if task not in SOURCE_TASKS:
        found = unmet(
            claim,
            f"set.finetune_task={task}: the fine-tuning trains the passkey task itself at {length:.0f} characters, "
            "the length it is then scored at, so it measures learning the task there, not a position scaling "
            "that extends retrieval (Chen et al. and Peng et al. fine-tune on plain text and test the passkey "
            "untrained)",
            would,
            shown,
        )
        probes = f" {evidence[:1].upper()}{evidence[1:]}." if evidence else ""
        return replace(found, cause=f"{found.cause}{probes} {SOURCE_PROBES}")
    train_len = float(s.get("train_len", 0))
    steps = {"finetuned_accuracy": s.get("finetune_steps"), "short_finetuned_accuracy": s.get("short_finetune_steps")}
    at_l = {f"{v} after {steps.get(metric)} steps": by_seed(df, v, metric, train_len) for v, metric in arms}
    at_l = {k: vals for k, vals in at_l.items() if vals}
    if at_l and all(mean(vals) < FORGOTTEN for vals in at_l.values()):
        at = [Estimate.of(f"{k} at L", vals.values(), kind="bounded", bounds=SHARE) for k, vals in at_l.items()]
        return unmet(
            claim,
            f"after set.finetune_task={task} fine-tuning every compared arm retrieves below {FORGOTTEN:g} at the "
            f"training length {train_len:.0f} ("
            + ", ".join(f"{k} {mean(vals):.2f}" for k, vals in at_l.items())
            + "): the task is forgotten, so there is no retrieval to extend",
            "set.finetune_task=mixed, which keeps the task at L while the positions adapt to the new length "
            f"(`{command}`, 3 seeds)",
            at + list(shown),
        )
    return None


def run(variants: str) -> str:
    """The command that runs ``variants`` at the standard profile."""
    return f"bench run suite=retrieval_length profile=standard variants=[{variants}]"


def said(diff: Difference) -> str:
    """'+0.62 [+0.51, +0.73] over 3 seed(s), its 95% interval excludes 0' for a sentence."""
    e = diff.estimate
    interval = "" if e.low is None or diff.seeds < 2 else f" [{e.low:+.2f}, {e.high:+.2f}]"
    return f"{e.value:+.2f}{interval} over {diff.seeds} seed(s), {diff.why()}"


def mean(values: dict[int, float]) -> float:
    """The mean over seeds (NaN without one)."""
    return sum(values.values()) / len(values) if values else math.nan


def sentence_of(causes: list[str]) -> str:
    """One cause sentence from its parts ('' without one)."""
    cause = "; ".join(causes)
    return cause[:1].upper() + cause[1:] + "." if cause else ""
