"""What sequence_cost's claims read: the records with their pass and layer kind, where the project's reference GPU
records are, the one precondition of the three GPU claims and how a CPU group applies it, how a latency ratio
between two forms of one layer is tested (the scan's and the chunked form's claims), and the quoted utilisation
figures the report's figure draws.

The timing verdicts are tests on the timing repeats (suites/common/timing_repeats.py): a log latency ratio against
its threshold on Student-t at its repeats' degrees of freedom (over seeds where there are two or more), each branch
at 2.5%, the parts of a claim joined by harness/paired.py ``all_hold`` (Holm across the parts). They do not rest on
the spread over seeds, so a run of one seed is not marked indicative.

One precondition about the setting, declared in suite.yaml for the three claims whose mechanism is a device's
parallelism (``GPU_PRECONDITION``: recurrence_idles_device, parallel_scan_speedup, chunked_form_speedup), and applied
whatever the direction of the result: the records come from a device with parallel lanes to spare (a GPU). Vaswani
et al.'s O(n) against O(1) sequential operations, Feng et al.'s parallel scan (depth O(log T) against the GRU's T
steps, timed on a T4 GPU) and Yang et al.'s chunkwise form (depth T / C, timed on an H100) all pay only where a
step's work leaves lanes idle; on a CPU of a few cores every form is bound by its total work, and a ratio there
measures Python dispatch and kernel quality, not the claim's mechanism, in either direction. A CPU group is judged
on the project's reference GPU records (reference/gpu/results, gpu_records.py) where they hold the claim's variants,
the device named; otherwise not testable here, the CPU's numbers shown.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run, unmet
from harness.paired import Verdict, all_hold
from suites.common.timing_repeats import Contrast, ratio_contrast
from suites.sequence_cost.gpu_records import reference_gpu_frame, where
from suites.sequence_cost.speedups import latencies, pass_of, timings
from suites.sequence_cost.tables import _frame

#: the quoted figures (% of peak) of recurrence_idles_device, drawn in the report's figure too
QUOTED_RECURRENT, QUOTED_ATTENTION = 30.0, 70.0
#: a speed-up counts beyond this ratio (this project's choice): two jobs' timings of the same call on a shared
#: machine differ by up to ~10% from causes the repeats within one job do not see (another job's load, the clock),
#: so a ratio is tested against 1.1, not against 1
FASTER = 1.1


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: the records with their pass, layer kind and whether recurrent or a mixer (tables.py ``_frame``)
    df: pd.DataFrame
    #: where the project's reference GPU records are read from (None: reference/gpu/results, gpu_records.py)
    gpu_results: Path | None = None


def prepare(records: pd.DataFrame) -> Evidence:
    return Evidence(records if "pass" in records else _frame(records))


def device_of(df: pd.DataFrame) -> str:
    """'cuda' or 'cpu' of a group's records ('?' without records)."""
    return str(df.iloc[0].device).split(":")[0] if len(df) else "?"


def device_name(df: pd.DataFrame) -> str:
    """The device's name as recorded ('NVIDIA H200'), else its kind."""
    if not len(df):
        return "?"
    name = df.iloc[0].get("device_name") if hasattr(df.iloc[0], "get") else None
    return str(name) if name and str(name) != "nan" else device_of(df)


def p_of(verdict: Verdict) -> float | None:
    """The two-sided p-value a verdict carries (None where its rule has none)."""
    p = getattr(verdict, "p", math.nan)
    return None if math.isnan(p) else float(p)


class Judged(NamedTuple):
    """A claim judged on one group of records: the verdict (carrying its p-values), the sentence, the estimates (the
    headline first), the cause (empty where it agrees) and the rule's two-sided p-value."""

    verdict: Verdict
    sentence: str
    estimates: list[Estimate]
    cause: str
    p: float | None


def gpu_where(gpu: pd.DataFrame) -> str:
    """'large, no corpus, cuda (NVIDIA H200)': the profile and device of reference GPU records, in the scoreboard's
    'profile, corpus, device' form, for ``Finding.where``."""
    first = gpu.iloc[0]
    return f"{first.profile}, no corpus, {first.device} ({device_name(gpu)})"


