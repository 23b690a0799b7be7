"""A short fine-tune of trained weights at a longer length, as context-extension papers do after changing RoPE.

Chen et al. 2023 (Position Interpolation, arXiv 2306.15595) fine-tune Llama for about 1000 steps at the extended
length; Peng et al. 2023 (YaRN, arXiv 2309.00071) for about 400. Both use a small constant learning rate after a
short warm-up and no weight decay; here the rate is ``FINETUNE_LR`` of the training's peak rate, constant after a
10% warm-up. position_extrapolation and retrieval_length fine-tune with these settings, so their arms compare.
"""

from __future__ import annotations

from harness.train import TrainSettings
from variants.models.transformer import build
from variants.spec import TransformerSpec

#: fine-tuning runs at this fraction of the training learning rate, constant after a 10% warm-up, no weight decay
FINETUNE_LR = 0.1


def finetune_settings(steps: int, lr: float, grad_clip: float) -> TrainSettings:
    """The optimiser settings of ``steps`` fine-tuning steps after a training at peak rate ``lr``."""
    return TrainSettings(
        steps=steps,
        lr=FINETUNE_LR * lr,
        warmup_steps=max(1, steps // 10),
        min_lr_ratio=1.0,
        weight_decay=0.0,
        grad_clip=grad_clip,
    )


def with_weights(spec: TransformerSpec, state, device: str):
    """The model of ``spec`` holding ``state`` (trained weights of the same architecture), in eval mode."""
    model = build(spec).to(device)
    model.load_state_dict(state)
    return model.eval()


def tokens_batch(batch_size: int, train_len: int, length: int) -> int:
    """Sequences per fine-tuning step at ``length``: about the training's tokens per step (batch_size x train_len)."""
    return max(1, batch_size * train_len // length)
