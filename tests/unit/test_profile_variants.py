"""A suite's default variants may differ by profile (Suite.profile_variants)."""


def test_pe_standard_runs_seven_positions_and_the_rope_extensions_and_quick_the_five():
    from harness.contract import suites

    pe = suites.get("position_extrapolation")
    assert pe.variants_for("quick") == ("none", "sinusoidal", "learned", "rope", "alibi")
    standard = pe.variants_for("standard")
    assert standard[5:7] == ("t5_bias", "randomized") and len(standard) == 11
    assert all(v.startswith("rope+") for v in standard[7:])  # last: they reuse the rope weights trained before them
    assert suites.get("language_modeling").variants_for("standard") == suites.get("language_modeling").default_variants
