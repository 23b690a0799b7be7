"""The World English Bible as one English prose corpus for character LMs, split by book.

Debian's ``sword-text-web`` (SWORD module engWEB2015eb): a public-domain modern English translation, with
the deuterocanonical books about 4.8 MB of text, 85 distinct characters. Verses are joined by newlines in
the module's canonical order. The held-out split is whole books (those the translation suite holds out of
the King James Bible), so no chapter is split between training and evaluation: 4.6 MB of training text.
"""

from __future__ import annotations

from suites.common.data.sword import module_dir, module_missing, read_verses, sword_root
from suites.common.data.text import CorpusError, TextCorpus

MODULE, PACKAGE = "engWEB2015eb", "sword-text-web"
#: whole books held out (OSIS names), about 4.8% of the text: narrative, prophecy, gospel and letters
HELDOUT_BOOKS = ("Ruth", "Esth", "Dan", "Joel", "Jonah", "Mark", "Gal", "Titus", "Phlm", "Jas")
#: the module appends its glossary to the last verse of Revelation; it is not Bible text
_GLOSSARY = " The following words used in the World English Bible"


def load_english_bible() -> TextCorpus:
    """The corpus; a missing module raises one CorpusError that says how to install it."""
    folder = module_dir(MODULE, sword_root())
    if module_missing(folder):
        raise CorpusError(
            f"data=bible needs the SWORD module {MODULE}, not found under {folder.parent}; install it with "
            f"`apt-get install {PACKAGE}` (or set SWORD_PATH to a SWORD library)."
        )
    train, heldout = [], []
    for (book, _, _), verse in read_verses(folder).items():
        verse = verse.split(_GLOSSARY)[0]
        if verse:
            (heldout if book in HELDOUT_BOOKS else train).append(verse)
    if not train or not heldout:
        raise CorpusError(
            f"The SWORD module {folder} holds no verses of the training or held-out books; reinstall {PACKAGE}."
        )
    return TextCorpus(
        f"World English Bible ({MODULE})",
        "\n".join(train) + "\n",
        heldout="\n".join(heldout) + "\n",
        split=f"held-out books {', '.join(HELDOUT_BOOKS)}",
    )
