"""Recurrence leaves a GPU idle, attention keeps it busy: judged on a GPU's shares of the matmul peak, not testable
on a CPU (whose verdict is the reference GPU run's)."""

import pytest

from suites.sequence_cost.claims import recurrence_idles_device as claim
from suites.sequence_cost.tables import _frame
from tests.unit.suites.sequence_cost.claims._records import jobs, judged


@pytest.mark.parametrize(
    "recurrent,attention,verdict",
    [(30.0, 70.0, "agrees"), (40.0, 60.0, "inconclusive"), (60.0, 65.0, "disagrees"), (50.0, 20.0, "disagrees")],
)
def test_the_utilisation_verdict_on_a_gpu_follows_the_ratio_of_shares(recurrent, attention, verdict):
    found = judged(claim, jobs(recurrent, attention))
    assert found.verdict == verdict
    assert "fwd+bwd at 128 tokens" in found.sentence and (found.cause == "") == (verdict == "agrees")


@pytest.mark.parametrize("recurrent,attention", [(30.0, 70.0), (60.0, 65.0)])
def test_the_utilisation_claim_is_not_testable_on_a_cpu(recurrent, attention, tmp_path, monkeypatch):
    """A GPU claim: with no GPU records, whatever the shares on a CPU, no verdict, the shares kept and a CUDA
    device named."""
    from suites.sequence_cost import gpu_records

    monkeypatch.setattr(gpu_records, "GPU_RESULTS", tmp_path)  # no reference GPU records
    found = judged(claim, jobs(recurrent, attention, device="cpu"))
    assert found.verdict == "not testable here"
    assert "about GPUs" in found.cause and "device=cuda" in found.cause
    assert {e.label for e in found.estimates} >= {"fwd+bwd transformer % of peak", "fwd+bwd lstm % of peak"}


def test_a_cpu_run_shows_the_reference_gpu_verdict_with_its_device(tmp_path):
    """The CPU cannot test the claim; the project's reference GPU records can: their verdict is shown beside the CPU's
    shares, the device named in the headline, which is the ratio the verdict turns on against AGREE_RATIO."""
    from suites.sequence_cost.gpu_records import GPU_RESULTS, reference_gpu_frame

    gpu = reference_gpu_frame()
    if gpu is None:
        pytest.skip(f"no reference GPU records under {GPU_RESULTS}")
    found = judged(claim, jobs(60.0, 65.0, device="cpu"))  # on the CPU recurrence is as busy as attention
    name = str(gpu.iloc[0].device_name)
    assert found.verdict == claim._judge(_frame(gpu))[0] != "not testable here"
    assert name in found.headline.label and found.headline.unit == "x" and found.boundary == claim.AGREE_RATIO
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


def test_its_rule_is_declared_untested():
    assert claim.CLAIM.kind == "finding" and "2.0x" in claim.CLAIM.untested_rule
