"""The translation suite end to end at a reduced size: records, BLEU by length, report, figure, errors."""

import pytest
from stored import load, report, runner

from tests.tiny import TRANSLATION, tiny

run = runner(*tiny("translation", TRANSLATION, test_limit=80, min_bucket_sentences=5))
#: a recurrent model's per-token cache (it has none) is recorded as unsupported, with the reason, and so are its
#: training FLOPs on CUDA (cuDNN's fused kernels, which the counter cannot see); everything else is measured
RECURRENT_GAPS = {"train_flops", "kv_cache_bytes_per_token"}


def test_the_quick_profile_end_to_end_with_report(tmp_path):
    results, reports = tmp_path / "results", tmp_path / "reports"
    assert (
        run(results, "variants=[rnn,lstm,lstm+additive,lstm+dot,lstm+general,transformer,gru+general+bidirectional]")
        == 0
    )
    records = load(results)
    bad = [r for r in records if r["status"] != "ok"]
    assert all(
        r["metric"] in RECURRENT_GAPS and r["spec"]["family"] == "rnn_seq2seq" and r["status"] == "unsupported"
        for r in bad
    ), [r["reason"] for r in bad]
    assert {r["variant"] for r in records} == {
        "rnn",
        "lstm",
        "lstm+additive",
        "lstm+dot",
        "lstm+general",
        "transformer",
        "gru+general+bidirectional",
    }
    families = {r["variant"]: r["spec"]["family"] for r in records}
    assert families["lstm+dot"] == "rnn_seq2seq" and families["transformer"] == "transformer_seq2seq"
    by_length = [r for r in records if r["metric"] == "bleu_by_length" and r["variant"] == "lstm"]
    xs = [r["x"] for r in sorted(by_length, key=lambda r: r["x"])]
    assert xs[:3] == [10.0, 20.0, 30.0] and 31 <= xs[3] <= 40  # the last bucket ends at the longest test source
    assert sum(r["extra"]["sentences"] for r in by_length) == 80
    bleu = next(r for r in records if r["metric"] == "bleu" and r["variant"] == "lstm+additive")
    assert "tok:13a" in bleu["extra"]["signature"] and len(bleu["extra"]["samples"]) == 3
    assert 0.0 <= bleu["value"] <= 100.0 and bleu["corpus"] == "numbers_en_fr" and bleu["parameters"] > 0
    assert bleu["decoding"] == "greedy"
    assert set(bleu["baselines"]) == {"copy_source", "most_frequent_target"}
    assert bleu["spec"]["decoder"] == "bahdanau"  # additive alone is Bahdanau's model

    report(
        results,
        reports,
        "translation",
        "suite=translation",
        phrases=(
            "BLEU signature `nrefs:1",
            "chrF signature",
            "31-3",
            "Bahdanau",
            "(n=1)",
            "Sample translations",
            "RNN, Bahdanau decoder, additive attention",
            "RNN, Luong decoder, dot attention",
            "Transformer",
            "numbers_en_fr",
            "the source sentence, copied",
            "did not learn",
        ),
        figures=("translation_bleu_by_length.png",),
    )


def test_beam_search_and_user_files(tmp_path):
    src, tgt = tmp_path / "en.txt", tmp_path / "fr.txt"
    words = ["one", "two", "three", "four", "five", "six"]
    french = ["un", "deux", "trois", "quatre", "cinq", "six"]
    src.write_text("\n".join(" ".join(words[(i + j) % 6] for j in range(1 + i % 5)) for i in range(60)))
    tgt.write_text("\n".join(" ".join(french[(i + j) % 6] for j in range(1 + i % 5)) for i in range(60)))
    results = tmp_path / "results"
    assert (
        run(
            results,
            "variants=[lstm+dot,transformer+rope]",
            f"data={src},{tgt}",
            "set.beam_size=3",
            "set.vocab_size=40",
            "set.length_buckets=[2,4]",
            "set.min_bucket_sentences=1",
        )
        == 0
    )
    records = load(results)
    assert all(r["status"] == "ok" for r in records if r["metric"] not in RECURRENT_GAPS or r["variant"] != "lstm+dot")
    assert {r["decoding"] for r in records} == {"beam 3, length penalty alpha 0.6"}
    assert {r["corpus"] for r in records} == {"en.txt,fr.txt"}


def test_a_missing_bible_is_one_sentence_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SWORD_PATH", str(tmp_path))
    assert run(tmp_path / "results", "data=bible_en_es") == 2
    err = capsys.readouterr().err
    assert "apt-get install sword-text-kjv sword-text-sparv" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    "variant,expected",
    [
        ("lstm+none", "write 'noattn'"),
        ("lstm+transformer", "names both the Transformer and an RNN cell"),
        ("transformer+bidirectional", "Name a cell (rnn, gru, lstm)"),
        ("lstm+dot+general", "disagree on scoring"),
    ],
)
def test_bad_translation_variants_are_one_sentence(tmp_path, capsys, variant, expected):
    assert run(tmp_path / "results", f"variants=[{variant}]", "dry_run=true") == 2
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1
