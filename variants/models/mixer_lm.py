"""A language model of residual blocks whose token mixer is a registered sequence mixer (minGRU, linear attention).

The block is the Transformer's Pre-LN block (variants/models/transformer.py) with self-attention replaced by the mixer:
x + mixer(LN(x)), then x + FFN(LN(x)) (GELU, hidden 4 d), final LN, tied embeddings (``tie_embeddings=False``
unties them), the same initialisation (``init_weights`` with the spec's ``init`` scheme: N(0, 0.02) or
N(0, 1/fan_in), residual projections scaled by the depth). Feng et al. 2024 (arXiv 2410.01201)
stack minGRU layers this way, and Katharopoulos et al. 2020 (arXiv 2006.16236) swap softmax attention for linear
attention inside an otherwise unchanged Transformer. ``forward`` runs each mixer's parallel form; ``step`` one
token with a fixed-size state per layer, for decoding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from ..ffn._base import ffns
from ..mixer._base import mixers
from ..norm._base import norms
from ..spec import FamilySpec
from .init_scheme import init_problem, init_weights


@dataclass(frozen=True)
class MixerSpec(FamilySpec):
    """A stack of Pre-LN residual blocks whose token mixer is ``mixer`` (variants/mixer/), for tokens."""

    family = "mixer"

    vocab_size: int = 256
    #: the sequence mixer (variants/mixer/): mingru, linear_attention, mamba2, gla, deltanet, gated_deltanet
    mixer: str = "mingru"
    d_model: int = 128
    n_layers: int = 2
    #: heads of a mixer that has them (all but minGRU, which ignores it)
    n_heads: int = 4
    #: FFN hidden size; None = 4 x d_model
    d_ff: int | None = None
    #: weight initialisation (variants/models/init_scheme.py): "gpt2" or "fan_in"
    init: str = "gpt2"
    #: the output layer shares the token embedding's matrix; False gives it its own
    tie_embeddings: bool = True
    #: a matrix-state mixer's key (Mamba-2: state) dimension per head; None: the mixer's default
    state_size: int | None = None
    #: tokens per chunk of a chunked mixer's training form; None: the mixer's default
    chunk_size: int | None = None
    #: a hybrid: every k-th block (k - 1, 2k - 1, ...) has softmax attention in place of ``mixer``; 0: none
    attention_every: int = 0
    #: the attention blocks' sliding window (keys each query sees); None: global attention
    window: int | None = None

    late_defaults: ClassVar[dict[str, Any]] = {
        "init": "gpt2",
        "tie_embeddings": True,
        "state_size": None,
        "chunk_size": None,
        "attention_every": 0,
        "window": None,
    }

    def mixer_options(self) -> dict[str, Any]:
        """The options given to the mixer: the ones this spec sets."""
        return mixer_options(self)

    def attention_layers(self) -> list[int]:
        """The blocks (from 0) whose mixer is softmax attention: every one for mixer=softmax_attention."""
        if self.mixer == ATTENTION:
            return list(range(self.n_layers))
        k = self.attention_every
        return [i for i in range(self.n_layers) if k >= 1 and (i + 1) % k == 0]

    def layer_mixer(self, layer: int) -> tuple[str, dict[str, Any]]:
        """(mixer name, its options) of block ``layer``."""
        if layer in self.attention_layers():
            return ATTENTION, ({"window": self.window} if self.window is not None else {})
        return self.mixer, self.mixer_options()

    def problems(self, device: str = "cpu", dtype: torch.dtype = torch.float32) -> list[str]:
        """Every reason this spec cannot be built and run (empty if it can)."""
        if self.mixer not in mixers:
            return [mixers.unknown_message(self.mixer)]
        reasons = [
            f"{name} must be at least 1, not {getattr(self, name)}"
            for name in ("vocab_size", "d_model", "n_layers", "n_heads")
            if getattr(self, name) < 1
        ]
        if bad_init := init_problem(self.init):
            reasons.append(bad_init)
        reasons += self._hybrid_problems()
        if reasons:
            return reasons
        names = {self.layer_mixer(i)[0]: self.layer_mixer(i)[1] for i in range(self.n_layers)}
        return [
            r
            for name, options in names.items()
            for r in mixers.get(name).problems(self.d_model, self.n_heads, **options)
        ]

    def _hybrid_problems(self) -> list[str]:
        """A hybrid pattern naming no layer, or a window without attention layers to apply to."""
        if not isinstance(self.attention_every, int) or self.attention_every < 0:
            return [
                f"attention_every={self.attention_every!r} is not a layer interval: give 0 (no attention blocks) or "
                f"k from 1 to n_layers={self.n_layers} (every k-th block attends)."
            ]
        if self.attention_every > self.n_layers:
            return [
                f"attention_every={self.attention_every} names no block of a {self.n_layers}-block stack: give k "
                f"from 1 to {self.n_layers}, or 0 for no attention blocks."
            ]
        if self.window is not None and not self.attention_layers():
            return [
                f"window={self.window} applies to attention blocks, and this {self.mixer} stack has none: add "
                "hybrid<k> (every k-th block attends), or leave the window unset."
            ]
        return []


#: the mixer of a hybrid's attention blocks
ATTENTION = "softmax_attention"


def mixer_options(spec: Any) -> dict[str, Any]:
    """A spec's state_size and chunk_size where it sets them (a mixer without options is built without them)."""
    return {key: getattr(spec, key) for key in ("state_size", "chunk_size") if getattr(spec, key, None) is not None}


