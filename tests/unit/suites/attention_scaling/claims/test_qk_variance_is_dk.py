"""var(q.k) = d_k: a check within 10% at every d_k probed."""

import pandas as pd

from harness.findings import INDICATIVE
from suites.attention_scaling.claims import qk_variance_is_dk as claim
from tests.unit.suites.attention_scaling.claims._records import evidence, probe


def test_it_is_a_check():
    assert claim.CLAIM.kind == "check" and claim.CLAIM.protocol


def test_within_the_tolerance_agrees_beyond_it_disagrees():
    d_ks = [16.0, 256.0]
    near = probe({("scaled_dot", "qk_variance"): {16: 16.5, 256: 250.0}})
    assert claim.judge(evidence(near, d_ks=d_ks)).verdict == "agrees"
    double = probe({("scaled_dot", "qk_variance"): {16: 32.0, 256: 512.0}})
    assert claim.judge(evidence(double, d_ks=d_ks)).verdict == "disagrees"
    assert claim.judge(evidence(probe({}))).verdict == "not run"


def test_a_verdict_from_one_seed_says_so():
    ok = pd.DataFrame(
        [
            {"variant": "scaled_dot", "metric": "qk_variance", "x": d, "value": 1.02 * d, "seed": 0, "status": "ok"}
            for d in (16.0, 64.0)
        ]
    )
    found = claim.judge(evidence(ok, d_ks=[16.0, 64.0]))
    assert found.verdict == "agrees" and found.seeds == 1 and found.indicative
    assert found.sentence.endswith(f"({INDICATIVE}.)")
    assert found.estimates[0].low is None
