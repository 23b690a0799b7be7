"""RoPE context extensions: each one's frequencies against its published formula, and how RoPE applies them.

theta_i = b^(-2i/d), b = 10000, i = 0..d/2-1; training length L, target length s * L.
PI (Chen et al. 2023): theta_i / s. NTK-aware (bloc97; Peng et al. 2023 sec. 3.1): base b * s'^(d/(d-2)),
s' = 1 + h (s - 1) with headroom h (1: s itself). Dynamic NTK: NTK-aware at s = max(1, l/L) for length l.
YaRN as the authors' code (jquesnelle/yarn, scaled_rope/modeling_llama_yarn.py; Hugging Face's
_compute_yarn_parameters): i(r) = d ln(L / (2 pi r)) / (2 ln b), low = max(floor(i(beta = 32)), 0),
high = min(ceil(i(alpha = 1)), d - 1), keep_i = 1 - clamp((i - low) / (high - low), 0, 1),
theta'_i = keep_i theta_i + (1 - keep_i) theta_i / s; logits times 1/t, sqrt(1/t) = 0.1 ln s + 1.
yarn_rlinear, the paper's equation: r_i = L theta_i / (2 pi), gamma = clamp((r - 1) / (32 - 1), 0, 1) in place of keep_i.
"""

import math

import pytest
import torch

from variants.models.transformer import build
from variants.position.rope import Rope, apply_rope
from variants.rope_scaling._base import rope_scalings, scale_factor
from variants.spec import TransformerSpec, problems, resolve

D, L = 16, 64


def theta(i: int, d: int = D, b: float = 10000.0) -> float:
    return b ** (-2 * i / d)


def freqs(name: str, s: float, d: int = D, train_len: int = L):
    return rope_scalings.get(name).frequencies(d, s, train_len).tolist()


def test_the_four_extensions_are_registered_and_are_presets():
    assert rope_scalings.names() == ["dynamic_ntk", "ntk", "ntk_by_parts", "pi", "yarn", "yarn_rlinear"]
    for name in rope_scalings.names():
        spec = resolve(f"rope+{name}")
        assert (spec.position, spec.rope_scaling, spec.rope_scale) == ("rope", name, "auto")
        assert problems(spec) == []
    assert resolve("rope+yarn4").rope_scale == 4.0


