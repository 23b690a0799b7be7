"""Reader of SWORD zText Bible modules (CrossWire's compressed, verse-indexed format) as plain text.

A module holds one folder with three files per testament (``ot``, ``nt``):
- ``.bzs``: 12-byte little-endian records (offset, compressed size, uncompressed size) of each block;
- ``.bzv``: 10-byte records (block, offset, size as uint32, uint32, uint16), one per verse slot;
- ``.bzz``: the zlib-compressed blocks one after another.
Slots follow the module's versification: slot 0 is empty, slot 1 the testament heading, then for each
book a heading slot and for each chapter a heading slot followed by one slot per verse. Book and chapter
headings are recognised by their OSIS markers (``<div type="book" sID=...>``, ``<chapter sID="Gen.1">``),
so the versification is read from the module itself. Verse text is OSIS: notes and section headings
are dropped, a psalm's canonical title is kept (the Spanish text has it inside verse 1), every other tag
is stripped and whitespace collapsed.
"""

from __future__ import annotations

import html
import os
import re
import struct
import zlib
from pathlib import Path

VerseKey = tuple[str, int, int]  # (OSIS book, chapter, verse)

#: where Debian's sword-text-* packages install modules; SWORD_PATH overrides it, as for SWORD itself
DEFAULT_ROOT = "/usr/share/sword"
ZTEXT = Path("modules") / "texts" / "ztext"
TESTAMENTS = ("ot", "nt")

_BOOK = re.compile(r'<div\b[^>]*\btype="book"[^>]*\bsID=|<div\b[^>]*\bsID="[^"]*"[^>]*\btype="book"')
_CHAPTER = re.compile(r'<chapter\b[^>]*\bsID="([^".]+)\.(\d+)"')
#: notes, and titles that are not canonical text (section headings); a psalm's canonical title stays
_DROPPED = re.compile(r'<note\b[^>]*?(?<!/)>.*?</note>|<title\b(?![^>]*canonical="true")[^>]*?(?<!/)>.*?</title>', re.S)
_MILESTONE = re.compile(r"<[^>]*/>")  # self-closing: line, paragraph and division markers separate words
_TAG = re.compile(r"<[^>]*>")  # inline elements (<w>, <transChange>, ...) wrap words


def sword_root() -> Path:
    return Path(os.environ.get("SWORD_PATH") or DEFAULT_ROOT)


def module_dir(name: str, root: Path | None = None) -> Path:
    """The folder of zText module ``name`` (e.g. engKJV2006eb) under a SWORD library root."""
    return (root or sword_root()) / ZTEXT / name


def module_missing(folder: Path) -> str | None:
    """Which of a module's files are missing, or None when it is complete."""
    missing = [
        f"{t}.{ext}" for t in TESTAMENTS for ext in ("bzs", "bzv", "bzz") if not (folder / f"{t}.{ext}").is_file()
    ]
    return f"{folder} lacks {', '.join(missing)}" if missing else None


def read_slots(folder: Path, testament: str) -> list[str]:
    """The raw (OSIS) text of every verse slot of one testament."""
    bzs = (folder / f"{testament}.bzs").read_bytes()
    bzv = (folder / f"{testament}.bzv").read_bytes()
    bzz = (folder / f"{testament}.bzz").read_bytes()
    blocks = [struct.unpack_from("<III", bzs, i) for i in range(0, len(bzs) - 11, 12)]
    cache: dict[int, bytes] = {}
    slots = []
    for i in range(0, len(bzv) - 9, 10):
        block, offset, size = struct.unpack_from("<IIH", bzv, i)
        if size == 0:
            slots.append("")
            continue
        if block not in cache:
            start, compressed, _ = blocks[block]
            cache[block] = zlib.decompress(bzz[start : start + compressed])
        slots.append(cache[block][offset : offset + size].decode("utf-8", errors="replace"))
    return slots


def osis_to_text(osis: str) -> str:
    """Plain verse text: notes and headings dropped, tags stripped, entities decoded, spaces collapsed."""
    text = _TAG.sub("", _MILESTONE.sub(" ", _DROPPED.sub(" ", osis)))
    return " ".join(html.unescape(text).replace("¶", " ").split())


def read_verses(folder: Path) -> dict[VerseKey, str]:
    """Every verse of a module as plain text, keyed by (book, chapter, verse)."""
    verses: dict[VerseKey, str] = {}
    for testament in TESTAMENTS:
        book, chapter, verse = None, 0, 0
        for raw in read_slots(folder, testament)[2:]:  # slot 0: empty, slot 1: testament heading
            found = _CHAPTER.search(raw)
            if found:
                book, chapter, verse = found.group(1), int(found.group(2)), 0
            elif _BOOK.search(raw):
                continue  # a book heading slot
            elif book is not None:
                verse += 1
                verses[(book, chapter, verse)] = osis_to_text(raw)
    return verses
