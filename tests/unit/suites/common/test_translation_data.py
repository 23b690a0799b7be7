"""Translation corpora: the zText reader on a module written here, the Bible alignment, numbers, user files, BLEU buckets."""

import struct
import zlib
from pathlib import Path

import pytest

from suites.common.bleu import bucket_bounds, corpus_scores, sample_indices
from suites.common.data import corpora, parallel
from suites.common.data.bible import ENGLISH, SPANISH, load_bible
from suites.common.data.numbers import generate
from suites.common.data.sword import module_dir, osis_to_text, read_slots, read_verses
from suites.common.data.text import CorpusError


def write_ztext(folder: Path, testament: str, slots, per_block: int = 3) -> None:
    """Write a zText testament: slots of text compressed ``per_block`` at a time (empty slots take no bytes)."""
    folder.mkdir(parents=True, exist_ok=True)
    bzs, bzv, bzz = bytearray(), bytearray(), bytearray()
    for start in range(0, len(slots), per_block):
        block, offsets = bytearray(), []
        for text in slots[start : start + per_block]:
            data = text.encode("utf-8")
            offsets.append((len(block), len(data)))
            block += data
        packed = zlib.compress(bytes(block))
        bzs += struct.pack("<III", len(bzz), len(packed), len(block))
        bzz += packed
        for offset, size in offsets:
            bzv += struct.pack("<IIH", start // per_block, offset, size)
    for ext, data in (("bzs", bzs), ("bzv", bzv), ("bzz", bzz)):
        (folder / f"{testament}.{ext}").write_bytes(bytes(data))


def book(osis, chapters):
    """Slots of one book: its heading, then per chapter a heading and the verses."""
    slots = [f'<div osisID="{osis}" sID="b{osis}" type="book"/> <title type="main">{osis}</title>']
    for c, verses in enumerate(chapters, 1):
        slots.append(f'<chapter n="{c}" osisID="{osis}.{c}" sID="{osis}.{c}"/>')
        slots += verses
    return slots


def make_testament(*books):
    return ["", '<milestone type="x-importer"/>'] + [s for b in books for s in b]


EN_OT = make_testament(
    book(
        "Gen",
        [
            [
                'In the <w lemma="strong:H7225">beginning</w> God created.<note placement="foot">Heb. note</note>',
                '¶ And the earth <transChange type="added">was</transChange> void.',
            ],
            ["And God said, Let there be light."],
        ],
    ),
    book("Ruth", [["Now it came to pass in the days when the judges ruled."]]),
    book("Jonah", [["Now the word of the LORD came unto Jonah."]]),
)
ES_OT = make_testament(
    book("Gen", [["EN el principio crió Dios.", "Y la tierra estaba desordenada."], [""]]),
    book("Ruth", [["Y ACONTECIÓ en los días que gobernaban los jueces."]]),
    book("Jonah", [["Y FUÉ palabra de Jehová á Jonás."]]),
)
EN_NT = make_testament(
    book("Mark", [['<title canonical="true" type="psalm">A song.</title> The beginning of the gospel.']])
)
ES_NT = make_testament(book("Mark", [["Principio del evangelio."]]))


@pytest.fixture
def library(tmp_path, monkeypatch):
    for name, (ot, nt) in {ENGLISH: (EN_OT, EN_NT), SPANISH: (ES_OT, ES_NT)}.items():
        write_ztext(module_dir(name, tmp_path), "ot", ot)
        write_ztext(module_dir(name, tmp_path), "nt", nt)
    monkeypatch.setenv("SWORD_PATH", str(tmp_path))
    return tmp_path


def test_the_reader_returns_every_slot_across_blocks(library):
    assert read_slots(module_dir(ENGLISH, library), "ot") == EN_OT


def test_verses_are_keyed_by_book_chapter_and_verse_with_markup_stripped(library):
    verses = read_verses(module_dir(ENGLISH, library))
    assert list(verses) == [
        ("Gen", 1, 1),
        ("Gen", 1, 2),
        ("Gen", 2, 1),
        ("Ruth", 1, 1),
        ("Jonah", 1, 1),
        ("Mark", 1, 1),
    ]
    assert verses[("Gen", 1, 1)] == "In the beginning God created."
    assert verses[("Gen", 1, 2)] == "And the earth was void."
    assert verses[("Mark", 1, 1)] == "A song. The beginning of the gospel."  # a canonical title is text


def test_osis_to_text_drops_notes_and_headings_and_keeps_words_apart():
    osis = (
        '<title type="x-heading">Heading</title><w lemma="x">Blessed</w> <w>are</w><lb/>they'
        '<note type="study">skip <reference>1.1</reference> me</note> &amp; <l level="1"/>glad.'
    )
    assert osis_to_text(osis) == "Blessed are they & glad."


def test_the_bible_is_aligned_by_verse_split_by_book_and_empty_verses_dropped(library):
    corpus = load_bible()
    assert corpus.train == (
        ("In the beginning God created.", "EN el principio crió Dios."),
        ("And the earth was void.", "Y la tierra estaba desordenada."),
    )  # Gen 2:1 empty in Spanish
    assert corpus.test == (
        (
            "Now it came to pass in the days when the judges ruled.",
            "Y ACONTECIÓ en los días que gobernaban los jueces.",
        ),
        ("A song. The beginning of the gospel.", "Principio del evangelio."),
    )
    assert corpus.valid == (("Now the word of the LORD came unto Jonah.", "Y FUÉ palabra de Jehová á Jonás."),)


def test_missing_modules_name_the_packages_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("SWORD_PATH", str(tmp_path))
    with pytest.raises(CorpusError, match="apt-get install sword-text-kjv sword-text-sparv"):
        load_bible()


@pytest.mark.sword(ENGLISH, SPANISH)
def test_the_installed_modules_hold_the_whole_bible():
    verses = read_verses(module_dir(ENGLISH))
    assert len(verses) == 31102  # 23,145 Old Testament + 7,957 New Testament verses (KJV versification)
    assert verses[("Gen", 1, 1)] == "In the beginning God created the heaven and the earth."
    assert read_verses(module_dir(SPANISH))[("John", 3, 16)].startswith("Porque de tal manera amó Dios al mundo")


def test_numbers_are_deterministic_spread_over_lengths_and_held_out():
    train, valid, test = generate(train=300, valid=20, test=100, max_words=30, seed=7)
    assert (train, valid, test) == generate(train=300, valid=20, test=100, max_words=30, seed=7)
    assert len(train) == 300 and len(valid) == 20 and len(test) == 100
    held_out = {s for s, _ in valid + test}
    assert not held_out & {s for s, _ in train}
    lengths = [len(s.split()) for s, _ in test]
    assert min(lengths) >= 1 and max(lengths) <= 30
    assert all(any(lo <= n <= lo + 9 for n in lengths) for lo in (1, 11, 21))  # every bucket populated
    english, french = test[0]
    assert len(english.split(";")) == len(french.split(";"))  # one French number per English number


def test_user_files_are_split_with_a_fixed_seed(tmp_path):
    src, tgt = tmp_path / "a.txt", tmp_path / "b.txt"
    src.write_text("\n".join(f"source {i}" for i in range(100)))
    tgt.write_text("\n".join(f"target {i}" for i in range(100)))
    corpus = parallel.load_files(str(src), str(tgt))
    assert (len(corpus.train), len(corpus.valid), len(corpus.test)) == (85, 5, 10)
    assert all(s.split()[1] == t.split()[1] for s, t in corpus.train + corpus.test)
    tgt.write_text("just one line")
    with pytest.raises(CorpusError, match="not parallel"):
        parallel.load_files(str(src), str(tgt))
    with pytest.raises(CorpusError, match="not a translation corpus"):
        corpora.load_parallel("wikipedia")


def test_buckets_and_bleu():
    assert bucket_bounds((10, 20), 35) == [(1, 10), (11, 20), (21, 35)]
    assert bucket_bounds((10, 20), 20) == [(1, 10), (11, 20)]
    assert sample_indices([3, 15, 25, 4], (10, 20)) == [0, 1, 2]
    refs = ["the cat sat on the mat", "a dog ran in the park today"]
    scores = corpus_scores(refs, refs)
    assert scores.bleu == pytest.approx(100.0) and scores.chrf == pytest.approx(100.0)
    assert "tok:13a" in scores.bleu_signature and "smooth:exp" in scores.bleu_signature
    assert corpus_scores(["the cat"], ["the cat"]).bleu == 0.0  # no 4-gram anywhere: why buckets pool sentences


def test_variants_not_clearly_above_the_better_baseline_are_flagged():
    import pandas as pd

    from suites.translation.baselines import baseline_scores, did_not_learn
    from suites.translation.tables import flag_unlearned

    baselines = {
        "copy_source": {"bleu": 12.0, "chrf": 30.0},
        "most_frequent_target": {"bleu": 2.0, "chrf": 10.0, "sentence": "un", "count": 3},
    }
    bleu = {"good": [30.0, 32.0], "edge": [17.0, 17.0], "close": [16.9, 17.0], "bad": [1.0, 0.5]}
    rows = [
        {"variant": v, "metric": "bleu", "value": b, "seed": s, "baselines": baselines}
        for v, values in bleu.items()
        for s, b in enumerate(values)
    ]
    flagged = flag_unlearned(pd.DataFrame(rows), list(bleu))
    assert set(flagged) == {"close", "bad"}  # 17.0 is exactly 5 above the copy baseline: learned
    assert flagged["close"] == "BLEU 16.9 against the better baseline's 12.0"
    assert did_not_learn(float("nan"), baselines)

    scores = baseline_scores(["deux", "un", "un"], [("un", "un"), ("deux", "deux trois")])
    assert scores["most_frequent_target"]["sentence"] == "un" and scores["most_frequent_target"]["count"] == 2
    assert scores["copy_source"]["chrf"] > scores["most_frequent_target"]["chrf"]