@pytest.mark.parametrize("s", [1.0, 2.0, 8.0])
def test_position_interpolation_divides_every_frequency_by_s(s):
    assert freqs("pi", s) == pytest.approx([theta(i) / s for i in range(D // 2)], rel=1e-12)


@pytest.mark.parametrize("s", [2.0, 8.0])
def test_ntk_aware_raises_the_base_to_b_s_to_the_d_over_d_minus_2(s):
    b = 10000.0 * s ** (D / (D - 2))
    got = freqs("ntk", s)
    assert got == pytest.approx([theta(i, b=b) for i in range(D // 2)], rel=1e-12)
    assert got[0] == pytest.approx(theta(0))  # the highest frequency is unchanged
    assert got[-1] == pytest.approx(theta(D // 2 - 1) / s, rel=1e-12)  # the lowest is interpolated by exactly s


def test_dynamic_ntk_has_ntk_frequencies_at_s_from_the_sequence_length():
    assert rope_scalings.get("dynamic_ntk").dynamic and not rope_scalings.get("ntk").dynamic
    for length in (L // 2, L, 3 * L):
        s = max(1.0, length / L)
        assert scale_factor("auto", length, L) == s
        assert freqs("dynamic_ntk", s) == pytest.approx(
            [theta(i, b=10000.0 * s ** (D / (D - 2))) for i in range(D // 2)]
        )
    assert freqs("dynamic_ntk", scale_factor("auto", L // 2, L)) == pytest.approx([theta(i) for i in range(D // 2)])


def test_ntk_headroom_raises_the_base_for_a_larger_scale_and_leaves_the_training_length_alone():
    from dataclasses import replace

    ntk = replace(rope_scalings.get("ntk"), headroom=2.0)
    b = 10000.0 * (1 + 2.0 * (4.0 - 1)) ** (D / (D - 2))  # s = 4 -> s' = 7
    assert ntk.frequencies(D, 4.0, L).tolist() == pytest.approx([theta(i, b=b) for i in range(D // 2)], rel=1e-12)
    assert ntk.frequencies(D, 1.0, L).tolist() == pytest.approx([theta(i) for i in range(D // 2)], rel=1e-12)


#: (d, L, beta, alpha) -> (low, high), worked by hand from the authors' _yarn_find_correction_range:
#: d = 128, L = 4096 (Llama 2): i(32) = 128 ln(4096 / (64 pi)) / (2 ln 10^4) = 20.94 -> 20; i(1) = 45.03 -> 46
#: d = 16, L = 64 (this suite's standard profile): i(32) = -0.99 -> floor -1 -> 0; i(1) = 2.02 -> 3
#: d = 64, L = 512: i(32) = 64 ln(512 / (64 pi)) / (2 ln 10^4) = 3.25 -> 3; i(1) = 15.29 -> 16
CORRECTION_RANGES = {
    (128, 4096, 32.0, 1.0): (20, 46),
    (16, 64, 32.0, 1.0): (0, 3),
    (16, 64, 2.0, 1.0): (1, 3),
    (16, 64, 32.0, 0.25): (0, 4),
    (64, 512, 32.0, 1.0): (3, 16),
}


@pytest.mark.parametrize("key", sorted(CORRECTION_RANGES))
def test_yarn_correction_range_is_the_authors_rounded_pair_index(key):
    from variants.rope_scaling.yarn import correction_range

    d, train_len, beta, alpha = key
    assert correction_range(beta, alpha, d, 10000.0, train_len) == CORRECTION_RANGES[key]


def test_yarn_frequencies_ramp_linearly_in_the_pair_index_as_the_authors_code():
    # d = 16, L = 64, s = 4: low 0, high 3 -> keep = 1, 2/3, 1/3, 0, ...; worked by hand:
    # pair 1: 10^-0.5 x (2/3 + 1/3 / 4) = 0.2371708; pair 2: 0.1 x (1/3 + 2/3 / 4) = 0.05
    got = freqs("yarn", 4.0)
    assert got[:3] == pytest.approx([1.0, 0.2371708245, 0.05], rel=1e-9)
    assert got[3:] == pytest.approx([theta(i) / 4 for i in range(3, D // 2)], rel=1e-12)
    # Llama 2 (d 128, L 4096, s 8): pairs 0-20 kept, 46-63 interpolated, linear in the pair index between
    llama = freqs("yarn", 8.0, 128, 4096)
    assert llama[20] == pytest.approx(theta(20, 128)) and llama[46] == pytest.approx(theta(46, 128) / 8)
    keep = 1 - (33 - 20) / (46 - 20)
    assert llama[33] == pytest.approx(theta(33, 128) * (keep + (1 - keep) / 8), rel=1e-12)


def test_the_default_yarn_is_not_the_r_linear_ramp():
    # the r-linear ramp (the paper's equation) keeps only 0.30 of the fastest pair at L = 64, d = 16, where the
    # authors' code keeps all of it; the default must be the code's
    assert freqs("yarn", 4.0)[0] == pytest.approx(1.0)
    r0 = L / (2 * math.pi)
    gamma = (r0 - 1) / 31
    assert freqs("yarn_rlinear", 4.0)[0] == pytest.approx(gamma + (1 - gamma) / 4)
    assert freqs("yarn", 4.0) != pytest.approx(freqs("yarn_rlinear", 4.0))


@pytest.mark.parametrize("d,train_len,s", [(16, 64, 4.0), (128, 4096, 8.0), (64, 512, 2.0)])
def test_yarn_rlinear_ramps_in_the_rotation_count(d, train_len, s):
    expected = []
    for i in range(d // 2):
        r = train_len / (2 * math.pi / theta(i, d))
        gamma = 0.0 if r < 1 else 1.0 if r > 32 else (r - 1) / (32 - 1)
        expected.append((1 - gamma) * theta(i, d) / s + gamma * theta(i, d))
    assert freqs("yarn_rlinear", s, d, train_len) == pytest.approx(expected, rel=1e-12)
    assert freqs("yarn_rlinear", s, d, train_len)[-1] == pytest.approx(theta(d // 2 - 1, d) / s)


@pytest.mark.parametrize("s", [1.0, 4.0, 16.0])
def test_yarn_temperature_multiplies_the_logits_by_one_over_t(s):
    sqrt_inv_t = 0.1 * math.log(s) + 1
    assert rope_scalings.get("yarn").attention_factor(s) == pytest.approx(sqrt_inv_t)
    q, k = torch.randn(1, 1, 1, D, dtype=torch.float64), torch.randn(1, 1, 1, D, dtype=torch.float64)
    yarn = rope_scalings.get("yarn")
    rotated = (
        apply_rope(q, 5, scaling=yarn, s=s, train_len=L) * apply_rope(k, 5, scaling=yarn, s=s, train_len=L)
    ).sum()
    assert rotated.item() == pytest.approx(
        sqrt_inv_t**2 * (q * k).sum().item(), rel=1e-9
    )  # same position: no rotation left
    for name in ("pi", "ntk", "dynamic_ntk"):
        assert rope_scalings.get(name).attention_factor(s) == 1.0


@pytest.mark.parametrize("name", ["pi", "ntk", "yarn", "yarn_rlinear"])
def test_scaled_scores_still_depend_only_on_the_offset(name):
    q, k = torch.randn(1, 1, 1, D, dtype=torch.float64), torch.randn(1, 1, 1, D, dtype=torch.float64)
    scaling = rope_scalings.get(name)

    def score(m, n):
        return (
            (
                apply_rope(q, m, scaling=scaling, s=4.0, train_len=L)
                * apply_rope(k, n, scaling=scaling, s=4.0, train_len=L)
            )
            .sum()
            .item()
        )

    assert score(40, 3) == pytest.approx(score(240, 203), rel=1e-9, abs=1e-9)


def _rope(name, scale="auto"):
    rope = Rope(D * 2, 2, D, L)
    rope.scale_rope(rope_scalings.get(name) if name else None, scale)
    return rope


def _rotated(rope, length):
    x = torch.randn(1, 2, length, D, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    return rope.rotate(x, x)[0]


def test_auto_scale_is_the_evaluation_length_over_the_training_length():
    plain, ntk, fixed = _rope(None), _rope("ntk"), _rope("ntk", 4.0)
    assert torch.equal(_rotated(ntk, L), _rotated(plain, L))  # s = 1 at L: exactly RoPE
    ntk.set_context_length(4 * L)  # the suite announces the evaluation length
    assert ntk.scale_at(L) == 4.0
    assert torch.allclose(_rotated(ntk, 4 * L), _rotated(fixed, 4 * L))
    ntk.set_context_length(None)
    assert ntk.scale_at(2 * L) == 2.0  # without one: the sequence's own length


def test_dynamic_ntk_follows_each_sequence_not_the_announced_length():
    dynamic = _rope("dynamic_ntk")
    dynamic.set_context_length(16 * L)
    assert dynamic.scale_at(L // 2) == 1.0 and dynamic.scale_at(3 * L) == 3.0
    assert torch.equal(_rotated(dynamic, L), _rotated(_rope(None), L))


def test_a_rope_scaling_adds_no_weights_and_changes_nothing_at_the_training_length():
    small = TransformerSpec(vocab_size=11, d_model=32, n_heads=2, n_layers=1, max_len=L)
    tokens = torch.randint(0, 11, (2, L))
    torch.manual_seed(0)
    plain = build(resolve("rope", small)).eval()
    for name in rope_scalings.names():
        scaled = build(resolve(f"rope+{name}", small)).eval()
        scaled.load_state_dict(plain.state_dict())  # the same state_dict keys: trained weights carry over
        assert torch.allclose(scaled(tokens), plain(tokens), atol=1e-6)
        scaled.set_context_length(4 * L)  # what the suite does before scoring at 4L
        assert scaled.position.scale_at(L) == (1.0 if name == "dynamic_ntk" else 4.0)


def test_problems_name_what_a_scaling_needs():
    assert "does not rotate queries and keys by RoPE" in problems(resolve("alibi+yarn"))[0]
    assert "rope_scale must be 'auto'" in problems(resolve("rope+dynamic_ntk4"))[0]
    assert "at least 1" in problems(TransformerSpec(position="rope", rope_scaling="pi", rope_scale=0.5))[0]
    assert "no rope scaling is named" in problems(TransformerSpec(position="rope", rope_scale=2.0))[0]
    assert "Unknown rope scaling 'yran'" in problems(TransformerSpec(position="rope", rope_scaling="yran"))[0]
    assert problems(resolve("rope+pi")) == []


def test_default_valued_scaling_fields_leave_spec_hashes_as_they_were():
    spec = resolve("rope")
    assert "rope_scaling" not in spec.to_dict() and "rope_scale" not in spec.to_dict()
    assert resolve("rope+ntk").to_dict()["rope_scaling"] == "ntk"
    assert resolve("rope+ntk").without_rope_scaling() == spec
    assert resolve("rope+ntk").content_hash() != spec.content_hash()


def test_ntk_by_parts_is_yarn_without_its_temperature():
    parts, yarn = rope_scalings.get("ntk_by_parts"), rope_scalings.get("yarn")
    assert torch.equal(parts.frequencies(16, 4.0, 64), yarn.frequencies(16, 4.0, 64))
    assert parts.attention_factor(4.0) == 1.0 and yarn.attention_factor(4.0) > 1.0
