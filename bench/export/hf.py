"""Hugging Face checkpoints of bench's decoder LMs, for every spec a Hugging Face architecture computes exactly.

- **Llama** (``LlamaForCausalLM``): RoPE (the GPT-NeoX halves, base 10000), MHA, GQA or MQA, RMSNorm (eps 1e-6),
  SwiGLU, Pre-LN, no biases: ``rope+gqa2+rmsnorm+swiglu``.
- **GPT-2** (``GPT2LMHeadModel``): learned absolute positions, LayerNorm (eps 1e-5), the exact (erf) GELU, Pre-LN,
  MHA; GPT-2's linear layers have biases and bench's have none, so they are written as zeros: ``learned``.
- **MPT** (``MptForCausalLM``): ALiBi, LayerNorm without bias (MPT drops every bias, its norms' too), the exact GELU
  at 4 x d_model, Pre-LN, MHA: ``alibi+layernorm_nobias``. MPT adds slope x (j - (n - 1)) to the score of key j,
  bench slope x (j - i): the two differ by a constant per query row, which softmax ignores; MPT's slopes for a
  head count that is not a power of two are Press et al.'s in the same order.

bench scales its input embedding by sqrt(d_model) (variants/models/init_scheme.py) and ties the output layer to the
unscaled table; neither architecture scales it, so the export writes the scaled table as the input embedding and
the table itself as an untied ``lm_head`` (``tie_word_embeddings`` false): the same function, not the same tying.
Weights are written in float32; the scaled table is rounded to float32 once (sqrt(d_model) is a power of two only at
some widths), which moves logits by about 1e-6. Hugging Face's Llama also computes RMSNorm's variance and the RoPE
table in float32 whatever the input's dtype, and MPT its softmax, so Llama and MPT exports agree with bench to float32
rounding, not float64's.

A spec no architecture here expresses is refused with one sentence naming the field and the value that rules it
out (``ExportError``): ALiBi with a biased LayerNorm (MPT keeps no norm bias, and BLOOM adds a LayerNorm after the
embedding), a RoPE scaling, a sliding window, a mixer, another score. The checkpoint is the
``save_pretrained`` layout: ``config.json``, ``model.safetensors``, and with a vocabulary ``tokenizer.json`` and
``tokenizer_config.json`` (a character-level tokenizer of the ``tokenizers`` library).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import torch

from harness.errors import UsageError

#: RoPE's base, as variants/rope_scaling/_base.py uses it
ROPE_THETA = 10000.0
#: the token that stands for a character unseen in training (id 0 of a character vocabulary)
UNKNOWN = "<unk>"


class ExportError(UsageError):
    """A spec no Hugging Face architecture here computes exactly: one sentence naming the field."""


def _need(spec, field: str, allowed, why: str) -> None:
    value = getattr(spec, field)
    if value not in allowed:
        shown = ", ".join(map(str, allowed))
        raise ExportError(f"{field}={value} has no Hugging Face export: {why} (it takes {field} {shown}).")


def architecture(spec) -> str:
    """'llama', 'gpt2' or 'mpt': the architecture that computes ``spec`` exactly; an ExportError naming the field if none."""
    if getattr(spec, "mixer", None) not in (None, "attention"):
        raise ExportError(f"mixer={spec.mixer} has no Hugging Face export: Llama, GPT-2 and MPT attend in every layer.")
    _need(spec, "attention", ("grouped",), "Llama, GPT-2 and MPT attend with grouped (or full) heads")
    _need(spec, "scoring", ("scaled_dot",), "Llama, GPT-2 and MPT score q.k / sqrt(d_head)")
    _need(spec, "norm_placement", ("pre",), "Llama, GPT-2 and MPT normalise before each sublayer")
    _need(spec, "window", (None,), "Llama, GPT-2 and MPT attend to every earlier token")
    _need(spec, "rope_scaling", (None,), "the export writes plain RoPE")
    _need(spec, "position", ("rope", "learned", "alibi"), "Llama takes RoPE, GPT-2 learned positions, MPT ALiBi")
    if spec.position == "rope":
        _need(spec, "norm", ("rmsnorm",), "Llama normalises with RMSNorm")
        _need(spec, "ffn", ("swiglu",), "Llama's feed-forward is SwiGLU")
        return "llama"
    name = "GPT-2" if spec.position == "learned" else "MPT"
    if spec.position == "learned":
        _need(spec, "norm", ("layernorm",), "GPT-2 normalises with LayerNorm")
    else:
        _need(spec, "norm", ("layernorm_nobias",), "MPT's LayerNorm has no bias (BLOOM, the other ALiBi model, adds a "
              "LayerNorm after the embedding)")  # fmt: skip
    _need(spec, "ffn", ("gelu",), f"{name}'s feed-forward is GELU")
    if spec.n_kv_heads not in (None, spec.n_heads):
        raise ExportError(f"n_kv_heads={spec.n_kv_heads} has no {name} export: {name} gives every head its own keys.")
    if spec.position == "alibi" and spec.d_ff not in (None, 4 * spec.d_model):
        raise ExportError(
            f"d_ff={spec.d_ff} has no MPT export: MPT's feed-forward is 4 x d_model = {4 * spec.d_model}."
        )
    return "gpt2" if spec.position == "learned" else "mpt"


def _head_dim(spec) -> int:
    return spec.d_model // spec.n_heads


def _kv_heads(spec) -> int:
    return spec.n_kv_heads or spec.n_heads


def _keys_values(attn, spec) -> tuple[torch.Tensor, torch.Tensor]:
    """bench's fused kv_proj (2 x Hkv x Dh outputs, keys first) as the key and value matrices, each (Hkv Dh, D)."""
    rows = _kv_heads(spec) * _head_dim(spec)
    weight = attn.kv_proj.weight
    return weight[:rows], weight[rows:]


