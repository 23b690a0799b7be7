"""A figure's variants told apart: families by hue, members by shade, marker and dash (harness/figure_styles.py)."""

from harness.figure_styles import RECIPE, axis_of, families, styles

POSITIONS = ["none", "sinusoidal", "rope", "alibi", "rope+ntk", "rope+pi", "rope+window16", "t5_bias"]
LM = ["baseline", "gqa2", "mqa", "mla+steps2000", "post_ln", "rmsnorm", "dot", "mamba2", "mamba2+hybrid2", "depth6"]


def test_variants_of_one_axis_are_grouped_by_their_first_preset():
    family = families(POSITIONS)
    assert family["rope+ntk"] == family["rope+window16"] == family["rope"] == "rope"
    assert family["alibi"] == "alibi" and family["t5_bias"] == "t5_bias"


def test_variants_of_several_axes_are_grouped_by_the_axis_they_change():
    family = families(LM)
    assert family["gqa2"] == family["mqa"] == family["mla+steps2000"] == "K/V heads"
    assert family["post_ln"] == family["rmsnorm"] == "normalisation"
    assert family["mamba2"] == family["mamba2+hybrid2"] == "recurrence"
    assert family["depth6"] == RECIPE and axis_of("baseline") == "baseline"


def test_a_family_shares_a_hue_and_its_members_differ_in_shade_marker_and_dash():
    look = styles(POSITIONS)
    rope = [look[v] for v in POSITIONS if v.startswith("rope")]
    assert len({s.marker for s in rope}) == len(rope) and len({s.colour for s in rope}) == len(rope)
    assert rope[0].colour == look["rope"].colour and rope[0].dashes == ""
    # every member's colour lies between the family's hue and white: the same hue, lighter
    base = look["rope"].colour
    for s in rope[1:]:
        assert all(b - 1e-9 <= c <= 1.0 + 1e-9 for b, c in zip(base, s.colour))
    families_seen = {look[v].colour for v in ("none", "sinusoidal", "rope", "alibi", "t5_bias")}
    assert len(families_seen) == 5  # one hue per family
