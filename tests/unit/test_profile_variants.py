"""A suite's default variants may differ by profile (Suite.profile_variants)."""


def test_pe_standard_runs_seven_positions_and_quick_the_five():
    from harness.contract import suites

    pe = suites.get("position_extrapolation")
    assert pe.variants_for("quick") == ("none", "sinusoidal", "learned", "rope", "alibi")
    assert pe.variants_for("standard")[-2:] == ("t5_bias", "randomized") and len(pe.variants_for("standard")) == 7
    assert suites.get("language_modeling").variants_for("standard") == suites.get("language_modeling").default_variants
