"""The index's findings scoreboard: one row per published finding a suite tests, with this benchmark's verdict.

Every verdict comes from the suite's own report module (``Suite.findings``: harness/findings.py), computed
on the group of records its report covers; a claim that group does not test is taken from the newest other group of
the suite that does (translation's Bible run beside its bottleneck run), its row naming that group's profile and
corpus; a claim no record tests says "not run" and the command that would run what it needs. A row's measurement is the one number the verdict rests on (``Finding.headline``,
chosen by the suite's verdicts) with its 95% interval and seeds; every other estimate stays in the suite's report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from bench.index.fill import run_command
from bench.report.layout import with_figures
from harness import pvalues
from harness.findings import Finding, not_run

#: at most 8 columns (the report tables' limit): the seeds share the interval's cell, which they qualify, and the
#: published figure shares the source's
COLUMNS = (
    "finding",
    "source: published",
    "our measurement",
    "95% interval, seeds",
    "profile, corpus, device",
    "verdict",
    "BH q",
    "cause",
)
INTERVAL = "95% interval, seeds"
#: the column of each row's Benjamini-Hochberg q-value over the board's family of tests (``family``)
Q = "BH q"
#: the column (not shown) holding the two-sided p-value of the test behind a finding's verdict (NaN: no test)
P = "p"
#: the false discovery rate the board keeps a decided verdict at
FDR = 0.05
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
        "source: published": f"{claim.source}: {claim.published}",
        "our measurement": measured,
        INTERVAL: interval,
        "profile, corpus, device": found.where or setting(frame),
        "verdict": found.verdict,
        Q: "-",
        "cause": cause,
        KIND: claim.kind,
        CLAIM: claim.key,
        P: found.p if found.p is not None and claim.kind == "finding" else math.nan,
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
    frame = pd.DataFrame(rows, columns=list(COLUMNS) + [KIND, CLAIM, FROM, P])
    q = pvalues.bh_q(list(frame[P]))
    frame[Q] = [q_cell(v, verdict) for v, verdict in zip(q, frame.verdict)]
    return frame.apply(lambda col: col.map(_cell) if col.name != P else col)


def q_cell(q: float, verdict: str) -> str:
    """'0.012'; a decided verdict the board's false-discovery control does not keep says so; '-' outside the family."""
    if math.isnan(q):
        return "-"
    kept = q <= FDR or verdict not in ("agrees", "disagrees")
    return f"{q:.2g}" if kept else f"{q:.2g}: not kept at q <= {FDR:g}"


def family(board: pd.DataFrame) -> str:
    """The board's multiplicity in one sentence (``family_sentence``) from its hidden p and visible q columns."""
    return family_sentence(list(board[P]), list(board.verdict))


def family_sentence(p: Sequence[float], verdicts: Sequence[str], marked_in: str = f"column {Q}") -> str:
    """How many findings rest on a test at 5%, the false verdicts expected among them if no effect were real, and
    how many decided verdicts Benjamini-Hochberg keeps at FDR."""
    q = pvalues.bh_q(list(p))
    tested = [(qv, v) for qv, v in zip(q, verdicts) if not math.isnan(qv)]
    decided = [qv for qv, v in tested if v in ("agrees", "disagrees")]
    kept = sum(qv <= FDR for qv in decided)
    return (
        f"{len(tested)} findings rest on a test at 5% (a p-value stands behind each); if no effect were real, about "
        f"{0.05 * len(tested):.2g} false verdicts would be expected among them. Benjamini-Hochberg at a false "
        f"discovery rate of {FDR:g} keeps {kept} of the {len(decided)} decided verdicts ({marked_in}; a verdict it "
        "does not keep is marked)."
    )
