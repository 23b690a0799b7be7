"""Language-model helpers shared by suites: random training batches and windowed evaluation.

Two evaluation protocols (Press et al. 2022 name both; every table names the one it used):
- ``nonoverlapping``: the held-out tokens are cut into windows of the evaluation length and every
  token is scored; early tokens of each window see little context.
- ``sliding``: windows of the evaluation length advance by ``stride`` tokens and only the last
  ``stride`` targets of each window are scored (all of the first window's), so almost every token
  sees at least ``length - stride`` tokens of context. It costs length / stride times more.
"""

from __future__ import annotations

from collections.abc import Iterator

import torch
from torch.nn import functional as F

PROTOCOLS = ("nonoverlapping", "sliding")


def random_batch(
    ids: torch.Tensor, batch_size: int, length: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs, targets), each (batch_size, length), from random offsets of the 1-D id tensor, on its device.

    The offsets come from the CPU ``generator`` (the same batches on every device); the windows are one
    gather on the device that holds ``ids``, so a training whose text lives on the GPU copies no batch per step.
    """
    starts = torch.randint(0, ids.numel() - length - 1, (batch_size,), generator=generator)
    index = starts[:, None] + torch.arange(length + 1)  # (B, L + 1) positions in ids
    window = ids[index.to(ids.device, non_blocking=True)]  # (B, L + 1)
    return window[:, :-1], window[:, 1:]


def lm_loss(model, inputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean next-token cross-entropy in nats per token."""
    logits = model(inputs)  # (B, T, V)
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def eval_windows(n_targets: int, length: int, protocol: str, stride: int) -> Iterator[tuple[int, int]]:
    """(window start, first scored position within the window) for every window of the protocol."""
    if protocol == "nonoverlapping":
        for start in range(0, n_targets - length + 1, length):
            yield start, 0
    elif protocol == "sliding":
        for start in range(0, n_targets - length + 1, stride):
            yield start, 0 if start == 0 else length - stride
    else:
        raise ValueError(f"Unknown protocol '{protocol}'; choose one of {', '.join(PROTOCOLS)}.")


@torch.inference_mode()
def evaluate_nll(
    model,
    ids: torch.Tensor,
    length: int,
    *,
    protocol: str = "nonoverlapping",
    stride: int = 0,
    batch_tokens: int = 16384,
    device: str = "cpu",
) -> tuple[float, int]:
    """(total negative log-likelihood in nats, number of scored tokens) of ``ids`` under a protocol.

    ``ids`` holds n + 1 tokens: n inputs and their n next-token targets.
    """
    windows = list(eval_windows(ids.numel() - 1, length, protocol, stride))
    per_batch = max(1, batch_tokens // length)
    total, count = 0.0, 0
    for i in range(0, len(windows), per_batch):
        chunk = windows[i : i + per_batch]
        inputs = torch.stack([ids[s : s + length] for s, _ in chunk]).to(device)  # (b, length)
        targets = torch.stack([ids[s + 1 : s + length + 1] for s, _ in chunk]).to(device)
        logits = model(inputs).float()  # (b, length, V)
        nll = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")  # (b, length)
        for row, (_, first) in enumerate(chunk):
            total += nll[row, first:].sum().item()
            count += length - first
    return total, count


def xavier_init(model) -> None:
    """Xavier-uniform every linear layer but the output layer tied to the embedding.

    The original Transformer's initialisation (tensor2tensor, fairseq): a projection keeps unit-variance
    inputs at unit variance, so queries and keys start with unit-variance components, the regime that
    Vaswani et al.'s 1/sqrt(d_k) argument and Xiong et al.'s Post-LN analysis assume. The models' own
    default (std 0.02, GPT-2) starts with scores near zero, where neither effect shows at initialisation.
    """
    from torch import nn

    tied = model.embed.weight
    for module in model.modules():
        if isinstance(module, nn.Linear) and module.weight is not tied:
            nn.init.xavier_uniform_(module.weight)
