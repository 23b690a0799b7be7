"""minGRU's parallel scan against the sequential GRU: the latency ratio at the longest length and its growth, tested
on the timing repeats, judged on a GPU only (one precondition with the chunked form's and the utilisation claims)."""

import math

import numpy as np
import pytest

from harness.paired import Verdict, all_hold
from suites.common import timing_repeats as repeats
from suites.sequence_cost.claims import _shared as shared
from suites.sequence_cost.claims import parallel_scan_speedup as claim
from tests.unit.suites.sequence_cost.claims._records import judged, scan_records


@pytest.mark.parametrize(
    "gru_loop,mingru,verdict",
    [
        ({64: 20.0, 512: 400.0}, {64: 10.0, 512: 40.0}, "agrees"),  # 2x -> 10x
        ({64: 20.0, 512: 400.0}, {64: 5.0, 512: 200.0}, "disagrees"),  # 4x -> 2x: faster, but the lead shrinks
        ({64: 20.0, 512: 100.0}, {64: 10.0, 512: 150.0}, "disagrees"),  # slower at the longest length
        ({64: 10.0, 512: 106.0}, {64: 10.0, 512: 100.0}, "inconclusive"),  # 1.06x, within the repeats of 1.1x
    ],
)
def test_on_a_gpu_the_scan_verdict_tests_the_ratio_and_its_growth_on_the_repeats(gru_loop, mingru, verdict):
    noisy = 0.05 if verdict == "inconclusive" else 0.01
    found = judged(claim, scan_records(gru_loop, mingru, relative_sd=noisy))
    assert found.claim == claim.CLAIM and found.verdict == verdict
    assert "T4 figure" in found.sentence and (found.cause == "") == (verdict == "agrees")
    assert found.headline.label.endswith("at 512 tokens") and found.boundary == shared.FASTER
    assert found.headline.interval_text().endswith("over timing repeats") and found.p is not None


@pytest.mark.parametrize(
    "gru_loop,mingru",
    [
        ({64: 20.0, 512: 400.0}, {64: 10.0, 512: 40.0}),  # faster and growing on the CPU
        ({64: 20.0, 512: 100.0}, {64: 10.0, 512: 150.0}),  # slower on the CPU: no more a verdict than faster is
    ],
)
def test_on_a_cpu_it_is_not_testable_whatever_the_direction(gru_loop, mingru, tmp_path):
    found = judged(claim, scan_records(gru_loop, mingru, device="cpu"), gpu_results=tmp_path)
    assert found.verdict == "not testable here" and found.p is None
    assert "parallel lanes" in found.cause and "device=cuda" in found.cause and "at 512 tokens" in found.cause
    assert found.headline.label.endswith("at 512 tokens on this cpu")


def test_a_cpu_group_is_judged_on_reference_gpu_records_that_hold_both_forms(tmp_path, monkeypatch):
    """Where the reference GPU records hold both forms their verdict stands, the device and profile named."""
    gpu = scan_records({64: 20.0, 512: 400.0}, {64: 10.0, 512: 40.0}).assign(profile="large")
    monkeypatch.setattr(shared, "reference_gpu_frame", lambda results=None: gpu)
    monkeypatch.setattr(shared, "where", lambda frame: "test cuda:0, profile large")
    found = judged(claim, scan_records({64: 20.0, 512: 100.0}, {64: 10.0, 512: 150.0}, device="cpu"))
    assert found.verdict == "agrees" and found.sentence.startswith("Not testable on this cpu")
    assert found.where == "large, no corpus, cuda:0 (test cuda:0)" and "on test cuda:0" in found.headline.label
    # GPU records without the sequential GRU: not testable, what they do show said
    lacking = gpu[gpu.variant != "gru+loop"]
    monkeypatch.setattr(shared, "reference_gpu_frame", lambda results=None: lacking)
    found = judged(claim, scan_records({64: 20.0, 512: 400.0}, {64: 10.0, 512: 40.0}, device="cpu"))
    assert found.verdict == "not testable here" and "lack what the claim compares" in found.cause


def test_the_two_parts_held_together_say_disagrees_at_most_2_5_percent_of_the_time():
    """The rule's size: the ratio exactly at 1.1x at both lengths (so its growth exactly 1), 5 repeats each; the
    conjunction's "disagrees" is Holm-controlled across its two parts, its "agrees" an intersection-union test."""
    rng = np.random.default_rng(3)
    sims, n, sd = 4000, 5, 0.05
    logs = {k: repeats.log_medians(np.exp(sd * rng.standard_normal((sims, n)))) for k in ("aL", "bL", "aS", "bS")}

    def contrast(coefs, keys, offset=0.0):
        c, se, df = repeats.combine(coefs, *(np.stack([logs[k][i] for k in keys], -1) for i in range(3)))
        return c + offset, se, df

    fast = contrast([1, -1], ["aL", "bL"], math.log(1.1))
    grow = contrast([1, -1, -1, 1], ["aL", "bL", "aS", "bS"])
    parts = zip(repeats.verdicts(*fast, math.log(1.1)), repeats.verdicts(*grow, 0.0))
    words = np.array([str(all_hold(list(p))) for p in parts])
    assert (words == "disagrees").mean() <= 0.03 and (words == "agrees").mean() <= 0.03
    assert isinstance(all_hold([Verdict("agrees", 0.01, 0.99)] * 2), Verdict)


def test_its_claim_declares_its_precondition_and_smallest_effect():
    c = claim.CLAIM
    assert c.kind == "finding" and "GPU" in c.precondition
    assert c.precondition == shared_precondition() and c.smallest_effect > 0 and c.smallest_effect_source


def shared_precondition() -> str:
    from suites.sequence_cost.claims import chunked_form_speedup, recurrence_idles_device

    assert chunked_form_speedup.CLAIM.precondition == recurrence_idles_device.CLAIM.precondition
    return chunked_form_speedup.CLAIM.precondition