def on_a_gpu(
    claim: Claim,
    ev: Evidence,
    judge: Callable[[pd.DataFrame, str], Judged | None],
    here: str,
    shown: list[Estimate],
    would_test: str,
    boundary: float,
    missing: str,
    gpu_shown: Callable[[pd.DataFrame], str] | None = None,
) -> Finding:
    """The finding of a claim whose precondition is a GPU (``claim.precondition``): judged by ``judge`` on the
    group's records on a CUDA device; on another device judged on the project's reference GPU records where they
    hold what ``judge`` needs (the device named in the sentence, the headline and ``Finding.where``, this device's
    numbers ``shown`` beside them), else not testable here with ``here`` (this device's measurement in words) and
    ``would_test`` (``gpu_shown``: what the GPU records do show, in words, where they lack the claim's variants);
    not run (``missing``: what the records lack) where a GPU group lacks it. Decided by the device alone, never by
    the measurement's direction."""
    df = ev.df
    device = device_of(df)
    if device == "cuda":
        j = judge(df, "")
        if j is None:
            return not_run(claim, missing)
        return finding(
            claim, j.verdict, j.sentence, j.estimates, cause=j.cause, over_seeds=False, boundary=boundary, p=j.p
        )
    gpu = reference_gpu_frame(ev.gpu_results)
    on_gpu = judge(_frame(gpu), f"On the project's reference GPU ({where(gpu)})") if gpu is not None else None
    if on_gpu is None:
        lacking = (
            f"; the project's reference GPU records ({where(gpu)}) lack what the claim compares"
            + (f" ({gpu_shown(_frame(gpu))})" if gpu_shown else "")
            if gpu is not None
            else "; no reference GPU records are kept"
        )
        return unmet(claim, f"this is a {device}, {here}{lacking}", would_test, shown, boundary=boundary)
    sentence = f"Not testable on this {device} ({here}). {on_gpu.sentence}"
    cause = f"On the reference GPU ({where(gpu)}): {on_gpu.cause}" if on_gpu.cause else ""
    # the verdict is the GPU's: the confound shown with it is the GPU's, the device named
    gpu_claim = replace(claim, confound=f"the verdict is the reference GPU run's ({where(gpu)}): {claim.confound_gpu}")
    return finding(
        gpu_claim,
        on_gpu.verdict,
        sentence,
        on_gpu.estimates + shown,
        cause=cause,
        over_seeds=False,
        boundary=boundary,
        p=on_gpu.p,
        where=gpu_where(gpu),
    )


@dataclass(frozen=True)
class SpeedUp:
    """``slow``'s latency over ``fast``'s, tested on the timing repeats: faster beyond FASTER at the longest length
    both were timed, and by more there than at the shortest."""

    slow: str
    fast: str
    pass_: str
    #: length -> the ratio of the mean latencies over seeds (the table's numbers)
    ratios: dict[float, float]
    #: the log ratio at the longest length, and its growth from the shortest (None where untestable)
    faster: Contrast | None
    growth: Contrast | None
    #: the two parts' verdicts and the joint one (all_hold: Holm across the parts for "disagrees")
    faster_verdict: Verdict
    growth_verdict: Verdict
    verdict: Verdict

    @property
    def long(self) -> float:
        return max(self.ratios)

    @property
    def short(self) -> float:
        return min(self.ratios)

    def estimates(self, on: str = "") -> list[Estimate]:
        """The ratio at the longest length (the headline), its growth from the shortest, then the other lengths'
        ratios (shown). ``on``: ' on NVIDIA H200' where the device must be named."""
        head = f"{self.slow} / {self.fast} latency at {self.long:g} tokens{on}"
        out = [
            self.faster.estimate(head, self.ratios[self.long])
            if self.faster
            else Estimate(head, self.ratios[self.long], unit="x")
        ]
        if self.long != self.short:
            grew = self.ratios[self.long] / self.ratios[self.short]
            label = f"growth of that ratio from {self.short:g} to {self.long:g} tokens{on}"
            out.append(self.growth.estimate(label, grew) if self.growth else Estimate(label, grew, unit="x"))
        out += [
            Estimate(f"{self.slow} / {self.fast} latency at {x:g} tokens{on}", r, unit="x")
            for x, r in sorted(self.ratios.items(), reverse=True)
            if x not in (self.long, self.short)
        ]
        return out

    def listed(self) -> str:
        """'64 tokens 2.00x, 512 tokens 10.00x'."""
        return ", ".join(f"{x:g} tokens {r:.2f}x" for x, r in self.ratios.items())

    def said(self) -> str:
        """The verdict's sentence: each part's 95% interval against its bar."""
        parts = [_part(f"at {self.long:g} tokens", self.faster, FASTER, self.faster_verdict)]
        if self.long != self.short:
            parts.append(_part(f"its growth from {self.short:g} tokens", self.growth, 1.0, self.growth_verdict))
        else:
            parts.append("one length timed, so its growth cannot be told")
        over = self.faster.over if self.faster else "timing repeats"
        return (
            f"Tested on the {over} (95% intervals, Student-t at their degrees of freedom): "
            + "; ".join(parts)
            + f". This run **{self.verdict}** (faster beyond {FASTER:g}x at the longest length and by more there than "
            "at the shortest; a part disagrees with the parts held at 2.5% together)."
        )

    def cause(self, slower: str) -> str:
        """Why the verdict is not 'agrees' (``slower``: what a disagreeing ratio means)."""
        if self.verdict == "agrees":
            return ""
        if self.verdict == "disagrees":
            if self.faster_verdict == "disagrees":
                return slower
            return f"the ratio shrinks from {self.short:g} to {self.long:g} tokens ({self.listed()})."
        undecided = []
        if self.faster_verdict != "agrees":
            undecided.append(f"the ratio at {self.long:g} tokens is not clearly beyond {FASTER:g}x")
        if self.growth_verdict != "agrees":
            undecided.append(
                "only one length was timed"
                if self.long == self.short
                else f"it does not clearly grow from {self.short:g} tokens"
            )
        return " and ".join(undecided) + f" on the {self.faster.over if self.faster else 'timing repeats'}."


