"""bench's decoder LMs written as Hugging Face checkpoints compute what bench computes (bench/export/hf.py).

Each export is loaded with ``transformers`` (skipped, with its install command, where it is absent) and compared with
bench's own model: logits in float64, and greedy decoding. Hugging Face's Llama computes RMSNorm's variance and the
RoPE table in float32 even for float64 inputs, and MPT its softmax, so their logits agree to float32 rounding (1e-5
here); GPT-2 computes in the input's dtype and agrees to float64 rounding.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch

from bench.export.hf import ExportError, architecture, export, tokenizer_json
from variants.decode.generate import greedy_generate
from variants.models.transformer import build
from variants.spec import TransformerSpec, resolve

transformers = pytest.importorskip(
    "transformers", reason="needs transformers: pip install transformers (or pip install -e .[hf])"
)

CHARS = "abcdefghijklmnopqrstuvwxyz .,;:!?'\"\n-ABC"
BASE = TransformerSpec(vocab_size=len(CHARS) + 1, d_model=64, n_heads=4, n_layers=2, max_len=32, kernel="naive")
#: variant -> (Hugging Face class, the largest logit difference allowed in float64)
CASES = {
    "rope+gqa2+rmsnorm+swiglu": ("LlamaForCausalLM", 1e-5),
    "rope+mqa+rmsnorm+swiglu": ("LlamaForCausalLM", 1e-5),
    "rope+rmsnorm+swiglu": ("LlamaForCausalLM", 1e-5),
    "learned": ("GPT2LMHeadModel", 1e-12),
    "alibi+layernorm_nobias": ("MptForCausalLM", 1e-5),
}


def _model(variant: str, seed: int = 0):
    torch.manual_seed(seed)
    model = build(resolve(variant, BASE)).eval()
    with torch.no_grad():  # norms away from their initial ones and biases away from 0, as after training
        for name, p in model.named_parameters():
            if "norm" in name:
                p.add_(0.1 * torch.randn_like(p))
    return model


def _load(folder, dtype):
    return transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=dtype, attn_implementation="eager").eval()


@pytest.mark.parametrize("variant", list(CASES))
def test_the_export_computes_bench_s_logits(variant, tmp_path):
    model = _model(variant)
    export(model, tmp_path, CHARS)
    name, tolerance = CASES[variant]
    hf = _load(tmp_path, torch.float64)
    assert type(hf).__name__ == name
    tokens = torch.randint(0, BASE.vocab_size, (2, BASE.max_len), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ours, theirs = model.double()(tokens), hf(tokens).logits
    assert float((ours - theirs).abs().max()) < tolerance


def test_mpt_takes_alibi_s_slopes_at_a_head_count_that_is_not_a_power_of_two(tmp_path):
    spec = dataclasses.replace(resolve("alibi+layernorm_nobias", BASE), d_model=48, n_heads=6)
    torch.manual_seed(0)
    model = build(spec).eval()
    export(model, tmp_path)
    tokens = torch.randint(0, BASE.vocab_size, (2, BASE.max_len), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ours, theirs = model.double()(tokens), _load(tmp_path, torch.float64)(tokens).logits
    assert float((ours - theirs).abs().max()) < 1e-5  # MPT's softmax in float32


@pytest.mark.parametrize("variant", ["rope+gqa2+rmsnorm+swiglu", "learned", "alibi+layernorm_nobias"])
def test_the_export_decodes_greedily_as_bench_does(variant, tmp_path):
    model = _model(variant)
    export(model, tmp_path, CHARS)
    hf = _load(tmp_path, torch.float32)
    prompt = torch.tensor([[1, 2, 3, 4, 5, 6, 7, 8]])
    ours, _ = greedy_generate(model, prompt, 12, use_cache=True)  # (1, 12): the new tokens
    theirs = hf.generate(prompt, max_new_tokens=12, do_sample=False, pad_token_id=0)  # (1, 8 + 12)
    assert ours.tolist() == theirs[:, prompt.shape[1] :].tolist()


def test_the_tokenizer_numbers_characters_as_bench_s_vocabulary(tmp_path):
    export(_model("learned"), tmp_path, CHARS)
    tokenizer = transformers.AutoTokenizer.from_pretrained(tmp_path)
    ids = tokenizer("ab c\nA?", add_special_tokens=False)["input_ids"]
    assert ids == [CHARS.index(c) + 1 for c in "ab c\nA?"]
    assert tokenizer.decode(ids) == "ab c\nA?"
    assert tokenizer("é", add_special_tokens=False)["input_ids"] == [0]  # unseen in training: id 0, as bench's
    assert '"<unk>"' in tokenizer_json(CHARS)


@pytest.mark.parametrize(
    "variant, field",
    [
        ("alibi", "norm"),
        ("sinusoidal", "position"),
        ("alibi+layernorm_nobias+gqa2", "n_kv_heads"),
        ("alibi+layernorm_nobias+swiglu", "ffn"),
        ("rope+gqa2+rmsnorm+swiglu+window16", "window"),
        ("rope+ntk+rmsnorm+swiglu", "rope_scaling"),
        ("rope", "norm"),
        ("rope+rmsnorm", "ffn"),
        ("learned+gqa2", "n_kv_heads"),
        ("learned+dot", "scoring"),
        ("learned+post_ln", "norm_placement"),
    ],
)
def test_a_spec_no_architecture_computes_is_refused_naming_its_field(variant, field):
    with pytest.raises(ExportError, match=rf"^{field}=\S+ has no"):
        architecture(resolve(variant, BASE))
