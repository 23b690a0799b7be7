"""Attention's direct paths: a check at initialisation, the Transformer paired with the tanh RNN over seeds."""

import pandas as pd

from suites.gradient_flow.claims import attention_keeps_gradient as claim
from tests.unit.suites.gradient_flow.claims._records import evidence


def test_it_is_a_check():
    """Attention's direct paths hold at initialisation by construction: scored as a check."""
    assert claim.CLAIM.kind == "check" and claim.CLAIM.protocol


def test_the_reach_verdict_pairs_the_transformer_with_the_tanh_rnn():
    def flow_rows(tr, rnn):
        return pd.DataFrame(
            [
                {"variant": v, "phase": "init", "seed": s, "x": 20, "value": 10.0 ** (val + 0.2 * s)}
                for v, val in (("transformer", tr), ("rnn", rnn))
                for s in (0, 1, 2)
            ]
        )

    assert claim.judge(evidence(flow=flow_rows(0.0, -4.7))).verdict == "agrees"
    worse = claim.judge(evidence(flow=flow_rows(-5.0, -1.0)))
    assert worse.verdict == "disagrees" and worse.cause
