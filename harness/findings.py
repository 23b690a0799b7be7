"""Published findings and this benchmark's verdicts on them: what a suite's verdict function returns.

A suite's report module lists the published findings it tests (``CLAIMS``, one ``Claim`` each) and
computes one ``Finding`` per claim from a group of records (``findings(df)``). Its own report prints each
finding's sentence, and the index (bench/index/page.py) puts every suite's findings on one scoreboard, so a
verdict is decided in one place: the suite's report module.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from harness.estimate import Estimate  # noqa: F401  (claims and verdicts are written with it)

#: the verdicts a finding can have; "not run" means the records lack what the claim needs; "not testable here"
#: that the claim is about hardware or a size the run does not have (its sentence says what would test it)
VERDICTS = ("agrees", "disagrees", "inconclusive", "not testable here", "not run")
NOT_TESTABLE = "not testable here"

#: what a claim is: a published *finding* about the variants, or a *check*, true by construction (var(q.k) = d_k,
#: KV bytes = the formula) or a regression against this project's own earlier measurement; checks are scored apart
KINDS = ("finding", "check")
#: the note a verdict resting on one seed carries (``Finding.note``)
INDICATIVE = "1 seed: indicative only"


@dataclass(frozen=True)
class Claim:
    """A published finding one suite tests: its short name, who published it and the figure they report."""

    key: str
    suite: str
    name: str
    source: str
    published: str
    #: the variant expressions a run of the suite needs to test it (empty: the suite's defaults)
    variants: tuple[str, ...] = ()
    #: finding or check (KINDS)
    kind: str = "finding"
    #: the source's protocol (evaluation positions, windows, scale factors, warm-up, data) and where this suite's differs
    protocol: str = ""
    #: the one difference from the source's setting a reader must keep in mind (a report's Verdicts block shows it)
    confound: str = ""
    #: the confound where the records come from a CUDA device, when the CPU's ``confound`` does not hold there
    confound_gpu: str = ""
    #: what must hold in the run for the claim to be testable at all (a sink forms; the arms learn the task; a GPU):
    #: where the run measures it absent, the verdict is "not testable here" with that measurement (``unmet``)
    precondition: str = ""
    #: the key of the index question this claim's verdict answers (bench/index/answers.py), or "none" where it answers
    #: none (a check, or a finding no question asks about); every claim says which
    answers: str = ""
    #: the smallest effect worth detecting, in the headline estimate's unit (its distance from the boundary): what an
    #: inconclusive verdict's seed plan is sized for (harness/power.py), never the measured estimate
    smallest_effect: float | None = None
    #: where ``smallest_effect`` comes from: the claim's margin, the source's units, or "this project's choice: why"
    smallest_effect_source: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.key}: kind {self.kind!r} is not one of {', '.join(KINDS)}")


@dataclass(frozen=True)
class Finding:
    """A verdict on one claim from one group of records, with what it rests on.

    ``sentence`` is what the suite's own report prints (empty when it prints nothing for this claim);
    ``estimates`` are the measured quantities the verdict turns on; ``seeds`` how many seeds stand behind them.
    """

    claim: Claim
    verdict: str
    sentence: str = ""
    estimates: tuple[Estimate, ...] = ()
    seeds: int = 0
    command: str = ""
    #: one sentence on why the verdict is not "agrees" (its cause), shown on the scoreboard
    cause: str = ""
    #: which of ``estimates`` the verdict rests on (the index's measurement cell, the README's table)
    headline_index: int = 0
    #: whether the verdict rests on the spread over training seeds (False: on exact bytes or counts, or on timings
    #: judged against a margin set from their timing repeats, which one seed does not weaken)
    over_seeds: bool = True
    #: what ``seeds`` counts: training seeds, or the pairs a verdict pairs over instead (trained models)
    pairs: str = "seed"
    #: the value the headline's interval must clear for the verdict to be decided (0 for "a differs from b", the
    #: tolerance of "alike", the rise of "rises by at least"): what harness/power.py plans more seeds against
    boundary: float = 0.0
    #: a claim judged along an axis (a ladder of model sizes): its verdict at each point, in order, and where it
    #: flips ("by rung: 0 agrees, 1 agrees, 2 inconclusive; flips"), which the scoreboard shows whatever the verdict
    along: str = ""
    #: the two-sided p-value of the test behind the verdict (None where no test stands behind it: a count, one seed
    #: judged by its margin, a claim not testable here); the index's false-discovery control reads it
    p: float | None = None
    #: the profile and device of the records the headline comes from, where they differ from the group's (a GPU
    #: record judged beside a CPU group); empty otherwise
    where: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {', '.join(VERDICTS)}")

    @property
    def name(self) -> str:
        return self.claim.name

    @property
    def source(self) -> str:
        return self.claim.source

    @property
    def published(self) -> str:
        return self.claim.published

    @property
    def headline(self) -> Estimate | None:
        """The one estimate the verdict rests on (``headline_index``, the first by default); None without estimates."""
        if not self.estimates:
            return None
        return self.estimates[min(self.headline_index, len(self.estimates) - 1)]

    @property
    def indicative(self) -> bool:
        """Whether an agreeing or disagreeing verdict rests on one seed's spread: indicative only (``note`` says so)."""
        return self.over_seeds and self.seeds == 1 and self.verdict in ("agrees", "disagrees")

    @property
    def note(self) -> str:
        """'1 seed: indicative only' for an indicative verdict, else ''."""
        return INDICATIVE if self.indicative else ""

    def measurement(self) -> str:
        """Our measurement in words: every estimate, '; '-separated."""
        return "; ".join(e.text() for e in self.estimates)

    def interval(self) -> str:
        """The 95% interval of every estimate, in the order of ``measurement``; said once when none has one (with
        the note of a verdict that rests on one seed)."""
        texts = [e.interval_text() for e in self.estimates]
        if self.indicative:
            texts = [f"none ({INDICATIVE})" if t == "none (1 seed)" else t for t in texts]
        if len(set(texts)) == 1 and not texts[0].startswith("["):
            return texts[0]
        return "; ".join(texts)