def llama_config(model) -> dict:
    spec = model.spec
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "vocab_size": spec.vocab_size,
        "hidden_size": spec.d_model,
        "intermediate_size": model.blocks[0].ffn.down.weight.shape[1],
        "num_hidden_layers": spec.n_layers,
        "num_attention_heads": spec.n_heads,
        "num_key_value_heads": _kv_heads(spec),
        "head_dim": _head_dim(spec),
        "max_position_embeddings": spec.max_len,
        "rms_norm_eps": 1e-6,
        "rope_theta": ROPE_THETA,
        "rope_parameters": {"rope_type": "default", "rope_theta": ROPE_THETA},
        "hidden_act": "silu",
        "attention_bias": False,
        "mlp_bias": False,
        "tie_word_embeddings": False,
        "bos_token_id": None,
        "eos_token_id": None,
        "pad_token_id": None,
        "dtype": "float32",
    }


def llama_state(model) -> dict[str, torch.Tensor]:
    spec, state = model.spec, {}
    state["model.embed_tokens.weight"] = model.embed.weight * model.embed_scale
    for i, block in enumerate(model.blocks):
        p = f"model.layers.{i}."
        k, v = _keys_values(block.attn, spec)
        hidden = block.ffn.down.weight.shape[1]
        state |= {
            p + "self_attn.q_proj.weight": block.attn.q_proj.weight,
            p + "self_attn.k_proj.weight": k,
            p + "self_attn.v_proj.weight": v,
            p + "self_attn.o_proj.weight": block.attn.out_proj.weight,
            p + "mlp.gate_proj.weight": block.ffn.up.weight[:hidden],  # bench's up holds gate, then value
            p + "mlp.up_proj.weight": block.ffn.up.weight[hidden:],
            p + "mlp.down_proj.weight": block.ffn.down.weight,
            p + "input_layernorm.weight": block.norm1_in.weight,
            p + "post_attention_layernorm.weight": block.norm2_in.weight,
        }
    state["model.norm.weight"] = model.norm.weight
    state["lm_head.weight"] = model.head.weight
    return state


def gpt2_config(model) -> dict:
    spec = model.spec
    return {
        "architectures": ["GPT2LMHeadModel"],
        "model_type": "gpt2",
        "vocab_size": spec.vocab_size,
        "n_embd": spec.d_model,
        "n_layer": spec.n_layers,
        "n_head": spec.n_heads,
        "n_inner": model.blocks[0].ffn.up.weight.shape[0],
        "n_positions": spec.max_len,
        "activation_function": "gelu",
        "layer_norm_epsilon": 1e-5,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
        "attn_pdrop": 0.0,
        "scale_attn_weights": True,
        "tie_word_embeddings": False,
        "bos_token_id": None,
        "eos_token_id": None,
        "dtype": "float32",
    }


def gpt2_state(model) -> dict[str, torch.Tensor]:
    """GPT-2's Conv1D layers hold (in, out) matrices, the transpose of nn.Linear's; its biases are zeros here."""
    spec, state = model.spec, {}
    state["transformer.wte.weight"] = model.embed.weight * model.embed_scale
    state["transformer.wpe.weight"] = model.position.table.weight
    for i, block in enumerate(model.blocks):
        p = f"transformer.h.{i}."
        k, v = _keys_values(block.attn, spec)
        qkv = torch.cat((block.attn.q_proj.weight, k, v), dim=0)  # (3 D, D)
        up, down = block.ffn.up.weight, block.ffn.down.weight
        state |= {
            p + "ln_1.weight": block.norm1_in.weight,
            p + "ln_1.bias": block.norm1_in.bias,
            p + "attn.c_attn.weight": qkv.T,
            p + "attn.c_attn.bias": qkv.new_zeros(qkv.shape[0]),
            p + "attn.c_proj.weight": block.attn.out_proj.weight.T,
            p + "attn.c_proj.bias": qkv.new_zeros(spec.d_model),
            p + "ln_2.weight": block.norm2_in.weight,
            p + "ln_2.bias": block.norm2_in.bias,
            p + "mlp.c_fc.weight": up.T,
            p + "mlp.c_fc.bias": up.new_zeros(up.shape[0]),
            p + "mlp.c_proj.weight": down.T,
            p + "mlp.c_proj.bias": down.new_zeros(down.shape[0]),
        }
    state["transformer.ln_f.weight"] = model.norm.weight
    state["transformer.ln_f.bias"] = model.norm.bias
    state["lm_head.weight"] = model.head.weight
    return state


