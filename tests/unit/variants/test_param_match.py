"""Matched-parameter head grouping: gqa<g>/mqa widened to the baseline's parameter count, unmatched kept as it was."""

import pytest

from suites.language_modeling.suite import PROFILES, LanguageModeling
from variants.models.param_match import TOLERANCE, count_parameters, match_head_grouping, match_parameters
from variants.models.transformer import build
from variants.spec import TransformerSpec, resolve

SUITE = LanguageModeling()
#: the standard profile trains on data=bible, whose vocabulary sizes the model
PROFILE_CASES = ["quick", pytest.param("standard", marks=pytest.mark.sword("engWEB2015eb"))]


def params(spec):
    return build(spec).num_parameters()  # real weights, not the meta-device count the matching uses


@pytest.mark.parametrize("profile", PROFILE_CASES)
@pytest.mark.parametrize("variant", ["gqa2", "gqa4", "mqa", "mqa+swiglu"])
def test_grouped_variants_match_the_baselines_parameters_within_two_percent(profile, variant):
    base = SUITE.base_spec(PROFILES[profile], {})
    spec = SUITE.spec_for(variant, PROFILES[profile], {})
    reference = params(resolve(variant.replace("gqa2", "mha").replace("gqa4", "mha").replace("mqa", "mha"), base))
    assert spec.n_kv_heads in (1, 2, 4) and spec.d_ff > 4 * spec.d_model  # widened
    assert abs(params(spec) - reference) <= TOLERANCE * reference


@pytest.mark.parametrize("profile", PROFILE_CASES)
def test_unmatched_keeps_the_default_ffn_and_fewer_parameters(profile):
    base = SUITE.base_spec(PROFILES[profile], {})
    unmatched = SUITE.spec_for("gqa2+unmatched", PROFILES[profile], {})
    assert unmatched == resolve("gqa2", base) and unmatched.d_ff is None
    assert params(unmatched) < (1 - TOLERANCE) * params(base)


@pytest.mark.parametrize("variant", ["baseline", "swiglu", "rope", "mha", "gqa{heads}", "gqa3"])
def test_other_variants_are_not_widened(variant):
    """MHA in any form (gqa<n_heads> included) is the reference itself; gqa3 cannot divide the quick profile's
    heads, so it cannot be built and is left for problems()."""
    base = SUITE.base_spec(PROFILES["quick"], {})
    assert base.n_heads % 3 != 0
    variant = variant.format(heads=base.n_heads)
    assert SUITE.spec_for(variant, PROFILES["quick"], {}) == resolve(variant, base)


def test_the_match_is_the_closest_width_and_counts_like_the_built_model():
    spec = TransformerSpec(vocab_size=50, d_model=64, n_heads=4, n_kv_heads=1)
    matched = match_head_grouping(spec)
    target = params(TransformerSpec(vocab_size=50, d_model=64, n_heads=4))
    assert count_parameters(matched) == params(matched)
    for d_ff in (matched.d_ff - 1, matched.d_ff + 1):  # a neighbouring width is no closer
        other = TransformerSpec(vocab_size=50, d_model=64, n_heads=4, n_kv_heads=1, d_ff=d_ff)
        assert abs(params(other) - target) >= abs(params(matched) - target)
    # matching also narrows: a wider spec is brought down to a smaller reference
    wide = TransformerSpec(vocab_size=50, d_model=64, n_heads=4, d_ff=512)
    assert match_parameters(wide, TransformerSpec(vocab_size=50, d_model=64, n_heads=4)).d_ff == 256


def test_the_report_keeps_widened_variants_in_head_grouping_and_names_their_width():
    from suites.language_modeling.report import _budget
    from suites.language_modeling.summary import family_of, widening

    base = resolve("baseline", SUITE.base_spec(PROFILES["quick"], {})).to_dict()
    matched = SUITE.spec_for("gqa2", PROFILES["quick"], {}).to_dict()
    unmatched = SUITE.spec_for("gqa2+unmatched", PROFILES["quick"], {}).to_dict()
    assert family_of(matched, base) == family_of(unmatched, base) == "head grouping"
    assert family_of(SUITE.spec_for("gqa2+swiglu", PROFILES["quick"], {}).to_dict(), base) == "combined"
    assert widening(matched, base) == f"matched: d_ff widened to {matched['d_ff']} (baseline {4 * base['d_model']})"
    assert (
        widening(unmatched, base) == f"unmatched: d_ff kept at {4 * base['d_model']}" and widening(base, base) is None
    )
    assert _budget(None, widening(matched, base)).startswith("matched: d_ff widened to")
    assert (
        _budget(-0.12, widening(unmatched, base))
        == f"flagged: params -12% vs baseline; unmatched: d_ff kept at {4 * base['d_model']}"
    )
    assert _budget(None, None) == "matched"
