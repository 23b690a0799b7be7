"""Mixer presets that no layer can take are refused before compute: one sentence, the value, the valid range."""

import pytest

from bench.cli import main


@pytest.mark.parametrize(
    "suite,variant,says",
    [
        ("recall", "mamba2+state0", "state<N> takes N >= 1"),
        ("recall", "gated_deltanet+chunk0", "chunk<C> takes C >= 1 tokens"),
        ("recall", "mamba2+hybrid0", "hybrid<k> takes k >= 1"),
        ("recall", "mamba2+hybrid9", "attention_every=9 names no block of a 2-block stack: give k from 1 to 2"),
        ("language_modeling", "mamba2+hybrid9", "attention_every=9 names no block"),
    ],
)
def test_a_mixer_preset_out_of_range_is_one_sentence_and_exit_2(suite, variant, says, tmp_path, capsys):
    assert main(["run", f"suite={suite}", f"variants=[{variant}]", f"results_dir={tmp_path}", "dry_run=true"]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and ".." not in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())  # nothing recorded


@pytest.mark.parametrize("variant", ["alibi", "rope+window16", "mla"])
def test_a_variant_the_streaming_step_cannot_take_is_refused_at_planning(variant, tmp_path, capsys):
    assert main(["run", "suite=streaming", f"variants=[{variant}]", f"results_dir={tmp_path}"]) == 2
    err = capsys.readouterr().err
    assert "re-positions cached keys" in err and "Traceback" not in err and not any(tmp_path.rglob("*.jsonl"))
