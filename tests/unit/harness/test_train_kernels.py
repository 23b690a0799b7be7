"""The training loop's optimiser and clipping kernels: AdamW fused on CPU, SGD as asked, clipping of every tensor."""

import torch
from torch import nn

from harness.train import TrainSettings, make_optimizer, train


def _model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Embedding(11, 8), nn.LayerNorm(8), nn.Linear(8, 11))


def test_adamw_is_fused_on_cpu_with_the_decay_groups():
    opt = make_optimizer(_model(), TrainSettings(steps=1, lr=1e-3))
    assert isinstance(opt, torch.optim.AdamW) and opt.defaults["fused"] is True
    # matrices (the embedding, the linear weight) decay; the norm's gain and bias and the linear bias do not
    assert [len(g["params"]) for g in opt.param_groups] == [2, 3]
    assert [g["weight_decay"] for g in opt.param_groups] == [0.1, 0.0]


def test_sgd_is_not_affected():
    opt = make_optimizer(_model(), TrainSettings(steps=1, lr=1e-3, optimizer="sgd", momentum=0.9))
    assert isinstance(opt, torch.optim.SGD) and opt.defaults["momentum"] == 0.9


def test_clipping_bounds_the_norm_of_every_gradient():
    # a learning rate of 0 leaves the weights, so the clipped gradients are those of the first batch
    model = _model()
    data = torch.randint(0, 11, (4, 9), generator=torch.Generator().manual_seed(1))

    def step_loss(m, step):
        logits = m(data[:, :-1]) * 50.0  # large logits: a gradient norm far above the clip
        return nn.functional.cross_entropy(logits.flatten(0, 1), data[:, 1:].flatten()), 32

    result = train(model, step_loss, TrainSettings(steps=1, lr=0.0, grad_clip=0.5), progress=False)
    clipped = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad) for p in model.parameters()]))
    assert result.grad_norms[0] > 0.5 and abs(clipped.item() - 0.5) < 1e-5
