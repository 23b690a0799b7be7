"""A Hugging Face config read as bench's spec (variants/hf_config.py): the shapes, and one sentence for the rest."""

from __future__ import annotations

import json

import pytest

from variants.ffn.swiglu import swiglu_hidden
from variants.hf_config import ConfigError, spec_fields

LLAMA_2_7B = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
              "num_key_value_heads": 32, "intermediate_size": 11008, "vocab_size": 32000}  # fmt: skip
MISTRAL_7B = {"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
              "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "sliding_window": 4096}  # fmt: skip
GPT2 = {"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257, "n_inner": None}


def _write(tmp_path, config) -> str:
    (tmp_path / "config.json").write_text(json.dumps(config))
    return str(tmp_path)


def test_llama_is_rope_rmsnorm_swiglu_with_its_feed_forward_width(tmp_path):
    fields = spec_fields(_write(tmp_path, LLAMA_2_7B))
    assert (fields["position"], fields["norm"], fields["ffn"]) == ("rope", "rmsnorm", "swiglu")
    assert fields["n_kv_heads"] is None and fields["n_layers"] == 32 and fields["d_model"] == 4096
    assert swiglu_hidden(fields["d_ff"]) == 11008  # bench's SwiGLU hidden size is the config's intermediate_size


def test_mistral_keeps_its_key_value_heads_and_window(tmp_path):
    fields = spec_fields(_write(tmp_path, MISTRAL_7B))
    assert fields["n_kv_heads"] == 8 and fields["window"] == 4096 and swiglu_hidden(fields["d_ff"]) == 14336


def test_gpt2_is_learned_layernorm_gelu_four_times_wide(tmp_path):
    fields = spec_fields(_write(tmp_path, GPT2))
    assert (fields["position"], fields["norm"], fields["ffn"], fields["d_ff"]) == ("learned", "layernorm", "gelu", 3072)


@pytest.mark.parametrize(
    "config, words",
    [
        ({"model_type": "t5"}, "model_type=t5 has no bench spec"),
        ({**LLAMA_2_7B, "head_dim": 256}, "head_dim=256"),
        ({"model_type": "llama", "hidden_size": 64}, "no num_attention_heads"),
    ],
)
def test_what_bench_cannot_read_is_one_sentence_naming_the_key(tmp_path, config, words):
    with pytest.raises(ConfigError, match=words):
        spec_fields(_write(tmp_path, config))
    with pytest.raises(ConfigError, match="names no config.json"):
        spec_fields(tmp_path / "elsewhere")
