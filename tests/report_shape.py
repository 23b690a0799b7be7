"""What every written report must look like to be read in a minute: tables of at most MAX_COLUMNS columns, and no
cell or sentence that says nan or None (a missing value says why, or '-').

``check_reports(folder)`` asserts it of every report a test wrote; the end-to-end tests call it on their reports.
"""

import re
from collections.abc import Iterator
from pathlib import Path

#: the widest table a report may print; wider data goes to a second table (bench/index/scoreboard.py keeps to it too)
MAX_COLUMNS = 8
#: reports this limit does not cover: the support matrix is a cross table, one column per attention kernel, and the
#: index's quality x cost table one column per cost a suite measures
EXEMPT = ("support_matrix.md", "index.md")
_SEPARATOR = re.compile(r"^\|[\s:|-]+\|$")
_CELL = re.compile(r"(?<!\\)\|")
#: a value that was never filled: pandas' NaN, Python's None (the position encoding 'none' is a variant's name)
_MISSING = re.compile(r"\b(?:nan|NaN|None)\b")


def columns(header: str) -> int:
    """The columns a Markdown table's header line makes (an unescaped '|' inside a name makes one more)."""
    return len(_CELL.split(header.strip())) - 2


def tables(markdown: str) -> Iterator[tuple[str, str]]:
    """(the section heading above it, the header line) of every Markdown table."""
    lines, heading = markdown.splitlines(), ""
    for i, line in enumerate(lines):
        if line.startswith("#"):
            heading = line
        if (
            line.startswith("|")
            and i + 1 < len(lines)
            and _SEPARATOR.match(lines[i + 1])
            and not (i and lines[i - 1].startswith("|"))
        ):
            yield heading, line


def problems(markdown: str, name: str = "report") -> list[str]:
    """Every way ``markdown`` breaks the rules, one line each (empty when it keeps them)."""
    out = []
    if name not in EXEMPT:
        out += [
            f"{name}: {columns(h)} columns (at most {MAX_COLUMNS}) in the table under {where!r}: {h[:120]}"
            for where, h in tables(markdown)
            if columns(h) > MAX_COLUMNS
        ]
    out += [
        f"{name}: {m.group(0)!r} in line {n}: {line[:160]}"
        for n, line in enumerate(markdown.splitlines(), 1)
        for m in [_MISSING.search(line)]
        if m
    ]
    return out


def check_reports(folder: Path) -> None:
    """Assert that every report under ``folder`` (its *.md files) keeps the rules."""
    found = [p for p in sorted(Path(folder).glob("*.md"))]
    assert found, f"no report under {folder}"
    bad = [line for p in found for line in problems(p.read_text(), p.name)]
    assert not bad, "\n".join(bad)
