"""The King James Bible (English) and the Reina-Valera 1909 (Spanish), aligned verse by verse.

Both SWORD modules (Debian's sword-text-kjv: engKJV2006eb; sword-text-sparv: spaRV1909eb) follow the KJV
versification, so verse (book, chapter, verse) of one translates the same verse of the other: about
31,000 pairs of public-domain text, a mean of ~25 English words, up to 90. A verse empty in either
language is dropped. The splits are by book, so no chapter is split between training and test: the test
books and validation books below are held out whole.
"""

from __future__ import annotations

from suites.common.data.parallel import ParallelCorpus
from suites.common.data.sword import module_dir, module_missing, read_verses, sword_root
from suites.common.data.text import CorpusError

ENGLISH, SPANISH = "engKJV2006eb", "spaRV1909eb"
PACKAGES = "sword-text-kjv sword-text-sparv"
#: whole books held out (OSIS names): narrative, law, gospel and letters, Old and New Testament
TEST_BOOKS = ("Ruth", "Esth", "Dan", "Mark", "Gal", "Jas")
VALID_BOOKS = ("Joel", "Jonah", "Titus", "Phlm")


def load_bible() -> ParallelCorpus:
    """The aligned corpus; missing modules raise one CorpusError that says how to install them."""
    root = sword_root()
    folders = [module_dir(name, root) for name in (ENGLISH, SPANISH)]
    if any(map(module_missing, folders)):
        raise CorpusError(
            f"data=bible_en_es needs the SWORD modules {ENGLISH} and {SPANISH}, not found under {folders[0].parent}; "
            f"install them with `apt-get install {PACKAGES}` (or set SWORD_PATH to a SWORD library)."
        )
    english, spanish = (read_verses(folder) for folder in folders)
    splits = {"train": [], "valid": [], "test": []}
    for key in sorted(english.keys() & spanish.keys(), key=_canonical_order(english)):
        en, es = english[key], spanish[key]
        if not en or not es:
            continue
        split = "test" if key[0] in TEST_BOOKS else "valid" if key[0] in VALID_BOOKS else "train"
        splits[split].append((en, es))
    if not splits["train"] or not splits["test"]:
        raise CorpusError(
            f"The SWORD modules under {root} hold no aligned verses of the training or test books; reinstall {PACKAGES}."
        )
    return ParallelCorpus(
        "bible_en_es",
        "en",
        "es",
        tuple(splits["train"]),
        tuple(splits["valid"]),
        tuple(splits["test"]),
        f"King James Bible ({ENGLISH}) to Reina-Valera 1909 ({SPANISH}), aligned by verse; test books "
        f"{', '.join(TEST_BOOKS)}; validation books {', '.join(VALID_BOOKS)}",
    )


def _canonical_order(verses):
    """Sort key: the order in which the module lists its verses (books in canonical order)."""
    rank = {key: i for i, key in enumerate(verses)}
    return lambda key: rank[key]
