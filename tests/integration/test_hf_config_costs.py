"""``bench run suite=kv_cache model=hf:PATH``: a Hugging Face config's decode cost and cache bytes measured at its
own shapes, without training; a config bench cannot read is one sentence and exit status 2, before compute."""

from __future__ import annotations

import json

import pytest

from bench.cli import main
from harness.store import ResultsStore

pytestmark = pytest.mark.slow
CONFIG = {"model_type": "llama", "hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 8,
          "num_key_value_heads": 2, "intermediate_size": 344, "vocab_size": 300}  # fmt: skip


def test_a_config_s_cache_is_measured_at_its_own_shapes(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    results = tmp_path / "results"
    args = ["run", "suite=kv_cache", f"model=hf:{tmp_path}", "set.contexts=[64,128]", "set.path_contexts=[256]"]
    assert main([*args, "progress=false", f"results_dir={results}"]) == 0
    records = ResultsStore(results).load("kv_cache")
    assert {r["variant"] for r in records} == {"baseline"}
    spec = records[0]["spec"]
    assert (spec["d_model"], spec["n_layers"], spec["n_kv_heads"], spec["norm"]) == (128, 2, 2, "rmsnorm")
    head_dim = 128 // 8
    measured = [r for r in records if r["metric"] == "cache_bytes" and r["status"] == "ok"]
    assert {r["x"] for r in measured} == {64.0, 128.0}
    for r in measured:
        assert r["value"] == 2 * 2 * 2 * head_dim * r["x"] * r["extra"]["batch"] * 4  # K and V, layers, heads, fp32


@pytest.mark.parametrize(
    "model, words",
    [("hf:/no/such/folder", "names no config.json"), ("/tmp", "is not hf:PATH")],
)
def test_a_config_bench_cannot_read_is_refused_before_compute(tmp_path, capsys, model, words):
    assert main(["run", "suite=kv_cache", f"model={model}", f"results_dir={tmp_path}"]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
    assert not (tmp_path / "kv_cache").exists()
