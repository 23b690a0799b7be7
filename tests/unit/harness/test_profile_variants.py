"""A suite's default variants may differ by profile (Suite.profile_variants)."""


def test_pe_standard_runs_seven_positions_and_the_rope_extensions_and_quick_the_five():
    from harness.contract import suites

    pe = suites.get("position_extrapolation")
    assert pe.variants_for("quick") == ("none", "sinusoidal", "learned", "rope", "alibi")
    standard = pe.variants_for("standard")
    assert standard[5:7] == ("t5_bias", "randomized") and len(standard) == 12  # rope+pi2: PI at a fixed s
    assert all(v.startswith("rope+") for v in standard[7:])  # last: they reuse the rope weights trained before them
    lm = suites.get("language_modeling")
    standard = lm.variants_for("standard")
    # standard adds the control arms: Post-LN with a long warm-up, the scorings with absolute positions
    # and the source-depth arms (Xiong et al.'s 6 layers) and MLA's longer budget (its claim's budget axis)
    assert set(standard) - set(lm.default_variants) == {
        "post_ln+long_warmup",
        "post_ln+no_warmup",
        "no_warmup",
        "sinusoidal",
        "sinusoidal+dot",
        "sinusoidal+additive+naive",
        "depth6",
        "no_warmup+depth6",
        "post_ln+no_warmup+depth6",
        "post_ln+long_warmup+depth6",
        "steps2000",
        "mla+steps2000",
    }
    # the slowest first: the 2000-step pair, then the additive scorings
    assert standard[:4] == ("mla+steps2000", "steps2000", "additive+naive", "sinusoidal+additive+naive")
    assert lm.variants_for("quick") == lm.default_variants
