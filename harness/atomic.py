"""Write a report, a figure or the README whole or not at all: to a temporary file beside it, then renamed over it.

Two ``bench report``s on one folder at once otherwise interleave their writes and leave a truncated report; a
rename within one folder is atomic on POSIX, so a reader sees the old file or the new one, never a part.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def _temporary(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    return Path(name)


class OutputUnwritable(OSError):
    """A report, figure or README that could not be written (a full disk, a read-only folder): the command line
    says so in one sentence and exits 1; the records it was made from are untouched."""

    def __str__(self) -> str:
        return (
            f"could not write {self.filename} ({self.strerror}); no record was touched, and the previous "
            f"file, if any, is whole. Free space or give another reports_dir, then rerun `bench report`."
        )


@contextmanager
def _named(path: Path) -> Iterator[None]:
    """Any OSError of writing ``path`` as an OutputUnwritable naming ``path`` (not its temporary file)."""
    try:
        yield
    except OutputUnwritable:
        raise
    except OSError as exc:
        raise OutputUnwritable(exc.errno, exc.strerror or type(exc).__name__, str(path)) from None


def write_text(path: Path, text: str) -> None:
    """``path.write_text(text)``, atomically."""
    path = Path(path)
    with _named(path):
        tmp = _temporary(path)
        try:
            tmp.write_text(text)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)


def save_figure(fig: Any, path: Path, **options: Any) -> None:
    """``fig.savefig(path, **options)``, atomically (the format from ``path``'s suffix, as savefig would take it)."""
    path = Path(path)
    with _named(path):
        tmp = _temporary(path)
        try:
            fig.savefig(tmp, format=path.suffix.lstrip(".") or None, **options)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
