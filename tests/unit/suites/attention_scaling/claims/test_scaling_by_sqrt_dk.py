"""The unscaled softmax saturates at large d_k: a check at initialisation."""

from suites.attention_scaling.claims import scaling_by_sqrt_dk as claim
from tests.unit.suites.attention_scaling.claims._records import evidence, probe


def _saturation(dot_entropy_hi, dot_saturated_hi, dot_jacobian_hi):
    return probe(
        {
            ("dot", "softmax_entropy"): {16: 2.0, 256: dot_entropy_hi},
            ("scaled_dot", "softmax_entropy"): {16: 3.0, 256: 3.0},
            ("dot", "softmax_saturated_fraction"): {16: 0.1, 256: dot_saturated_hi},
            ("scaled_dot", "softmax_saturated_fraction"): {16: 0.0, 256: 0.0},
            ("dot", "softmax_jacobian_norm"): {256: dot_jacobian_hi},
            ("scaled_dot", "softmax_jacobian_norm"): {256: 0.1},
            ("dot", "query_grad_norm"): {256: 2.0},
            ("scaled_dot", "query_grad_norm"): {256: 1.0},
        }
    )


def test_it_is_a_check():
    assert claim.CLAIM.kind == "check" and claim.CLAIM.protocol


def test_saturation_verdict():
    variants, d_ks = ["scaled_dot", "dot"], [16.0, 256.0]
    assert claim.judge(evidence(_saturation(0.5, 0.8, 0.01), variants, d_ks)).verdict == "agrees"
    assert claim.judge(evidence(_saturation(2.9, 0.05, 0.2), variants, d_ks)).verdict == "disagrees"
    assert claim.judge(evidence(_saturation(0.5, 0.8, 0.01), ["scaled_dot"], d_ks)).verdict == "not run"
    assert claim.judge(evidence(_saturation(0.5, 0.8, 0.01), variants, [256.0])).verdict == "not run"  # one d_k