def finding(
    claim: Claim,
    verdict: str,
    sentence: str = "",
    estimates: Sequence[Estimate] = (),
    seeds: int | None = None,
    cause: str = "",
    headline: int = 0,
    over_seeds: bool = True,
    pairs: str = "seed",
    boundary: float = 0.0,
    along: str = "",
    p: float | None = None,
    where: str = "",
) -> Finding:
    """A Finding whose seed count defaults to the seeds behind its headline estimate (the one the verdict turns
    on); ``cause``: one sentence on why the verdict is not "agrees"; ``headline``: the position, among the
    estimates given, of the one the verdict rests on; ``over_seeds``: False where the verdict rests on exact values
    or timing repeats, not seeds; ``pairs``: what the count of ``seeds`` counts when it is not training seeds;
    ``boundary``: what the headline's interval must clear (harness/power.py); ``along``: the verdict at each point of
    an axis the claim is judged along (``Finding.along``); ``p``: the test's two-sided p-value where the rule's is not
    the one ``verdict`` carries (a ``harness.paired.Verdict``) nor the headline's against its boundary; ``where``:
    ``Finding.where``.

    An inconclusive verdict's cause ends with what more seeds could do (harness/power.py: the minimum detectable
    effect at its seeds and the seeds that detect the claim's smallest effect of interest). A verdict that rests on one seed's spread ends its
    sentence with the note '1 seed: indicative only'."""
    kept = [(i, e) for i, e in enumerate(estimates) if e is not None]
    position = next((k for k, (i, _) in enumerate(kept) if i == headline), 0)
    estimates = tuple(e for _, e in kept)
    head = estimates[position] if estimates else None
    n = seeds if seeds is not None else (head.seeds if head is not None else 0)
    if verdict == "inconclusive" and head is not None and over_seeds:
        from harness.power import sentence as power_sentence

        planned = power_sentence(head, boundary, claim.smallest_effect, claim.smallest_effect_source)
        if planned and planned not in cause:
            cause = f"{cause.rstrip().rstrip('.')}. {planned}" if cause.strip() else planned
    p = _p_of(verdict, head, boundary, over_seeds) if p is None else p
    found = Finding(
        claim, str(verdict), sentence, estimates, n, "", cause, position, over_seeds, pairs, boundary, along, p, where
    )
    if found.indicative and sentence and INDICATIVE not in sentence:
        found = replace(found, sentence=f"{sentence.rstrip()} ({INDICATIVE}.)")
    return found


