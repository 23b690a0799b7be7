"""Write a report, a figure or the README whole or not at all: to a temporary file beside it, then renamed over it.

Two ``bench report``s on one folder at once otherwise interleave their writes and leave a truncated report; a
rename within one folder is atomic on POSIX, so a reader sees the old file or the new one, never a part.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any


def _temporary(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    return Path(name)


def write_text(path: Path, text: str) -> None:
    """``path.write_text(text)``, atomically."""
    path = Path(path)
    tmp = _temporary(path)
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def save_figure(fig: Any, path: Path, **options: Any) -> None:
    """``fig.savefig(path, **options)``, atomically (the format from ``path``'s suffix, as savefig would take it)."""
    path = Path(path)
    tmp = _temporary(path)
    try:
        fig.savefig(tmp, format=path.suffix.lstrip(".") or None, **options)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
