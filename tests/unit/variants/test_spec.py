"""Specs, preset expressions and problems(spec)."""

import pytest

from variants._registry import UnknownNameError
from variants.spec import PresetConflictError, TransformerSpec, problems, resolve


def test_presets_compose_with_plus():
    spec = resolve("alibi+gqa2+naive")
    assert (spec.position, spec.n_kv_heads, spec.kernel) == ("alibi", 2, "naive")


def test_presets_apply_on_top_of_a_base_spec():
    spec = resolve("rope", TransformerSpec(d_model=64, n_heads=4))
    assert (spec.d_model, spec.n_heads, spec.position) == (64, 4, "rope")


def test_disagreeing_presets_are_an_error():
    with pytest.raises(PresetConflictError, match="disagree on position"):
        resolve("rope+alibi")


def test_a_repeated_preset_is_refused_as_a_second_name_for_one_model():
    with pytest.raises(PresetConflictError, match="names rope more than once"):
        resolve("rope+rope")
    assert resolve("rope+sdpa").position == "rope"  # presets that agree, each named once, still compose


def test_unknown_preset_names_close_matches():
    with pytest.raises(UnknownNameError, match="Did you mean 'sinusoidal'"):
        resolve("sinusodial")


@pytest.mark.parametrize("expr", ["", "rope+", "+alibi"])
def test_empty_parts_are_an_error(expr):
    with pytest.raises(ValueError, match="empty part"):
        resolve(expr)


def test_mqa_and_gqa_set_the_number_of_kv_heads():
    assert resolve("mqa").kv_heads == 1
    assert resolve("gqa4").kv_heads == 4
    assert resolve("mha").kv_heads == TransformerSpec().n_heads


def test_problems_lists_every_reason():
    spec = TransformerSpec(d_model=30, n_heads=4, n_kv_heads=3)
    reasons = problems(spec)
    assert any("not divisible" in r for r in reasons)
    assert any("must divide" in r for r in reasons)


def test_rope_needs_an_even_head_dimension():
    reasons = problems(TransformerSpec(d_model=24, n_heads=8, position="rope"))
    assert reasons and "even head dimension" in reasons[0]


def test_kernels_report_devices_they_do_not_support():
    assert problems(TransformerSpec(kernel="naive"), device="tpu")


def test_valid_spec_has_no_problems():
    assert problems(resolve("alibi+sdpa")) == []


def test_spec_hash_is_stable_and_sensitive():
    assert resolve("rope").content_hash() == resolve("rope").content_hash()
    assert resolve("rope").content_hash() != resolve("alibi").content_hash()
