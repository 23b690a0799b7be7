"""The index's findings scoreboard: one row per published finding a suite tests, with this benchmark's verdict.

Every verdict comes from the suite's own report module (``Suite.findings``: harness/findings.py), computed
on the group of records its report covers; a claim that group does not test is taken from the newest other group of
the suite that does (translation's Bible run beside its bottleneck run), its row naming that group's profile and
corpus; a claim no record tests says "not run" and the command that would run what it needs. A row's measurement is the one number the verdict rests on (``Finding.headline``,
chosen by the suite's verdicts) with its 95% interval and seeds; every other estimate stays in the suite's report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from bench.index.fill import run_command
from bench.report.layout import with_figures
from harness.findings import Finding, not_run

#: at most 8 columns (the report tables' limit): the seeds share the interval's cell, which they qualify
COLUMNS = (
    "finding",
    "source",
    "published",
    "our measurement",
    "95% interval, seeds",
    "profile, corpus, device",
    "verdict",
    "cause",
)
INTERVAL = "95% interval, seeds"
#: the column that says whether a row is a finding or a check (harness/findings.py KINDS); the index splits on it
KIND = "kind"
#: the column holding the row's claim key (not shown): the index's answers pick their findings by it
CLAIM = "claim"
#: the column (not shown) holding, for a row taken from another group of its suite than the index's, that group's
#: place in the suite's list of other groups; empty for the index's own group
FROM = "from group"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def setting(frame: pd.DataFrame | None) -> str:
    """'standard, World English Bible (engWEB2015eb), cpu' of a group of records."""
    if frame is None or not len(frame):
        return "-"
    ok = frame[frame.status == "ok"]
    first = (ok if len(ok) else frame).iloc[0]
    corpus = first.get("corpus")
    return f"{first.profile}, {corpus if isinstance(corpus, str) and corpus else 'no corpus'}, {first.device}"


def row(
    found: Finding, frame: pd.DataFrame | None, profile: str | None, results_dir: str | None, report: str | None = None
) -> dict:
    """One scoreboard row; a finding that was not run gives the command that would run its claim."""
    claim = found.claim
    name = f"[{claim.name}]({report})" if report else claim.name
    if found.verdict == "not run":
        command = found.command or run_command(claim.suite, claim.variants, profile, results_dir)
        measured = f"not run: `{command}`"
        interval = "-"
    else:
        measured, interval = measurement(found, frame)
    cause = with_figures(found.cause, claim.suite) if found.verdict != "agrees" else ""
    if found.along:  # a claim judged along a ladder: its verdict at every point, whatever the verdict
        cause = f"{cause.rstrip()} {found.along}".strip()
    return {
        "finding": name,
        "source": claim.source,
        "published": claim.published,
        "our measurement": measured,
        INTERVAL: interval,
        "profile, corpus, device": setting(frame),
        "verdict": found.verdict,
        "cause": cause,
        KIND: claim.kind,
        CLAIM: claim.key,
    }


def measurement(found: Finding, frame: pd.DataFrame | None = None) -> tuple[str, str]:
    """(the one number the verdict rests on, its 95% interval and seeds): ``Finding.headline``; the other estimates
    stay in the suite's report. A verdict without numbers (no verdict: a model did not learn) says why instead."""
    n = found.seeds or (int(frame.seed.nunique()) if frame is not None and "seed" in frame else 0)
    seeds = f"{n} {found.pairs}" + ("" if n == 1 else "s") if n else ""
    head = found.headline
    if head is None:  # the cause (or the report) says why there is no number
        return "no number: see the report", seeds or "-"
    interval = head.interval_text()
    if interval.startswith("["):
        return head.text(), f"{interval}, {seeds}" if seeds else interval
    # no interval: one seed, or an exact count or formula; say which once (not "none (1 seed), 1 seed")
    return head.text(), interval if interval != "none" or not seeds else f"none, {seeds}"


def _tested(suite, frame: pd.DataFrame | None) -> dict[str, Finding]:
    """The suite's findings on ``frame`` that were run, by claim key."""
    if frame is None or not len(frame):
        return {}
    return {f.claim.key: f for f in suite.findings(frame) if f.verdict != "not run"}


def scoreboard(
    groups: Mapping[str, pd.DataFrame],
    profile_for: Callable[[str], str | None] = lambda s: None,
    results_dir: str | None = None,
    reports: Mapping[str, str] = {},
    others: Mapping[str, Sequence[pd.DataFrame]] = {},
) -> pd.DataFrame:
    """The scoreboard over every registered suite with claims; ``groups`` maps a suite to the records it reports.

    ``reports`` maps a suite to its report's relative path (the finding's name links there); ``others`` maps a suite
    to its other groups' records, newest first, from which a claim its reported group does not test is taken (that
    row links to no report: the suite's report covers the other group).
    """
    from harness.contract import suites

    rows = []
    for name in suites.names():
        suite = suites.get(name)
        frame = groups.get(name)
        found = _tested(suite, frame)
        spare = [_tested(suite, other) for other in others.get(name, ())] if len(found) < len(suite.claims) else []
        for claim in suite.claims:
            finding, source, place = found.get(claim.key), frame, ""
            report = reports.get(name) if frame is not None else None
            if finding is None:
                place = next((i for i, tested in enumerate(spare) if claim.key in tested), "")
                if place != "":
                    finding, source, report = spare[place][claim.key], others[name][place], None
            if finding is None:
                finding, source = not_run(claim), None
            rows.append({**row(finding, source, profile_for(name), results_dir, report), FROM: str(place)})
    frame = pd.DataFrame(rows, columns=list(COLUMNS) + [KIND, CLAIM, FROM])
    return frame.apply(lambda col: col.map(_cell))