class MixerBlock(nn.Module):
    """x (B, T, d) -> x + mixer(LN(x)) -> + FFN(LN(x)); block ``layer``'s mixer (attention in a hybrid's)."""

    def __init__(self, spec: MixerSpec, layer: int = 0):
        super().__init__()
        self.norm1_in = norms.get("layernorm")(spec.d_model)
        self.norm2_in = norms.get("layernorm")(spec.d_model)
        name, options = spec.layer_mixer(layer)
        self.mixer = mixers.get(name)(spec.d_model, spec.n_heads, **options)
        self.ffn = ffns.get("gelu")(spec.d_model, spec.d_ff or 4 * spec.d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.mixer(self.norm1_in(x))
        return x + self.ffn(self.norm2_in(x))

    def step(self, x: torch.Tensor, state: Any) -> tuple[torch.Tensor, Any]:
        """x (B, d) of one token -> (its output (B, d), the mixer's new state)."""
        y, state = self.mixer.step(self.norm1_in(x), state)
        x = x + y
        return x + self.ffn(self.norm2_in(x)), state


class MixerLM(nn.Module):
    """tokens (B, T) -> next-token logits (B, T, V) through mixer blocks; ``step`` decodes one token at a time."""

    def __init__(self, spec: MixerSpec):
        super().__init__()
        self.spec = spec
        self.embed = nn.Embedding(spec.vocab_size, spec.d_model)
        self.blocks = nn.ModuleList(MixerBlock(spec, i) for i in range(spec.n_layers))
        self.norm = norms.get("layernorm")(spec.d_model)
        self.head = nn.Linear(spec.d_model, spec.vocab_size, bias=False)
        if spec.tie_embeddings:
            self.head.weight = self.embed.weight  # tied input/output embeddings
        init_weights(self, spec, branches=2, drawn=(nn.Linear, nn.Embedding))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens) * self.embed_scale  # (B, T, d)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))

    def initial_states(self, batch: int) -> list[Any]:
        """Each layer's mixer state before the first token."""
        p = self.embed.weight
        return [b.mixer.initial_state(batch, p.device, p.dtype) for b in self.blocks]

    def step(self, token: torch.Tensor, states: list[Any]) -> tuple[torch.Tensor, list[Any]]:
        """token (B,) and each layer's state -> (logits (B, V), the new states)."""
        x = self.embed(token) * self.embed_scale  # (B, d)
        new = []
        for block, state in zip(self.blocks, states):
            x, state = block.step(x, state)
            new.append(state)
        return self.head(self.norm(x)), new

    def state_numel(self, context: int = 0) -> int:
        """Numbers of decoding state per sequence after ``context`` tokens, every layer: constant in the context
        length for a recurrent stack; a hybrid's attention blocks add their keys and values."""
        return sum(b.mixer.state_numel(context) for b in self.blocks)

    def num_parameters(self) -> int:
        """Trainable parameters, the tied embedding counted once."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)


def build(spec: MixerSpec) -> MixerLM:
    """The model a spec describes."""
    return MixerLM(spec)