def _p_of(verdict: str, head: Estimate | None, boundary: float, over_seeds: bool) -> float | None:
    """The p-value a verdict carries (a ``harness.paired.Verdict``), else the headline's paired t test against its
    boundary; None where neither is a test (no seeds behind it, a count, one seed, not testable, not run)."""
    import math

    from harness import pvalues

    if verdict not in ("agrees", "disagrees", "inconclusive") or not over_seeds:
        return None
    p = getattr(verdict, "p", math.nan)
    if math.isnan(p):
        p = pvalues.two_sided(head, boundary)
    return None if math.isnan(p) else p


def cause_sentence(verdict: str, causes: Sequence[str]) -> str:
    """One sentence from a claim's per-arm causes ('a; b.'), or none when the verdict agrees."""
    if verdict == "agrees" or not causes:
        return ""
    text = "; ".join(causes)
    return text[0].upper() + text[1:] + "."


def not_run(claim: Claim, sentence: str = "", command: str = "") -> Finding:
    """The finding of a claim the records cannot test; the index adds the command that would run what it needs."""
    return Finding(claim, "not run", sentence, (), 0, command)


def not_testable(
    claim: Claim,
    reason: str,
    would_test: str,
    estimates: Sequence[Estimate] = (),
    seeds: int | None = None,
    headline: int = 0,
    boundary: float = 0.0,
) -> Finding:
    """The finding of a claim about hardware or a size this run does not have: why, and what would test it.

    The estimates measured on the way (shown, not judged) may be kept; ``headline`` the one that shows why."""
    cause = f"{reason.rstrip('.')}; {would_test.rstrip('.')} would test it."
    sentence = f"Not testable here: {reason.rstrip('.')}. What would test it: {would_test.rstrip('.')}."
    return finding(claim, NOT_TESTABLE, sentence, estimates, seeds, cause, headline=headline, boundary=boundary)


def unmet(
    claim: Claim,
    measured: str,
    would_test: str,
    estimates: Sequence[Estimate] = (),
    seeds: int | None = None,
    headline: int = 0,
    boundary: float = 0.0,
) -> Finding:
    """The finding of a claim whose declared precondition (``Claim.precondition``) the run measured absent: not
    testable here, with the measurement that shows it (``headline``: the estimate of the precondition, ``boundary``
    its threshold) and what would test the claim."""
    reason = f"its precondition ({claim.precondition or 'see the claim'}) is absent here: {measured.rstrip('.')}"
    return not_testable(claim, reason, would_test, estimates, seeds, headline, boundary)


def sentences(findings: Iterable[Finding]) -> list[str]:
    """The report sentences of findings, each once, in order (several claims may share one 'no verdict' sentence)."""
    return list(dict.fromkeys(f.sentence for f in findings if f.sentence))


def for_device(found: Finding, device: str) -> Finding:
    """The finding with its claim's GPU confound in place of the CPU one when its records come from a CUDA device."""
    claim = found.claim
    if not claim.confound_gpu or not str(device).startswith("cuda"):
        return found
    return replace(found, claim=replace(claim, confound=claim.confound_gpu))
