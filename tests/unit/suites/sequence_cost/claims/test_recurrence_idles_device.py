"""Recurrence leaves a GPU idle, attention keeps it busy: attention's share of the matmul peak over each recurrent
layer's, tested against 2x on the timing repeats on a GPU; on a CPU the reference GPU run's verdict, its device and
profile named, or not testable."""

import math

import numpy as np
import pytest

from harness.paired import all_hold
from suites.common import timing_repeats as repeats
from suites.sequence_cost.claims import recurrence_idles_device as claim
from suites.sequence_cost.tables import _frame
from tests.unit.suites.sequence_cost.claims._records import jobs, judged


@pytest.mark.parametrize(
    "recurrent,attention,noise,verdict",
    [
        (30.0, 70.0, 0.02, "agrees"),  # 2.33x
        (35.0, 70.0, 0.02, "inconclusive"),  # 2.0x: on the bar
        (33.0, 70.0, 0.3, "inconclusive"),  # 2.1x, but the repeats spread widely
        (40.0, 60.0, 0.02, "disagrees"),  # 1.5x
        (50.0, 20.0, 0.02, "disagrees"),
    ],
)
def test_the_utilisation_verdict_on_a_gpu_tests_the_ratio_of_shares(recurrent, attention, noise, verdict):
    found = judged(claim, jobs(recurrent, attention, noise=noise))
    assert found.verdict == verdict
    assert "fwd+bwd at 128 tokens" in found.sentence and (found.cause == "") == (verdict == "agrees")
    assert found.headline.interval_text().endswith("over timing repeats") and found.boundary == claim.AGREE_RATIO
    assert found.p is not None and found.where == ""


@pytest.mark.parametrize("recurrent,attention", [(30.0, 70.0), (60.0, 65.0)])
def test_the_utilisation_claim_is_not_testable_on_a_cpu(recurrent, attention, tmp_path, monkeypatch):
    """A GPU claim: with no GPU records, whatever the shares on a CPU, no verdict, the shares kept and a CUDA
    device named."""
    from suites.sequence_cost import gpu_records

    monkeypatch.setattr(gpu_records, "GPU_RESULTS", tmp_path)  # no reference GPU records
    found = judged(claim, jobs(recurrent, attention, device="cpu"))
    assert found.verdict == "not testable here"
    assert "parallel lanes" in found.cause and "device=cuda" in found.cause
    assert {e.label for e in found.estimates} >= {"fwd+bwd transformer % of peak", "fwd+bwd lstm % of peak"}


def test_a_cpu_run_shows_the_reference_gpu_verdict_with_its_device_and_profile(tmp_path):
    """The CPU cannot test the claim; the project's reference GPU records can: their verdict is shown beside the CPU's
    shares, the device named in the headline and the row's profile and device (``Finding.where``)."""
    from suites.sequence_cost.gpu_records import GPU_RESULTS, reference_gpu_frame

    gpu = reference_gpu_frame()
    if gpu is None:
        pytest.skip(f"no reference GPU records under {GPU_RESULTS}")
    found = judged(claim, jobs(60.0, 65.0, device="cpu"))  # on the CPU recurrence is as busy as attention
    name = str(gpu.iloc[0].device_name)
    assert found.verdict == claim._judge(_frame(gpu)).verdict != "not testable here"
    assert name in found.headline.label and found.headline.unit == "x" and found.boundary == claim.AGREE_RATIO
    assert found.where == f"{gpu.iloc[0].profile}, no corpus, {gpu.iloc[0].device} ({name})"
    assert found.sentence.startswith("Not testable on this cpu") and "reference/gpu/results" in found.sentence
    assert name in found.claim.confound
    assert {e.label for e in found.estimates} >= {"fwd+bwd transformer % of peak", "fwd+bwd lstm % of peak"}
    # a GPU store holding no records of this suite: not testable here
    store = tmp_path / "sequence_cost"
    store.mkdir()
    assert judged(claim, jobs(60.0, 65.0, device="cpu"), gpu_results=tmp_path).verdict == "not testable here"


def test_no_common_length_is_not_run():
    df = jobs(30.0, 70.0)
    df = df[df.variant != "transformer"]
    assert judged(claim, df).verdict == "not run"


def test_at_attention_exactly_twice_as_busy_as_two_recurrent_layers_a_verdict_comes_at_most_2_5_percent_each_way():
    """The rule's size: attention's share exactly 2x two recurrent layers' (the busiest and one as busy), 5 repeats
    per timing with a log sd of 0.05; "disagrees" Holm-controlled across the layers."""
    rng = np.random.default_rng(5)
    sims, n, sd = 4000, 5, 0.05
    att = repeats.log_medians(np.exp(sd * rng.standard_normal((sims, n))))
    contrasts = []
    for _ in range(2):
        rec = repeats.log_medians(np.exp(sd * rng.standard_normal((sims, n))))
        c, se, df = repeats.combine([1, -1], *(np.stack([rec[i], att[i]], -1) for i in range(3)))
        contrasts.append((c + math.log(2.0), se, df))
    parts = zip(*(repeats.verdicts(c, se, df, math.log(2.0)) for c, se, df in contrasts))
    words = np.array([str(all_hold(list(p))) for p in parts])
    assert (words == "disagrees").mean() <= 0.03 and (words == "agrees").mean() <= 0.03


def test_its_rule_is_a_test_and_its_smallest_effect_is_declared():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.smallest_effect == 0.33