def mpt_config(model) -> dict:
    spec = model.spec
    return {
        "architectures": ["MptForCausalLM"],
        "model_type": "mpt",
        "vocab_size": spec.vocab_size,
        "d_model": spec.d_model,
        "n_heads": spec.n_heads,
        "n_layers": spec.n_layers,
        "expansion_ratio": 4,
        "max_seq_len": spec.max_len,
        "layer_norm_epsilon": 1e-5,
        "no_bias": True,
        "learned_pos_emb": False,
        "attn_config": {"alibi": True, "alibi_bias_max": 8, "softmax_scale": None, "clip_qkv": None, "qk_ln": False},
        "resid_pdrop": 0.0,
        "emb_pdrop": 0.0,
        "logit_scale": None,
        "tie_word_embeddings": False,
        "use_cache": True,
        "bos_token_id": None,
        "eos_token_id": None,
        "pad_token_id": None,
        "dtype": "float32",
    }


def mpt_state(model) -> dict[str, torch.Tensor]:
    """MPT fuses q, k and v in one Wqkv (3 D, D), queries first."""
    spec, state = model.spec, {}
    state["transformer.wte.weight"] = model.embed.weight * model.embed_scale
    for i, block in enumerate(model.blocks):
        p = f"transformer.blocks.{i}."
        k, v = _keys_values(block.attn, spec)
        state |= {
            p + "norm_1.weight": block.norm1_in.weight,
            p + "attn.Wqkv.weight": torch.cat((block.attn.q_proj.weight, k, v), dim=0),
            p + "attn.out_proj.weight": block.attn.out_proj.weight,
            p + "norm_2.weight": block.norm2_in.weight,
            p + "ffn.up_proj.weight": block.ffn.up.weight,
            p + "ffn.down_proj.weight": block.ffn.down.weight,
        }
    state["transformer.norm_f.weight"] = model.norm.weight
    state["lm_head.weight"] = model.head.weight
    return state


#: architecture -> (its config, its weights) of a bench DecoderLM
WRITERS: dict[str, tuple[Callable, Callable]] = {
    "llama": (llama_config, llama_state),
    "gpt2": (gpt2_config, gpt2_state),
    "mpt": (mpt_config, mpt_state),
}


def config_and_state(model) -> tuple[dict, dict[str, torch.Tensor]]:
    """The Hugging Face config and the weights (contiguous float32 copies) of a bench DecoderLM."""
    name = architecture(model.spec)
    config_of, state_of = WRITERS[name]
    config = config_of(model)
    with torch.no_grad():
        state = {k: v.detach().to(torch.float32).contiguous().clone() for k, v in state_of(model).items()}
    return config, state


def tokenizer_json(chars: str) -> str:
    """A character-level tokenizer (``tokenizers``): id 0 for an unseen character, then ``chars`` in order, as a
    bench character vocabulary numbers them (suites/common/data/text.py ``CharVocab``); decoding joins them."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    vocab = {UNKNOWN: 0} | {c: i + 1 for i, c in enumerate(chars)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token=UNKNOWN))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")  # every character alone
    tokenizer.decoder = decoders.Fuse()
    return tokenizer.to_str()


def export(model, out_dir: Path, chars: str | None = None) -> list[Path]:
    """Write ``model`` (a bench DecoderLM) as a Hugging Face checkpoint under ``out_dir``; with ``chars`` (its
    character vocabulary) also its tokenizer. Returns the files written."""
    try:
        from safetensors.torch import save_file
    except ImportError:
        raise UsageError("Exporting writes safetensors; install it with `pip install safetensors`.") from None
    config, state = config_and_state(model)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "config.json", out / "model.safetensors"]
    written[0].write_text(json.dumps(config, indent=2) + "\n")
    save_file(state, str(written[1]), metadata={"format": "pt"})
    if chars is not None:
        (out / "tokenizer.json").write_text(tokenizer_json(chars))
        (out / "tokenizer_config.json").write_text(
            json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": UNKNOWN}, indent=2) + "\n"
        )
        written += [out / "tokenizer.json", out / "tokenizer_config.json"]
    return written
