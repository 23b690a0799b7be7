"""A suite's report as typed sections: what ``write_report`` returns and ``bench report`` lays out once.

A report module builds its title block and its ``## `` sections, each declaring what it is: the **headline** (the
table that answers the suite's question), a **figure**, a **body** section, or **bookkeeping** (how the run was
made: setup, support, correctness checks, cells that are not numbers). The layout (bench/report/layout.py) renders
them in one fixed order (title, the Verdicts block of the suite's findings, headline, figure, body, bookkeeping),
each kind in the order the report wrote it, so every report reads the same way and none is parsed back from its
Markdown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: what a section is, in the order the layout renders the kinds
HEADLINE, FIGURE, BODY, BOOKKEEPING = KINDS = ("headline", "figure", "body", "bookkeeping")
#: the bookkeeping section a group's provenance note (library versions it mixes) ends
SETUP = "Setup"


@dataclass(frozen=True)
class Section:
    """One ``## heading`` of a report: its body lines (the heading line is rendered from ``heading``) and its kind."""

    heading: str
    lines: tuple[str, ...]
    kind: str = BODY

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"section {self.heading!r}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.heading.startswith("#"):
            raise ValueError(f"section {self.heading!r}: give the heading without its '## '")
        object.__setattr__(self, "lines", tuple(self.lines))

    def markdown(self) -> list[str]:
        return [f"## {self.heading}", *self.lines]

    def __iter__(self):
        """Its Markdown lines, heading first (what a test or a caller reading the text joins)."""
        return iter(self.markdown())


def section(heading: str, lines: Iterable[str], kind: str = BODY) -> Section:
    """A section of ``kind`` whose body starts with a blank line after its heading, as every report writes one."""
    return Section(heading, ("", *lines), kind)


@dataclass
class Report:
    """A suite's report of one group of records: its title block, its sections and the files it wrote (figures)."""

    title: list[str]
    sections: list[Section] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def add(self, *sections: Section | None) -> Report:
        """Append sections (a None, a section a report leaves out, is skipped); returns the report."""
        self.sections += [s for s in sections if s is not None]
        return self

    def of_kind(self, kind: str) -> list[Section]:
        return [s for s in self.sections if s.kind == kind]

    def ordered(self) -> list[Section]:
        """The sections in the layout's order: headline, figure, body, bookkeeping; each kind as written."""
        return [s for kind in KINDS for s in self.of_kind(kind)]


def with_note(sections: Sequence[Section], note: str) -> list[Section]:
    """``sections`` with ``note`` as the last line of the Setup section (one added at the end where there is none;
    a note already there is not repeated)."""
    out = list(sections)
    at = next((i for i, s in enumerate(out) if s.heading == SETUP), None)
    if at is None:
        out.append(Section(SETUP, ("",), BOOKKEEPING))
        at = len(out) - 1
    setup = out[at]
    if any(note in line for line in setup.lines):
        return out
    body = list(setup.lines)
    while body and not body[-1].strip():
        body.pop()
    body += ([f"- {note}"] if body and body[-1].startswith("- ") else ["", note]) + [""]
    out[at] = Section(setup.heading, tuple(body), setup.kind)
    return out
