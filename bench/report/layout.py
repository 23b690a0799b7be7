"""A report leads with its answer: the Verdicts block, then the headline table and the figure, bookkeeping last.

A suite's ``write_report`` returns its title block and typed sections (harness/report_sections.py) in the order its
numbers are computed; ``render`` lays every report out the same way, once:

1. the title and the suite's one-line description, then the first-screen notes (which group of records the report
   covers, whether its timings were taken under load);
2. ``## Verdicts``: one bullet per published finding the suite tests (verdict, the number it rests on with its
   interval and seeds, the one confound that matters, and the cause when it does not agree), then the checks
   (claims true by construction) in one line each;
3. the headline section, then the figure;
4. the other sections in their order;
5. bookkeeping: setup, support and correctness checks, cells that are not numbers.

Nothing is dropped or recomputed: the sections are placed whole, and the verdicts are the suite's own findings
(harness/claims.py), the same the index's scoreboard shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from harness.findings import Finding
from harness.report_sections import Report, with_note

VERDICTS = "## Verdicts"


def number(found: Finding) -> str:
    """'ALiBi ppl(8L)/ppl(L) 0.973 [0.973, 0.973], 3 seeds': the estimate the verdict rests on."""
    head = found.headline
    if head is None:
        return ""
    interval = head.interval_text()
    text = head.text() + (f" {interval}" if interval.startswith("[") or interval.startswith("(") else "")
    seeds = found.seeds or head.seeds
    if not seeds or " seeds)" in text or " seed)" in text:  # a count's text gives its range over the seeds itself
        return text
    return text + f", {seeds} {found.pairs}" + ("" if seeds == 1 else "s")


def bullet(found: Finding, profile: str | None = None) -> str:
    """One Verdicts bullet: verdict, finding and source, the number, the cause when not agreeing, the confound;
    a claim the records cannot test gives the command that runs it (at ``profile``, the report's)."""
    from bench.index.fill import run_command

    claim = found.claim
    line = f"- **{found.verdict}**: {claim.name}; {claim.source}."
    if found.verdict == "not run":
        command = found.command or run_command(claim.suite, claim.variants, profile)
        return line + f" Not run: `{command}` runs it."
    measured = number(found)
    if measured:
        line += f" Measured: {measured}."
    if found.note:  # a verdict resting on one seed: indicative only
        line += f" {found.note}."
    if found.cause and found.verdict != "agrees":
        line += f" Why: {with_figures(found.cause, claim.suite).rstrip('.')}."
    if claim.confound:
        line += f" Confound: {with_figures(claim.confound, claim.suite).rstrip('.')}."
    return line


def with_figures(text: str, suite: str) -> str:
    """``text`` with each probe figure it cites computed from the probe's records (harness/probes.py)."""
    from harness.contract import suites
    from harness.probes import fill

    return fill(text, suites.get(suite).probe_figures if suite in suites else {})


def verdicts_block(findings: Iterable[Finding], profile: str | None = None) -> list[str]:
    """The ``## Verdicts`` section: findings first, then checks (they test the code, not the literature)."""
    findings = list(findings)
    published = [f for f in findings if f.claim.kind == "finding"]
    checks = [f for f in findings if f.claim.kind == "check"]
    if not findings:
        return []
    lines = [VERDICTS, ""]
    lines += [bullet(f, profile) for f in published]
    if checks:
        lines += ["", "Checks (true by construction or against this project's own earlier measurement):", ""]
        lines += [bullet(f, profile) for f in checks]
    lines += [
        "",
        "A difference counts when its paired 95% interval over seeds excludes 0 (one seed: beyond the 95% prediction "
        "bound of one seed of that quantity from the reference seeds' spread; a timing: a one-sided test on its "
        "timing repeats); otherwise the verdict is inconclusive, and its cause says how many seeds would detect the "
        "claim's smallest effect of interest. The sections below hold every number a verdict rests on.",
        "",
    ]
    return lines


def render(
    report: Report,
    findings: Iterable[Finding],
    profile: str | None = None,
    provenance: str | None = None,
    notes: Sequence[str] = (),
) -> str:
    """The report's Markdown: title block (then ``notes``, first-screen lines such as the group it covers), the
    Verdicts block of ``findings``, then its sections by kind (headline, figure, body, bookkeeping; each kind in
    the order written); ``provenance``, a sentence about the group's records, ends the Setup section."""
    sections = with_note(report.sections, provenance) if provenance else list(report.sections)
    lines = list(report.title)
    if notes:
        while lines and not lines[-1].strip():
            lines.pop()
        for note in notes:
            lines += ["", note]
        lines.append("")
    elif lines and lines[-1].strip():
        lines.append("")
    lines += verdicts_block(findings, profile)
    for part in Report(report.title, sections).ordered():
        if lines and lines[-1].strip():
            lines.append("")
        lines += part.markdown()
    return "\n".join(lines).rstrip("\n") + "\n"
