"""Parallel corpora for translation: fixed train/valid/test splits of (source, target) sentence pairs.

``data=`` names one of:
- ``numbers_en_fr``: English number phrases to French, generated with num2words (suites/common/data/numbers.py);
- ``bible_en_es``: the King James Bible (English) to the Reina-Valera 1909 (Spanish), aligned verse by
  verse and split by book (suites/common/data/bible.py); needs Debian's sword-text-kjv and sword-text-sparv;
- ``SOURCE.txt,TARGET.txt``: two UTF-8 files of one sentence per line, line i of one translating line i
  of the other. Pairs are shuffled with a fixed seed; 10% (at most 1000) are the test split, 5% (at
  most 500) the validation split, the rest train.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

from suites.common.data.text import CorpusError, check_readable_size

Pair = tuple[str, str]
BUILT_IN = ("numbers_en_fr", "bible_en_es")
DEFAULT = "numbers_en_fr"
#: the fewest pairs a user corpus needs for three non-empty splits
MIN_USER_PAIRS = 20


@dataclass(frozen=True)
class ParallelCorpus:
    """Named splits of sentence pairs, with the languages and a description for the report."""

    name: str
    source_lang: str
    target_lang: str
    train: tuple[Pair, ...]
    valid: tuple[Pair, ...]
    test: tuple[Pair, ...]
    description: str = ""

    @functools.cached_property
    def checksum(self) -> str:
        """SHA-256 of every split's text."""
        payload = json.dumps([self.train, self.valid, self.test], ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _lines(path_text: str) -> list[str]:
    path = Path(path_text.strip()).expanduser()
    if not path.is_file():
        raise CorpusError(f"data file '{path_text}' is not a readable file; give data=SOURCE.txt,TARGET.txt.")
    check_readable_size("data", path)
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise CorpusError(f"data file '{path_text}' is not UTF-8 text ({exc.reason} at byte {exc.start}).") from None


def load_files(source_path: str, target_path: str) -> ParallelCorpus:
    """Two files of one sentence per line; empty lines on either side drop the pair."""
    src, tgt = _lines(source_path), _lines(target_path)
    if len(src) != len(tgt):
        raise CorpusError(
            f"data files are not parallel: {source_path} has {len(src)} lines, {target_path} has {len(tgt)}."
        )
    pairs = [(" ".join(s.split()), " ".join(t.split())) for s, t in zip(src, tgt) if s.strip() and t.strip()]
    if len(pairs) < MIN_USER_PAIRS:
        raise CorpusError(
            f"data files hold {len(pairs)} non-empty sentence pairs; at least {MIN_USER_PAIRS} are needed."
        )
    random.Random(0).shuffle(pairs)
    n_test, n_valid = min(1000, max(1, len(pairs) // 10)), min(500, max(1, len(pairs) // 20))
    test, valid, train = pairs[:n_test], pairs[n_test : n_test + n_valid], pairs[n_test + n_valid :]
    name = f"{Path(source_path).name},{Path(target_path).name}"
    return ParallelCorpus(
        name,
        "src",
        "tgt",
        tuple(train),
        tuple(valid),
        tuple(test),
        "user sentence pairs, shuffled with seed 0 and split 85/5/10 (test at most 1000, validation at most 500)",
    )
