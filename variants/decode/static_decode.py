"""Decoding whose per-token step is captured in a CUDA graph and replayed: one launch per token.

A decode step of a small model is a few hundred short kernels; launched one by one from Python, a GPU
waits on the host between them (the step is launch-bound). A CUDA graph records the step's kernels once and
replays them in one launch, but only a step whose shapes and host work are the same at every position can be
recorded. ``StaticDecoder`` makes the DecoderLM's step such a step without a second model: each layer's
cache is a StaticLayerCache (variants/decode/static_cache.py) of fixed capacity whose position is a device tensor
(DevicePosition, variants/position/_tables.py). The step writes its K/V there with ``index_copy_``, position
hooks read their tables at that position on the device, and attention reads every slot with the slots past
the position masked. The prompt is prefilled eagerly through a LayerCache over the same buffers.

On CUDA the step is captured on the first call (after warm-up steps on a side stream, as torch.cuda.graphs
asks); elsewhere, or with ``graph=False``, the same step runs eagerly, which is how the CPU tests check that
it decodes exactly as the ordinary cache does. Encodings whose hooks need host offsets (T5 buckets,
randomized positions, a RoPE scaling that reads the length) say why they cannot (``static_problem``).
"""

from __future__ import annotations

import torch
from torch import nn

from ..position._tables import DevicePosition
from .kv_cache import LayerCache
from .static_cache import StaticLayerCache

#: eager steps on a side stream before capture (torch.cuda.graphs: lazy initialisation must not be recorded)
WARMUP_STEPS = 3


class StaticDecoder:
    """Greedy decoding of a DecoderLM for ``batch`` sequences of at most ``capacity`` tokens, each step one
    CUDA-graph replay on CUDA (``graph=None``: capture exactly there)."""

    def __init__(self, model: nn.Module, batch: int, capacity: int, graph: bool | None = None) -> None:
        problem = model.position.static_problem()
        if problem:
            raise ValueError(f"cannot capture the decode step of this model: {problem}")
        spec, param = model.spec, next(model.parameters())
        self.model, self.capacity = model, capacity
        self.graph_wanted = param.is_cuda if graph is None else graph
        if self.graph_wanted and not param.is_cuda:
            raise ValueError("a CUDA graph needs the model on a CUDA device")
        shape = (batch, spec.kv_heads, capacity, spec.head_dim)
        self.buffers: list[tuple[torch.Tensor, torch.Tensor]] = [
            (param.new_zeros(shape), param.new_zeros(shape)) for _ in range(spec.n_layers)
        ]  # (B, Hkv, C, Dh) each
        self.index = torch.zeros(1, dtype=torch.long, device=param.device)  # the step's position
        position = DevicePosition(self.index, capacity)
        self.caches = [StaticLayerCache(k, v, position) for k, v in self.buffers]
        self.token = torch.zeros(batch, 1, dtype=torch.long, device=param.device)  # the step's input, (B, 1)
        self.logits: torch.Tensor | None = None  # the step's output, (B, V)
        self.graph: torch.cuda.CUDAGraph | None = None

    def _step(self) -> None:
        """One step at position ``index``: K/V written there, last logits into ``self.logits``; shapes fixed."""
        logits, _ = self.model(self.token, caches=self.caches)
        self.logits = logits[:, -1]

    @torch.inference_mode()
    def prefill(self, prompt: torch.Tensor) -> torch.Tensor:
        """Encode ``prompt`` (B, P) eagerly into the buffers; the next step is at position P. Returns (B, V)."""
        if prompt.shape[1] >= self.capacity:
            raise ValueError(f"a prompt of {prompt.shape[1]} tokens leaves no room in a capacity of {self.capacity}")
        logits, _ = self.model(prompt, caches=[LayerCache(k, v, 0) for k, v in self.buffers])  # written in place
        self.index.fill_(prompt.shape[1])
        return logits[:, -1]

    def _capture(self) -> None:
        """Warm up on a side stream, then record ``_step`` (at the current position, restored after warm-up)."""
        start = self.index.clone()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(WARMUP_STEPS):
                self._step()  # writes the current slot each time, which the real step overwrites
        torch.cuda.current_stream().wait_stream(stream)
        self.index.copy_(start)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self._step()

    def replay(self) -> None:
        """The step at the current position, without advancing it (what timing repeats)."""
        if self.graph_wanted and self.graph is None:
            self._capture()
        if self.graph is not None:
            self.graph.replay()
        else:
            self._step()

    @torch.inference_mode()
    def step(self, token: torch.Tensor) -> torch.Tensor:
        """Feed ``token`` (B, 1) at the current position and advance it; returns the next logits (B, V).
        The returned tensor is overwritten by the next step: clone it to keep it."""
        self.token.copy_(token)
        self.replay()
        self.index.add_(1)
        return self.logits

    @torch.inference_mode()
    def generate(self, prompt: torch.Tensor, steps: int) -> torch.Tensor:
        """``steps`` greedy tokens after ``prompt`` (B, P): (B, steps)."""
        if prompt.shape[1] + steps > self.capacity:
            raise ValueError(f"{prompt.shape[1]} prompt tokens and {steps} steps exceed the capacity {self.capacity}")
        nxt = self.prefill(prompt).argmax(dim=-1, keepdim=True)  # (B, 1)
        out = [nxt]
        for _ in range(steps - 1):
            nxt = self.step(nxt).argmax(dim=-1, keepdim=True)
            out.append(nxt)
        return torch.cat(out, dim=1)