def _part(what: str, c: Contrast | None, bar: float, v: Verdict) -> str:
    if c is None:
        return f"{what}: no repeats recorded to test"
    low, high = c.bounds()
    side = {"agrees": "above", "disagrees": "below", "inconclusive": "across"}[str(v)]
    return f"{what} {math.exp(c.centre):.2f}x [{low:.2f}, {high:.2f}], {side} {bar:g}x"


def speedup(df: pd.DataFrame, slow: str, fast: str) -> SpeedUp | None:
    """``slow`` against ``fast`` in one group's records (fwd+bwd where timed, else fwd); None without a common
    length."""
    pass_ = pass_of(df)
    a, b = latencies(df, slow, pass_), latencies(df, fast, pass_)
    common = sorted(set(a) & set(b))
    if not common:
        return None
    ratios = {x: a[x] / b[x] for x in common}
    ta, tb = timings(df, slow, pass_), timings(df, fast, pass_)
    long, short = common[-1], common[0]
    seeds_long = sorted(set(ta[long]) & set(tb[long]))
    faster = ratio_contrast({s: [(1, ta[long][s]), (-1, tb[long][s])] for s in seeds_long})
    growth = None
    if long != short:
        seeds = sorted(set(seeds_long) & set(ta[short]) & set(tb[short]))
        growth = ratio_contrast(
            {s: [(1, ta[long][s]), (-1, tb[long][s]), (-1, ta[short][s]), (1, tb[short][s])] for s in seeds}
        )
    faster_verdict = faster.verdict(FASTER) if faster else Verdict("inconclusive")
    growth_verdict = growth.verdict(1.0) if growth else Verdict("inconclusive")
    verdict = all_hold([faster_verdict, growth_verdict])
    return SpeedUp(slow, fast, pass_, ratios, faster, growth, faster_verdict, growth_verdict, verdict)


def speedup_on_a_gpu(
    claim: Claim,
    ev: Evidence,
    judge: Callable[[pd.DataFrame, str], Judged | None],
    slow: str,
    fast: str,
    why_not_here: str,
    would_test: str,
    missing: str,
    gpu_shown: Callable[[pd.DataFrame], str] | None = None,
) -> Finding:
    """``on_a_gpu`` for a claim that ``slow``'s latency over ``fast``'s exceeds FASTER: not run (``missing``) where
    the records lack the two at a common length; elsewhere this device's ratios are shown beside ``why_not_here``
    (why this device's measurement cannot test it)."""
    here = speedup(ev.df, slow, fast)
    if here is None:
        return not_run(claim, missing)
    ratios = ", ".join(f"{r:.2f}x at {x:g} tokens" for x, r in here.ratios.items())
    return on_a_gpu(
        claim,
        ev,
        judge,
        f"{why_not_here}; measured {slow} / {fast} {ratios}",
        here.estimates(f" on this {device_of(ev.df)}"),
        would_test,
        FASTER,
        missing,
        gpu_shown,
    )
