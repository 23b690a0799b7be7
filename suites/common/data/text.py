"""Character-level text corpora: the standard library's pydoc prose, the World English Bible, or a text file.

``pydoc_data.topics`` ships with CPython: about 465 KB of English prose from the Python reference. It
differs between Python versions, so every record carries the corpus checksum. ``bible`` (4.6 MB of
training text, suites/common/data/english_bible.py) is large enough that a long run does not memorise it.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

import torch

from harness.errors import UserError

DEFAULT_CORPUS = "pydoc"
BIBLE = "bible"


class CorpusError(UserError, ValueError):
    """A corpus that cannot be read or is too small for the requested lengths (a mistake the user can fix)."""


@dataclass(frozen=True)
class TextCorpus:
    """A named text and its SHA-256; a corpus with a fixed held-out text (whole books) carries it apart."""

    name: str
    text: str
    heldout: str | None = None
    #: how the held-out text was chosen, when the corpus fixes it
    split: str = ""

    @functools.cached_property
    def checksum(self) -> str:
        digest = hashlib.sha256(self.text.encode("utf-8"))
        if self.heldout is not None:
            digest.update(b"\0" + self.heldout.encode("utf-8"))
        return digest.hexdigest()

    def train_heldout(self, heldout_fraction: float) -> tuple[str, str]:
        """(train, held-out): the corpus's own split, else the final ``heldout_fraction`` of the text."""
        if self.heldout is not None:
            return self.text, self.heldout
        return split_text(self.text, heldout_fraction)

    def split_description(self, heldout_fraction: float) -> str:
        return self.split or f"last {heldout_fraction:.0%} held out"


def pydoc_text() -> str:
    """Every topic of ``pydoc_data.topics`` in sorted key order, separated by blank lines."""
    from pydoc_data.topics import topics

    return "\n\n".join(topics[key] for key in sorted(topics))


#: bytes of memory a corpus takes per byte of its file once read: the text (up to 4 bytes a character), its
#: characters' ids (int64) and the split copies made from them
BYTES_PER_FILE_BYTE = 16


def check_readable_size(key: str, path: Path) -> None:
    """A CorpusError, before the file is read, when reading ``path`` whole would not fit this machine's memory."""
    from harness.footprint import human_bytes, memory_bytes

    memory, size = memory_bytes(), path.stat().st_size
    if memory and size * BYTES_PER_FILE_BYTE > memory:
        raise CorpusError(
            f"{key}='{path}' is {human_bytes(size)}; bench reads a corpus whole into memory (about "
            f"{BYTES_PER_FILE_BYTE} bytes per byte of text, with its ids), so at most "
            f"{human_bytes(memory // BYTES_PER_FILE_BYTE)} fit this machine's {human_bytes(memory)}; "
            f"give a smaller file."
        )


@dataclass(frozen=True)
class CharVocab:
    """Characters of the training split; id 0 stands for any character unseen in training."""

    chars: str

    @classmethod
    def from_text(cls, text: str) -> CharVocab:
        return cls("".join(sorted(set(text))))

    @property
    def size(self) -> int:
        return len(self.chars) + 1

    def encode(self, text: str) -> torch.Tensor:
        index: dict[str, int] = {c: i + 1 for i, c in enumerate(self.chars)}
        return torch.tensor([index.get(c, 0) for c in text], dtype=torch.long)

    def decode(self, ids: torch.Tensor) -> str:
        return "".join(self.chars[i - 1] if i > 0 else "?" for i in ids.tolist())


def split_text(text: str, heldout_fraction: float) -> tuple[str, str]:
    """(train, held-out): the held-out split is the final ``heldout_fraction`` of the text."""
    if not 0 < heldout_fraction < 1:
        raise CorpusError(f"heldout_fraction must be between 0 and 1, got {heldout_fraction}")
    cut = int(len(text) * (1 - heldout_fraction))
    return text[:cut], text[cut:]
