"""RNN encoder-decoder (Cho et al. 2014; Sutskever et al. 2014), with Bahdanau's or Luong's attention decoder.

The encoder reads the source (optionally both ways, or in reverse word order as Sutskever et al. 2014, arXiv
1409.3215, section 3.3) and the decoder starts from its final state. Without
attention that state is all the decoder ever sees of the source: the fixed-vector bottleneck whose BLEU
falls on long sentences (Bahdanau et al. 2014, Figure 2). With attention the decoder also reads a
context vector over every encoder state at every step; the spec's ``decoder`` says where in the step:
- ``bahdanau`` (Bahdanau, Cho & Bengio 2014, arXiv 1409.0473, section 3.1 and appendix A.2.2): the
  previous state s_{i-1} scores the source states, the context c_i joins the previous word's embedding as
  the RNN's input, s_i = f(s_{i-1}, y_{i-1}, c_i), and a maxout layer over [s_i; c_i; E y_{i-1}]
  predicts y_i (section 3.1, eq. 4, conditions on s_i; the appendix writes s_{i-1});
- ``luong`` (Luong, Pham & Manning 2015, arXiv 1508.04025, section 3): the RNN steps first, the new state
  h_t scores the source states, and the attentional state tanh(W_c [c_t; h_t]) predicts the next word
  (no input feeding).
The score function (additive, dot, general) is the spec's ``scoring`` axis, from the registry the
Transformer uses (``variants/models/rnn_attention.py``). Source and target share one embedding table (one joint
vocabulary). Training is teacher-forced: the decoder reads the reference prefix.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from ..seq2seq_spec import PAD, RNNSeq2SeqSpec
from .rnn_attention import GlobalAttention
from .rnn_cells import RNN_CELLS

State = dict[str, torch.Tensor]  # every tensor batch-first, so beam search can reorder it with index_select


def reversed_words(lengths: torch.Tensor, width: int) -> torch.Tensor:
    """The gather index (B, width) that reverses each row's words and keeps its EOS last and its padding in place.

    lengths (B,) counts each row's tokens, EOS included (sources end with EOS); row b reads positions
    lengths[b] - 2, ..., 0, then lengths[b] - 1 (EOS), then its padding. Applied twice it is the identity.
    """
    i = torch.arange(width, device=lengths.device).unsqueeze(0)  # (1, width)
    last = (lengths - 1).unsqueeze(1)  # (B, 1): EOS's position
    return torch.where(i < last, last - 1 - i, i)


class RNNSeq2Seq(nn.Module):
    """Source tokens (B, S) and target prefix (B, T) -> next-token logits (B, T, V)."""

    def __init__(self, spec: RNNSeq2SeqSpec):
        super().__init__()
        self.spec = spec
        H, L = spec.d_hidden, spec.n_layers
        self.is_lstm = spec.cell == "lstm"
        cell = RNN_CELLS[spec.cell]  # spec.problems() admits rnn (tanh), gru and lstm (seq2seq_spec.CELLS)
        cls = cell.module
        kwargs = dict(batch_first=True, dropout=spec.dropout if L > 1 else 0.0, **cell.options)
        self.embed = nn.Embedding(spec.vocab_size, spec.d_embed, padding_idx=PAD)
        self.encoder = cls(spec.d_embed, H, L, bidirectional=spec.bidirectional, **kwargs)
        # the Bahdanau decoder reads [E y_{i-1}; c_i] at each step (c_i has size H: memory_proj maps 2H -> H)
        self.bahdanau = spec.scoring != "none" and spec.decoder == "bahdanau"
        self.decoder = cls(spec.d_embed + (H if self.bahdanau else 0), H, L, **kwargs)
        if spec.bidirectional:
            # Bahdanau et al. 2014, appendix A.2.2: the decoder's first state is tanh(W_s [h_fwd; h_bwd])
            self.bridge_h = nn.Linear(2 * H, H)
            self.bridge_c = nn.Linear(2 * H, H) if self.is_lstm else None
            self.memory_proj = nn.Linear(2 * H, H, bias=False) if spec.scoring != "none" else None
        self.attention: GlobalAttention | None = None
        if spec.scoring != "none":
            self.attention = GlobalAttention(spec.scoring, H)
            if self.bahdanau:
                # t~_i = U_o s_i + C_o c_i + V_o E y_{i-1}, maxout over pairs -> H (appendix A.2.2)
                self.readout = nn.Linear(2 * H + spec.d_embed, 2 * H)
            else:
                self.combine = nn.Linear(2 * H, H, bias=False)  # W_c of tanh(W_c [c_t; h_t])
        self.drop = nn.Dropout(spec.dropout)
        self.out = nn.Linear(H, spec.vocab_size)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    # --- encoder
    def start(self, src: torch.Tensor) -> State:
        """Encode src (B, S), right-padded with PAD; returns the decoder's initial state and the memory."""
        B, S = src.shape
        pad = src.eq(PAD)  # (B, S)
        lengths = (~pad).sum(1).clamp(min=1)
        order = reversed_words(lengths, S) if self.spec.reverse_source else None  # (B, S) or None
        read = src.gather(1, order) if order is not None else src
        packed = pack_padded_sequence(
            self.drop(self.embed(read)), lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        outputs, final = self.encoder(packed)
        memory = pad_packed_sequence(outputs, batch_first=True, total_length=S)[0]  # (B, S, H or 2H)
        if order is not None:
            # the permutation is its own inverse: memory[b, j] is again the state at source word j, so attention
            # weights stay in the source's own order
            memory = memory.gather(1, order.unsqueeze(-1).expand_as(memory))
        h, c = final if self.is_lstm else (final, None)  # each (L * dirs, B, H)
        if self.spec.bidirectional:
            h = torch.tanh(self.bridge_h(self._join_directions(h)))  # (L, B, H)
            c = self.bridge_c(self._join_directions(c)) if c is not None else None
            if self.memory_proj is not None:
                memory = self.memory_proj(memory)
        state: State = {"h": h.transpose(0, 1), "pad": pad}  # h: (B, L, H)
        if c is not None:
            state["c"] = c.transpose(0, 1)
        if self.attention is not None:
            state["memory"] = memory
        return state

    def _join_directions(self, x: torch.Tensor) -> torch.Tensor:
        """(L * 2, B, H) final states, forward and backward per layer -> (L, B, 2H)."""
        L2, B, H = x.shape
        return x.view(L2 // 2, 2, B, H).transpose(1, 2).reshape(L2 // 2, B, 2 * H)

    # --- decoder
    def _decode(self, state: State, tokens: torch.Tensor) -> tuple[torch.Tensor, State, torch.Tensor | None]:
        """tokens (B, T) -> logits (B, T, V), the state after them, attention weights (B, T, S) or None."""
        hidden = state["h"].transpose(0, 1).contiguous()  # (L, B, H)
        if self.is_lstm:
            hidden = (hidden, state["c"].transpose(0, 1).contiguous())
        embedded = self.drop(self.embed(tokens))  # (B, T, E)
        weights = None
        if self.bahdanau:
            outputs, hidden, weights = self._bahdanau_steps(state, embedded, hidden)
        else:
            outputs, hidden = self.decoder(embedded, hidden)  # (B, T, H): h_t of the top layer
            if self.attention is not None:  # Luong: score from the new state h_t, then combine
                context, weights = self.attention(outputs, state["memory"], state["memory"], state["pad"])
                outputs = torch.tanh(self.combine(torch.cat((context, outputs), dim=-1)))  # attentional state
        new = dict(state)
        h, c = hidden if self.is_lstm else (hidden, None)
        new["h"] = h.transpose(0, 1)
        if c is not None:
            new["c"] = c.transpose(0, 1)
        return self.out(self.drop(outputs)), new, weights

    def _bahdanau_steps(self, state: State, embedded: torch.Tensor, hidden):
        """Bahdanau et al. 2014, section 3.1: c_i from s_{i-1}, then s_i = f(s_{i-1}, y_{i-1}, c_i), one step at a time.

        embedded (B, T, E); returns the maxout outputs (B, T, H), the final hidden state and the weights (B, T, S).
        The context enters the recurrence, so the T steps cannot run as one fused RNN call.
        """
        memory, pad = state["memory"], state["pad"]  # (B, S, H), (B, S)
        prepared = self.attention.prepare(memory)  # U_a h_j once per sentence, not once per target step
        outputs, weights = [], []
        for i in range(embedded.shape[1]):
            previous = (hidden[0] if self.is_lstm else hidden)[-1].unsqueeze(1)  # s_{i-1}: top layer, (B, 1, H)
            context, w = self.attention(previous, memory, memory, pad, prepared)  # (B, 1, H), (B, 1, S)
            word = embedded[:, i : i + 1]  # E y_{i-1}, (B, 1, E)
            s, hidden = self.decoder(torch.cat((word, context), dim=-1), hidden)  # s_i, (B, 1, H)
            t = self.readout(torch.cat((s, context, word), dim=-1))  # (B, 1, 2H)
            outputs.append(t.unflatten(-1, (-1, 2)).amax(-1))  # maxout with pools of 2 -> (B, 1, H)
            weights.append(w)
        return torch.cat(outputs, 1), hidden, torch.cat(weights, 1)

    def forward(self, src: torch.Tensor, tgt_in: torch.Tensor, return_attention: bool = False):
        """Teacher forcing: src (B, S), tgt_in (B, T) = BOS + reference -> logits (B, T, V)."""
        logits, _, weights = self._decode(self.start(src), tgt_in)
        return (logits, weights) if return_attention else logits

    def step(self, state: State, tokens: torch.Tensor) -> tuple[torch.Tensor, State]:
        """One decoding step: tokens (N,) -> next-token log-probabilities (N, V) and the new state."""
        logits, new, _ = self._decode(state, tokens.unsqueeze(1))
        return torch.log_softmax(logits[:, -1].float(), dim=-1), new


def build(spec: RNNSeq2SeqSpec) -> RNNSeq2Seq:
    """The model a spec describes."""
    return RNNSeq2Seq(spec)
