"""A Hugging Face model config read as bench's spec: the shapes a cost suite measures a real architecture at.

``spec_fields(path)`` reads a local ``config.json`` (or a folder holding one; nothing is downloaded) and gives the
TransformerSpec fields of its architecture: Llama, Mistral and Qwen2 as RoPE + RMSNorm + SwiGLU with their
key/value heads (Mistral's sliding window as ``window``), GPT-2 as learned positions + LayerNorm + GELU. Any other
``model_type``, or a head size other than hidden / heads, is refused with one sentence naming the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import UserError

#: model_type -> what bench calls its position, norm and feed-forward
FAMILIES = {
    "llama": ("rope", "rmsnorm", "swiglu"),
    "mistral": ("rope", "rmsnorm", "swiglu"),
    "qwen2": ("rope", "rmsnorm", "swiglu"),
    "gpt2": ("learned", "layernorm", "gelu"),
}


class ConfigError(UserError):
    """A Hugging Face config bench cannot read as a spec: one sentence naming the key."""


def read(path: str | Path) -> dict[str, Any]:
    """The config at ``path`` (a config.json, or a folder holding one)."""
    file = Path(path).expanduser()
    file = file / "config.json" if file.is_dir() else file
    try:
        config = json.loads(file.read_text())
    except FileNotFoundError:
        raise ConfigError(f"model=hf:{path} names no config.json (give a file or a folder that holds one).") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"model=hf:{path} is not a readable JSON config ({exc}).") from None
    if not isinstance(config, dict):
        raise ConfigError(f"model=hf:{path} holds no JSON object.")
    return config


def _get(config: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if config.get(key) is not None:
            return config[key]
    raise ConfigError(f"the config has no {' or '.join(keys)}.")


def spec_fields(path: str | Path) -> dict[str, Any]:
    """TransformerSpec fields (vocab_size, d_model, n_layers, n_heads, n_kv_heads, d_ff, position, norm, ffn, window)
    of the config at ``path``."""
    config = read(path)
    kind = config.get("model_type")
    if kind not in FAMILIES:
        raise ConfigError(f"model_type={kind} has no bench spec; it reads model_type {', '.join(FAMILIES)}.")
    position, norm, ffn = FAMILIES[kind]
    d_model = int(_get(config, "hidden_size", "n_embd"))
    heads = int(_get(config, "num_attention_heads", "n_head"))
    head_dim = config.get("head_dim")
    if head_dim is not None and int(head_dim) * heads != d_model:
        raise ConfigError(
            f"head_dim={head_dim} x num_attention_heads={heads} is not hidden_size={d_model}; bench's attention has "
            "heads of d_model / n_heads."
        )
    kv = config.get("num_key_value_heads")
    fields = {
        "vocab_size": int(_get(config, "vocab_size")),
        "d_model": d_model,
        "n_layers": int(_get(config, "num_hidden_layers", "n_layer")),
        "n_heads": heads,
        "n_kv_heads": None if kv is None or int(kv) == heads else int(kv),
        "d_ff": _d_ff(int(config.get("intermediate_size") or config.get("n_inner") or 4 * d_model), ffn),
        "position": position,
        "norm": norm,
        "ffn": ffn,
    }
    if kind == "mistral" and config.get("sliding_window"):
        fields["window"] = int(config["sliding_window"])
    return fields


def _d_ff(hidden: int, ffn: str) -> int:
    """bench's d_ff for a feed-forward of ``hidden`` units: SwiGLU's hidden is round(2/3 d_ff) (its three matrices
    match two of d_ff), so the d_ff near 1.5 x hidden that gives exactly ``hidden``."""
    if ffn != "swiglu":
        return hidden
    from .ffn.swiglu import swiglu_hidden

    near = int(1.5 * hidden)
    return next(c for c in range(near - 2, near + 3) if swiglu_hidden(c) == hidden)
