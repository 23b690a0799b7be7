"""The footprint counted from settings before any compute (harness/footprint.py): a lower bound, never a refusal of
a job that fits, and the sentence naming the settings that make a tensor too large."""

import dataclasses

import pytest

from harness.contract import suites
from harness.footprint import estimates, footprint_problem, human_bytes, longest_sequence, window_problem
from variants.models.transformer import build
from variants.spec import resolve


@pytest.fixture(scope="module")
def extrapolation():
    suite = suites.get("position_extrapolation")
    profile = suite.profiles["quick"]
    return suite, profile, suite.base_spec(profile, {})


def test_the_weights_and_embedding_estimates_are_lower_bounds_of_the_built_model(extrapolation):
    _, profile, spec = extrapolation
    model = build(resolve("rope", spec))
    parameter_bytes = 4 * sum(p.numel() for p in model.parameters())
    counted = {t.what.split(" of ")[0]: t.bytes for t in estimates(profile, spec)}
    assert 0 < counted["the attention weights"] + counted["the embedding table"] <= parameter_bytes


def test_every_default_profile_fits_and_a_tiny_memory_refuses_it(extrapolation):
    suite, profile, spec = extrapolation
    assert footprint_problem(profile, spec) is None
    refusal = footprint_problem(profile, spec, memory=1024)
    assert refusal is not None and "1.0 KiB of memory" in refusal and "set.batch_size=" in refusal


def test_the_sentence_names_the_settings_of_the_largest_tensor(extrapolation):
    _, profile, spec = extrapolation
    wide = dataclasses.replace(profile, d_model=10**6)
    refusal = footprint_problem(wide, dataclasses.replace(spec, d_model=10**6), memory=2**34)
    assert "set.d_model=1000000" in refusal and "the attention weights" in refusal and "16.0 GiB" in refusal


def test_the_longest_sequence_is_the_longest_evaluation_length(extrapolation):
    _, profile, _ = extrapolation
    assert longest_sequence(profile) == profile.train_len * max(profile.eval_multipliers)


def test_a_window_longer_than_every_sequence_is_refused_and_one_within_is_kept(extrapolation):
    _, profile, spec = extrapolation
    longest = longest_sequence(profile)
    assert window_problem("rope+window16", resolve("rope+window16", spec), longest) is None
    refusal = window_problem(f"rope+window{longest + 1}", dataclasses.replace(spec, window=longest + 1), longest)
    assert refusal is not None and f"at most {longest}" in refusal


def test_recall_names_its_longest_task_sequence():
    suite = suites.get("recall")
    profile = suite.profiles["quick"]
    assert suite.longest_sequence(profile) >= 2 * max(profile.mqar_kv)


@pytest.mark.parametrize("n,text", [(512, "512 B"), (2048, "2.0 KiB"), (3 * 2**30, "3.0 GiB")])
def test_bytes_read_in_binary_units(n, text):
    assert human_bytes(n) == text


def test_a_corpus_file_too_large_to_read_whole_is_refused_before_it_is_read(tmp_path, monkeypatch):
    import harness.footprint
    from suites.common.data.corpora import load_corpus
    from suites.common.data.text import CorpusError

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("abcdefgh" * 128)  # 1 KiB
    monkeypatch.setattr(harness.footprint, "memory_bytes", lambda: 8 * 1024)
    with pytest.raises(CorpusError, match=r"data='.*corpus.txt' is 1.0 KiB.*at most 512 B"):
        load_corpus(str(corpus))
    monkeypatch.setattr(harness.footprint, "memory_bytes", lambda: 64 * 1024)
    assert len(load_corpus(str(corpus)).text) == 1024
