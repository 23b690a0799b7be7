"""A corpus by the name ``data=`` gives: the character-level texts (``pydoc``, ``bible``, a text file) and the parallel
corpora for translation (``numbers_en_fr``, ``bible_en_es``, ``SOURCE.txt,TARGET.txt``), each read once per process.

The loaders below it (text.py, english_bible.py, parallel.py, bible.py, numbers.py) define what a corpus is; this
module only picks one by name, so none of them imports another to dispatch.
"""

from __future__ import annotations

import functools
from pathlib import Path

from suites.common.data.parallel import BUILT_IN, DEFAULT, ParallelCorpus, load_files
from suites.common.data.text import BIBLE, DEFAULT_CORPUS, CorpusError, TextCorpus, check_readable_size, pydoc_text


def load_corpus(source: str = DEFAULT_CORPUS) -> TextCorpus:
    """``'pydoc'``, ``'bible'`` or the path of a UTF-8 text file.

    A plan asks for the corpus once per variant (its vocabulary sizes the model) and each job once more,
    so the text and its checksum are read and hashed once per process; a file edited since is read anew.
    """
    if source in (DEFAULT_CORPUS, BIBLE):
        return _read_corpus(source, 0)
    path = Path(source).expanduser()
    if not path.is_file():
        raise CorpusError(f"data='{source}' is neither 'pydoc', 'bible' nor a readable text file.")
    check_readable_size("data", path)
    return _read_corpus(str(path), path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _read_corpus(source: str, mtime_ns: int) -> TextCorpus:
    if source == DEFAULT_CORPUS:
        return TextCorpus("pydoc_data.topics", pydoc_text())
    if source == BIBLE:
        from suites.common.data.english_bible import load_english_bible

        return load_english_bible()
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"data='{source}' is not UTF-8 text ({exc.reason} at byte {exc.start}).") from None
    return TextCorpus(path.name, text)


def load_parallel(source: str = DEFAULT) -> ParallelCorpus:
    """A built-in corpus by name, or ``SOURCE,TARGET`` file paths; bad input raises CorpusError."""
    from suites.common.data.sword import sword_root

    return _load(source, str(sword_root()) if source == "bible_en_es" else "")


@functools.lru_cache(maxsize=4)
def _load(source: str, sword_root: str) -> ParallelCorpus:
    """``load_parallel``, remembered per process (the SWORD library root is part of the key)."""
    if source == "numbers_en_fr":
        from suites.common.data.numbers import MAX_WORDS, generate

        train, valid, test = generate()
        return ParallelCorpus(
            "numbers_en_fr",
            "en",
            "fr",
            tuple(train),
            tuple(valid),
            tuple(test),
            f"English number phrases (1-{MAX_WORDS} words) to French, generated with num2words",
        )
    if source == "bible_en_es":
        from suites.common.data.bible import load_bible

        return load_bible()
    if "," in source:
        return load_files(*source.split(",", 1))
    raise CorpusError(
        f"data='{source}' is not a translation corpus; choose {' or '.join(BUILT_IN)}, or give two parallel "
        f"text files as data=SOURCE.txt,TARGET.txt."
    )
