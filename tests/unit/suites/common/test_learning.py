"""The learned / memorised flags and the n-gram baselines they rest on (the extrapolation verdict that reads them:
tests/unit/suites/position_extrapolation/claims/test_alibi_extrapolates.py)."""

import math
import sys

import pandas as pd
import pytest
import torch

from suites.common.data.char_lm import char_lm_data, ngram_entropies
from suites.common.learning import LEARN_MARGIN, learning_checks, learning_table, usable


def records(variant, heldout, train, bigram=2.5, seeds=(0,), x=64.0):
    rows = []
    for seed in seeds:
        common = dict(variant=variant, seed=seed, status="ok", bigram_entropy=bigram, unigram_entropy=3.2)
        rows.append(dict(common, metric="loss", value=heldout, x=x))
        rows.append(dict(common, metric="train_loss", value=train, x=None))
    return rows


def test_ngram_entropies_of_known_sequences():
    h1, h2 = ngram_entropies(torch.tensor([0, 1] * 50), 2)  # alternating: uniform unigram, deterministic bigram
    assert h1 == pytest.approx(math.log(2)) and h2 == pytest.approx(0.0, abs=1e-12)
    g = torch.Generator().manual_seed(0)
    h1, h2 = ngram_entropies(torch.randint(0, 4, (200_000,), generator=g), 4)  # i.i.d. uniform: both log 4
    assert h1 == pytest.approx(math.log(4), abs=1e-3) and h2 == pytest.approx(math.log(4), abs=1e-3)


def test_pydoc_baselines_match_the_published_values():
    if sys.version_info[:2] != (3, 11):  # pydoc_data.topics differs between Python versions (3.12's: bigram 2.45)
        pytest.skip(f"the published baselines are of Python 3.11's pydoc topics, this is {sys.version.split()[0]}")
    data = char_lm_data("pydoc", 0.1)
    assert data.bigram_entropy == pytest.approx(2.48, abs=0.02) and data.unigram_entropy == pytest.approx(
        3.25, abs=0.02
    )
    assert data.facts()["train_chars"] == data.train_ids.numel()


def test_flags_on_made_up_records():
    df = pd.DataFrame(
        records("learned", 1.9, 1.85)
        + records("bigram_level", 2.3, 2.3)
        + records("memoriser", 1.9, 1.2)
        + records("both", 2.4, 1.0)
    )
    checks = learning_checks(df, "loss", 64.0)
    assert checks["learned"].usable
    assert checks["bigram_level"].did_not_learn and not checks["bigram_level"].memorised  # 2.3 > 2.5 - 0.3
    assert checks["memoriser"].memorised and not checks["memoriser"].did_not_learn  # 1.9 > 1.15 x 1.2
    assert checks["both"].did_not_learn and checks["both"].memorised
    kept, note = usable(checks)
    assert kept == ["learned"]
    assert note.startswith("3 of 4 left out") and "memorised" in note and "did not learn" in note
    table = learning_table(checks)
    assert list(table["did not learn"]) == ["no", "**yes**", "no", "**yes**"]


def test_the_margin_is_strict_and_seeds_are_averaged():
    at_margin = records("v", 2.5 - LEARN_MARGIN, 2.1, seeds=(0, 1))
    df = pd.DataFrame(at_margin)
    assert learning_checks(df, "loss", 64.0)["v"].usable
    df = pd.DataFrame(records("v", 2.25, 2.1, seeds=(0,)) + records("v", 2.15, 2.1, seeds=(1,)))
    assert not learning_checks(df, "loss", 64.0)["v"].did_not_learn  # mean 2.20 = 2.5 - 0.3


def test_a_variant_without_a_heldout_loss_is_left_out():
    df = pd.DataFrame(
        records("ok", 1.8, 1.7) + [dict(variant="failed", seed=0, status="failed", metric="job", value=None, x=None)]
    )
    kept, note = usable(learning_checks(df, "loss", 64.0))
    assert kept == ["ok"] and "no held-out loss" in note


@pytest.mark.sword("engWEB2015eb")
def test_the_english_bible_corpus_is_large_and_split_by_book():
    data = char_lm_data("bible", 0.1)
    assert data.train_ids.numel() >= 4_000_000 and 150_000 < data.heldout_ids.numel() < 400_000
    assert "Ruth" in data.split and "Ruth" not in data.corpus.text[:100]
    assert "The following words used in the World English Bible" not in data.corpus.text + data.corpus.heldout
    assert data.bigram_entropy < data.unigram_entropy


def test_a_missing_bible_module_says_how_to_install_it(tmp_path, monkeypatch):
    from suites.common.data.english_bible import load_english_bible
    from suites.common.data.text import CorpusError

    monkeypatch.setenv("SWORD_PATH", str(tmp_path))
    with pytest.raises(CorpusError, match="apt-get install sword-text-web"):
        load_english_bible()
