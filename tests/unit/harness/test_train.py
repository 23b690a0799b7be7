"""The training loop: schedule, clipping, divergence detection."""

import json
import math

import pytest
import torch

from harness.contract import Diverged
from harness.train import TrainSettings, lr_at, train
from tests.tiny import DECODER, tiny


def test_warmup_is_linear_then_cosine_decays_to_the_floor():
    s = TrainSettings(steps=110, lr=1.0, warmup_steps=10, min_lr_ratio=0.1)
    assert lr_at(0, s) == pytest.approx(0.1)
    assert lr_at(9, s) == pytest.approx(1.0)
    assert lr_at(10, s) == pytest.approx(1.0)
    assert lr_at(60, s) == pytest.approx(0.55)
    assert lr_at(110, s) == pytest.approx(0.1)


def test_training_reduces_the_loss_of_a_linear_regression():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    x = torch.randn(64, 4)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    result = train(
        model,
        lambda m, step: (((m(x) - y) ** 2).mean(), 64),
        TrainSettings(steps=200, lr=0.05, weight_decay=0.0),
        progress=False,
    )
    assert result.final_loss < 0.05 * result.losses[0]
    assert result.tokens == 200 * 64


def test_a_non_finite_loss_raises_diverged():
    model = torch.nn.Linear(2, 1)
    with pytest.raises(Diverged, match="nan"):
        train(
            model,
            lambda m, step: (m(torch.ones(1, 2)).sum() * (math.nan if step == 3 else 1.0), 1),
            TrainSettings(steps=10, lr=1e-3),
            progress=False,
        )


def test_a_loss_far_above_its_start_raises_diverged():
    model = torch.nn.Linear(2, 1)
    losses = [1.0, 1.2, 5.0]
    with pytest.raises(Diverged, match="exceeds"):
        train(
            model,
            lambda m, step: (m(torch.ones(1, 2)).sum() * 0 + losses[step], 1),
            TrainSettings(steps=3, lr=1e-3),
            progress=False,
        )


def test_gradient_norms_are_clipped():
    model = torch.nn.Linear(2, 1)
    result = train(
        model,
        lambda m, step: (1e6 * m(torch.ones(1, 2)).sum(), 1),
        TrainSettings(steps=1, lr=1e-9, grad_clip=1.0, divergence_factor=1e12),
        progress=False,
    )
    assert result.grad_norms[0] > 1.0  # the norm before clipping is reported


# --- losses and gradient norms stay on the device; divergence is checked every check_every steps


def _tiny_lm(seed=0):
    from variants.models.transformer import build
    from variants.spec import TransformerSpec

    torch.manual_seed(seed)
    return build(TransformerSpec(vocab_size=11, d_model=16, n_layers=1, n_heads=2, max_len=12))


def _lm_loss_fn(seed=0):
    gen = torch.Generator().manual_seed(seed)

    def step_loss(m, step):
        x = torch.randint(0, 11, (3, 13), generator=gen)
        logits = m(x[:, :-1])
        return torch.nn.functional.cross_entropy(logits.flatten(0, 1), x[:, 1:].flatten()), 36

    return step_loss


def _legacy_train(model, loss_fn, settings):
    """The loop as it was: every step's loss and gradient norm read back (and checked) before the next."""
    from harness.train import make_optimizer

    opt = make_optimizer(model, settings)
    losses, norms = [], []
    model.train()
    for step in range(settings.steps):
        for group in opt.param_groups:
            group["lr"] = lr_at(step, settings)
        loss, _ = loss_fn(model, step)
        value = loss.item()
        if not math.isfinite(value):
            raise Diverged(f"loss became {value} at step {step}")
        if losses and value > settings.divergence_factor * max(losses[0], 1e-8):
            raise Diverged(
                f"loss {value:.3g} at step {step} exceeds {settings.divergence_factor}x its start {losses[0]:.3g}"
            )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), settings.grad_clip)
        opt.step()
        losses.append(value)
        norms.append(float(norm))
    return losses, norms


@pytest.mark.parametrize("check_every", [1, 3, 50])
def test_losses_norms_and_weights_are_bit_identical_to_checking_every_step(check_every):
    settings = TrainSettings(steps=7, lr=3e-3, warmup_steps=2, check_every=check_every)
    old = _tiny_lm()
    want_losses, want_norms = _legacy_train(old, _lm_loss_fn(), settings)
    new = _tiny_lm()
    result = train(new, _lm_loss_fn(), settings, progress=False)
    assert result.losses == want_losses and result.grad_norms == want_norms
    assert all(torch.equal(a, b) for a, b in zip(old.state_dict().values(), new.state_dict().values()))


def test_losses_are_read_back_only_at_checks(monkeypatch):
    import traceback

    reads = {"tolist": 0, "item": 0, "float": 0}
    for name, attr in (("tolist", "tolist"), ("item", "item"), ("float", "__float__")):
        original = getattr(torch.Tensor, attr)

        def counting(self, *args, _name=name, _original=original):
            caller = traceback.extract_stack(limit=2)[0].filename
            if "torch/optim" not in caller:  # AdamW reads its step counter, a CPU tensor even on a GPU
                reads[_name] += 1
            return _original(self, *args)

        monkeypatch.setattr(torch.Tensor, attr, counting)
    result = train(_tiny_lm(), _lm_loss_fn(), TrainSettings(steps=10, lr=1e-3, check_every=4), progress=False)
    assert len(result.losses) == len(result.grad_norms) == 10
    assert reads == {"tolist": 2 * 3, "item": 0, "float": 0}  # losses and norms at steps 4, 8 and the end


