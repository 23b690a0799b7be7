"""set.finetune_task=text: the fine-tuning reads plain windows of the training split and scores every position."""

import torch
from torch import nn

from harness.contract import JobContext, suites
from harness.overrides import apply_overrides


class Recorder(nn.Module):
    """Uniform logits over a vocabulary of 10; keeps every input batch it saw."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def forward(self, x):  # (B, T) -> (B, T, 10)
        self.seen.append(x.clone())
        return torch.zeros(*x.shape, 10)


def test_each_step_is_next_character_loss_over_windows_of_the_split():
    suite = suites.get("retrieval_length")
    ids = torch.arange(100) % 10  # a split whose next character is always the previous + 1 (mod 10)
    ctx = JobContext(device="cpu", dtype=torch.float32)
    step_loss = suite._text_loss(ids, batch=3, length=16, rng=torch.Generator().manual_seed(0), ctx=ctx)
    model = Recorder()
    loss, tokens = step_loss(model, 0)
    assert tokens == 3 * 16
    assert torch.isclose(loss, torch.log(torch.tensor(10.0)))  # uniform logits: log V at every position
    (x,) = model.seen
    assert x.shape == (3, 16) and torch.equal((x[:, 1:] - x[:, :-1]) % 10, torch.ones(3, 15, dtype=x.dtype))


def test_the_task_changes_no_pretrained_weights_key():
    from suites.retrieval_length.suite import EVAL_SETTINGS

    profile = suites.get("retrieval_length").profiles["standard"]
    text = apply_overrides(profile, {"finetune_task": "text"})
    assert "finetune_task" in EVAL_SETTINGS
    kept = {k: v for k, v in text.settings().items() if k not in EVAL_SETTINGS}
    assert kept == {k: v for k, v in profile.settings().items() if k not in EVAL_SETTINGS}


def test_a_mixed_step_averages_the_text_and_the_task_losses_and_counts_both_batches():
    from suites.retrieval_length.suite import mixed

    step = mixed(lambda m, s: (torch.tensor(2.0), 30), lambda m, s: (torch.tensor(4.0), 10))
    loss, tokens = step(None, 0)
    assert float(loss) == 3.0 and tokens == 40
    profile = suites.get("retrieval_length").profiles["standard"]
    assert apply_overrides(profile, {"finetune_task": "mixed"}).finetune_task == "mixed"
