"""problems(spec) for every axis, kernel declarations and availability, presets of every axis, the support matrix."""

import importlib.util

import pytest
import torch

from variants._registry import UnknownNameError
from variants.kernel._base import kernels
from variants.presets import AXES, AmbiguousPresetError, all_preset_names, find_preset
from variants.spec import PresetConflictError, TransformerSpec, problems, resolve


def test_every_registered_component_is_a_preset_of_its_axis():
    for registry, field in AXES:
        for name in registry.names():
            extra = getattr(registry.get(name), "preset_fields", {})  # other fields the component reads (mla's norm)
            assert find_preset(name).fields == {field: name, **extra}
    assert find_preset("mla").fields == {"attention": "mla", "latent_norm": True}
    assert len(all_preset_names()) == len(set(all_preset_names()))


def test_axis_presets_compose_and_conflict():
    spec = resolve("alibi+additive+naive+post_ln+rmsnorm+swiglu+gqa2")
    assert (spec.position, spec.scoring, spec.kernel, spec.norm_placement, spec.norm, spec.ffn, spec.n_kv_heads) == (
        "alibi",
        "additive",
        "naive",
        "post",
        "rmsnorm",
        "swiglu",
        2,
    )
    with pytest.raises(PresetConflictError, match="disagree on norm_placement"):
        resolve("pre_ln+post_ln")
    with pytest.raises(PresetConflictError, match="disagree on ffn"):
        resolve("relu+swiglu")


def test_a_name_registered_on_two_axes_is_ambiguous(monkeypatch):
    from variants.norm._base import norms
    from variants.scoring._base import scorings

    monkeypatch.setitem(norms._entries, "dot", scorings._entries["dot"])
    with pytest.raises(AmbiguousPresetError, match="'dot' is ambiguous"):
        resolve("dot")


def test_problems_gathers_every_reason_of_every_axis():
    spec = TransformerSpec(position="alibi", scoring="additive", kernel="flash_attn")
    reasons = problems(spec, "cuda", torch.float32)
    assert any("does not support float32 on cuda" in r for r in reasons)
    assert any("scoring 'additive' is not one" in r for r in reasons)
    assert any("takes no score bias on cuda, which position 'alibi' adds" in r for r in reasons)
    if importlib.util.find_spec("flash_attn") is None:
        assert any("flash-attn package is not installed" in r for r in reasons)


@pytest.mark.parametrize(
    "field,value,word",
    [
        ("scoring", "adittive", "additive"),
        ("norm", "rmsnrom", "rmsnorm"),
        ("ffn", "swiglo", "swiglu"),
        ("norm_placement", "pst", "post"),
    ],
)
def test_unknown_axis_values_are_problems_with_suggestions(field, value, word):
    reasons = problems(TransformerSpec(**{field: value}))
    assert len(reasons) == 1 and f"'{value}'" in reasons[0] and f"'{word}'" in reasons[0]


def test_unknown_axis_presets_suggest_close_matches():
    with pytest.raises(UnknownNameError, match="Did you mean 'rmsnorm'"):
        resolve("rmsnrom")


def test_flex_on_cpu_is_inference_only():
    spec = resolve("alibi+flex")
    assert problems(spec, "cpu") == ["kernel 'flex' has no backward pass on cpu (inference only), so it cannot train"]
    assert problems(spec, "cpu", training=False) == []
    assert problems(spec, "cuda") == []


def test_sdpa_flash_takes_a_score_bias_on_cpu_but_not_on_cuda():
    assert problems(resolve("alibi+sdpa_flash"), "cpu") == []
    assert any(
        "takes no score bias on cuda" in r for r in problems(resolve("alibi+sdpa_flash"), "cuda", torch.bfloat16)
    )
    assert any("does not support float32 on cuda" in r for r in problems(resolve("sdpa_flash"), "cuda"))


def test_sdpa_records_the_backend_it_dispatches_to_including_with_alibi():
    """A 3-D float mask silently sends SDPA's CPU path to the math backend; the kernel passes it 4-D."""
    for expr, expected in (
        ("sinusoidal+sdpa", "sdpa:flash"),
        ("alibi+sdpa", "sdpa:flash"),
        ("alibi+sdpa_math", "sdpa:math"),
        ("additive+naive", "naive"),
    ):
        model = build_small(expr)
        assert model.attention_dispatch(2, 12) == expected, expr


def build_small(expr):
    from variants.models.transformer import build

    return build(resolve(expr, TransformerSpec(vocab_size=11, d_model=16, n_heads=2, max_len=12)))


def test_a_missing_package_makes_a_kernel_unavailable_with_one_reason(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "xformers" else real(name, *a))
    reason = kernels.get("xformers").unavailable()
    assert reason == "the xformers package is not installed (pip install xformers)"


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only machine's answer")
def test_cuda_only_kernels_are_unavailable_without_cuda():
    for name in ("sdpa_efficient", "sdpa_cudnn", "flash_attn", "xformers"):
        assert kernels.get(name).unavailable()


def test_bench_list_kernels_shows_availability_and_the_support_matrix_is_written(capsys, tmp_path):
    from bench.cli import main
    from bench.report.support import write_support_matrix

    assert main(["list", "kernels"]) == 0
    out = capsys.readouterr().out
    for word in ("available here", "sdpa_math", "flex", "xformers", "native GQA", "backward"):
        assert word in out
    path = write_support_matrix(tmp_path)
    text = path.read_text()
    additive_cpu = next(line for line in text.splitlines() if line.startswith("| additive"))
    cells = [c.strip() for c in additive_cpu.strip("|").split("|")]
    header = next(line for line in text.splitlines() if line.startswith("| variant"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    row = dict(zip(columns, cells))
    assert row["naive"] == "ok" and row["sdpa"].startswith("no [")
    assert "computes dot-product scores only, and scoring 'additive' is not one" in text
    assert "## cuda, bfloat16, training" in text