@pytest.mark.parametrize("bad_step,kind", [(0, "nan"), (5, "nan"), (6, "inf"), (9, "large")])
def test_divergence_between_checks_names_the_step_where_it_happened(bad_step, kind):
    calls = []
    values = {"nan": math.nan, "inf": math.inf, "large": 100.0}

    def step_loss(m, step):
        calls.append(step)
        base = m(torch.ones(1, 2)).sum() * 0 + 1.0
        return (base * values[kind] if step == bad_step else base), 1

    with pytest.raises(Diverged) as err:
        train(torch.nn.Linear(2, 1), step_loss, TrainSettings(steps=20, lr=1e-3, check_every=4), progress=False)
    expected = {
        "nan": f"loss became nan at step {bad_step}",
        "inf": f"loss became inf at step {bad_step}",
        "large": f"loss 100 at step {bad_step} exceeds 3.0x its start 1",
    }[kind]
    assert str(err.value) == expected
    assert calls[-1] == min(19, (bad_step // 4 + 1) * 4 - 1)  # found at the check that follows it


def test_a_step_that_fails_after_a_divergence_reports_the_divergence():
    def step_loss(m, step):
        if step == 3:
            raise RuntimeError("a kernel refused NaN input")
        base = m(torch.ones(1, 2)).sum() * 0 + 1.0
        return (base * math.nan if step == 1 else base), 1

    with pytest.raises(Diverged, match="loss became nan at step 1"):
        train(torch.nn.Linear(2, 1), step_loss, TrainSettings(steps=10, lr=1e-3, check_every=50), progress=False)


def test_compiling_hands_the_loss_function_the_compiled_model(monkeypatch):
    from harness.train import compile_mode, compile_requested, compiling

    compiled = []

    def fake_compile(model, mode=None):
        compiled.append(model)
        modes.append(mode)
        return torch.nn.Sequential(model)  # the same parameters behind another module

    modes = []

    monkeypatch.setattr(torch, "compile", fake_compile)
    model = torch.nn.Linear(2, 1)
    seen = []

    def step_loss(m, step):
        seen.append(m)
        return m(torch.ones(1, 2)).sum() ** 2, 1

    train(model, step_loss, TrainSettings(steps=2, lr=1e-3), progress=False)
    assert not compiled and seen[0] is model
    with compiling(True):
        assert compile_requested(TrainSettings(steps=1, lr=1.0))
        assert not compile_requested(TrainSettings(steps=1, lr=1.0, compile=False))
        train(model, step_loss, TrainSettings(steps=2, lr=1e-3), progress=False)
    assert compiled == [model] and isinstance(seen[-1], torch.nn.Sequential) and seen[-1][0] is model
    assert not compile_requested(TrainSettings(steps=1, lr=1.0))
    with compiling(False, cuda_graphs=True):  # set.cuda_graphs=true compiles, capturing CUDA graphs
        train(model, step_loss, TrainSettings(steps=2, lr=1e-3), progress=False)
        assert compile_mode(TrainSettings(steps=1, lr=1.0, compile=False)) is None  # a training's own choice wins
    with compiling(True):
        assert compile_mode(TrainSettings(steps=1, lr=1.0)) == "default"
    assert compile_mode(TrainSettings(steps=1, lr=1.0, compile=True)) == "default"
    assert modes == ["default", "reduce-overhead"]


@pytest.mark.gpu
def test_training_on_cuda_synchronises_only_at_checks():
    import warnings

    model = _tiny_lm().cuda()
    data = torch.randint(0, 11, (3, 13), device="cuda")

    def step_loss(m, step):
        logits = m(data[:, :-1])
        return torch.nn.functional.cross_entropy(logits.flatten(0, 1), data[:, 1:].flatten()), 36

    train(model, step_loss, TrainSettings(steps=3, lr=1e-3), progress=False)  # warm-up: lazy initialisation syncs
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            train(model, step_loss, TrainSettings(steps=40, lr=1e-3, check_every=20), progress=False)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    syncs = [w for w in caught if "synchroniz" in str(w.message).lower()]
    assert len(syncs) <= 2 * 2, [str(w.message) for w in syncs]  # losses and norms at the two checks


# --- set.compile=true: a profile setting that reaches every training of a job


def test_compile_is_a_profile_setting_left_out_of_the_identity_when_off():
    import dataclasses

    from harness.contract import suites
    from harness.overrides import apply_overrides

    for name in suites.names():
        for profile in suites.get(name).profiles.values():
            for key in ("compile", "cuda_graphs"):
                assert key not in profile.settings(), (name, profile.name, key)  # stored jobs keep their hashes
                on = apply_overrides(profile, {key: "true"})
                assert getattr(on, key) is True and on.settings()[key] is True
                assert dataclasses.replace(on, **{key: False}).settings() == profile.settings()


def test_set_compile_true_runs_every_training_of_the_job_compiled(tmp_path, monkeypatch):
    from bench.cli import main

    compiled = []

    def fake_compile(model, mode=None):
        compiled.append(type(model).__name__)
        return model

    monkeypatch.setattr(torch, "compile", fake_compile)
    args = [
        "run",
        f"results_dir={tmp_path}",
        *tiny("position_extrapolation", DECODER, finetune_steps=1, eval_multipliers=[1, 2]),
        "variants=[rope]",
    ]
    assert main(args) == 0
    assert compiled == []
    assert main(args + ["set.compile=true"]) == 0  # a different job: it runs, compiled
    assert compiled == ["DecoderLM", "DecoderLM"]  # the training and the fine-tune at 2L
    records = [json.loads(line) for p in tmp_path.glob("*/*.jsonl") for line in p.read_text().splitlines()]
    assert {r["profile_settings"].get("compile", False) for r in records} == {False, True}
