"""A report leads with its answer: the Verdicts block, then the headline table and the figure, bookkeeping last.

Every suite's report module writes its sections in the order its numbers are computed. ``lead_with_answer``
rewrites the written Markdown so that every report reads the same way:

1. the title and the suite's one-line description;
2. ``## Verdicts``: one bullet per published finding the suite tests (verdict, the number it rests on with its
   interval and seeds, the one confound that matters, and the cause when it does not agree), then the checks
   (claims true by construction) in one line each;
3. the report's first section that is not bookkeeping (its headline table), then its figure;
4. the other sections in their order;
5. bookkeeping: setup, support and correctness checks, cells that are not numbers.

Nothing is dropped or recomputed: the sections are moved whole, and the verdicts are the suite's own
``findings`` (harness/findings.py), the same the index's scoreboard shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from harness import atomic
from harness.findings import Finding
from harness.report_sections import Report, with_note

#: headings (prefixes) of sections that record how a run was made rather than what it found
BOOKKEEPING = (
    "## Setup",
    "## Support",
    "## Checks",
    "## Cells that are not numbers",
    "## Runs that did not finish",
    "## Check before timing",
    "## Correctness against naive",
    "## Kernels",
    "## Calculator",
    "## ATen operators",
)
VERDICTS = "## Verdicts"


def _sections(markdown: str) -> list[list[str]]:
    """The report's lines cut before every level-2 heading (the first part is the title block)."""
    out: list[list[str]] = [[]]
    for line in markdown.splitlines():
        if line.startswith("## "):
            out.append([])
        out[-1].append(line)
    return out


def _is_bookkeeping(section: Sequence[str]) -> bool:
    return bool(section) and section[0].startswith(BOOKKEEPING)


def _has_figure(section: Sequence[str]) -> bool:
    return any(line.lstrip().startswith("![") for line in section)


def _has_table(section: Sequence[str]) -> bool:
    return any(line.startswith("|") for line in section)


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
        "A difference counts when its paired 95% interval over seeds excludes 0 (one seed: when it exceeds a "
        "margin calibrated from the reference seeds' spread of that quantity; a timing: the repeats' noise); otherwise the "
        "verdict is inconclusive, and says how many seeds could decide it. The sections below hold every number a "
        "verdict rests on.",
        "",
    ]
    return lines


def _with_note(section: list[str], note: str) -> list[str]:
    """The section with ``note`` as its last line (once)."""
    if any(note in line for line in section):
        return section
    body = list(section)
    while body and not body[-1].strip():
        body.pop()
    return body + ([f"- {note}"] if body and body[-1].startswith("- ") else ["", note]) + [""]


def lead_with_answer(
    markdown: str, findings: Iterable[Finding], profile: str | None = None, provenance: str | None = None
) -> str:
    """The report reordered: title, Verdicts, headline section, figure, the rest, bookkeeping; ``provenance``, a
    sentence about the group's records (library versions it mixes), ends the Setup section."""
    head, *sections = _sections(markdown)
    if provenance:
        setup = next((i for i, s in enumerate(sections) if s and s[0].startswith("## Setup")), None)
        if setup is None:
            sections.append(["## Setup", ""])
            setup = len(sections) - 1
        sections[setup] = _with_note(sections[setup], provenance)
    sections = [s for s in sections if s and s[0].strip() != VERDICTS]  # a report rebuilt from a rebuilt file
    body = [s for s in sections if not _is_bookkeeping(s)]
    bookkeeping = [s for s in sections if _is_bookkeeping(s)]
    headline = next((s for s in body if _has_table(s)), body[0] if body else None)
    ordered: list[list[str]] = []
    if headline is not None:
        ordered.append(headline)
        if not _has_figure(headline):
            figure = next((s for s in body if s is not headline and _has_figure(s)), None)
            if figure is not None:
                ordered.append(figure)
    ordered += [s for s in body if all(s is not o for o in ordered)]
    ordered += bookkeeping
    lines = list(head)
    if lines and lines[-1].strip():
        lines.append("")
    lines += verdicts_block(findings, profile)
    for section in ordered:
        if lines and lines[-1].strip():
            lines.append("")
        lines += section
    return "\n".join(lines).rstrip("\n") + "\n"


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


def rewrite(path: Path, findings: Iterable[Finding], profile: str | None = None, provenance: str | None = None) -> None:
    """Reorder the report at ``path`` in place (a missing file is left alone); ``profile``: the report's group's."""
    if path.is_file():
        atomic.write_text(path, lead_with_answer(path.read_text(), findings, profile, provenance))


def note_group(path: Path, line: str) -> None:
    """Put ``line`` (which group of records the report covers, and why that one) in the report's title block, on
    its first screen; a missing file is left alone."""
    if not path.is_file():
        return
    parts = _sections(path.read_text())
    head = parts[0]
    while head and not head[-1].strip():
        head.pop()
    parts[0] = head + ["", line, ""]
    atomic.write_text(path, "\n".join(l for part in parts for l in part).rstrip("\n") + "\n")
