"""A claim's confound follows the device its records come from: the CPU's by default, its GPU one on CUDA."""

import pandas as pd

from harness.contract import suites
from harness.findings import Claim, Finding, for_device


def _found(confound_gpu=""):
    claim = Claim("k", "s", "a claim", "a source", "a figure", confound="a CPU", confound_gpu=confound_gpu)
    return Finding(claim, "agrees")


def test_a_cuda_record_takes_the_gpu_confound_and_a_cpu_one_keeps_its_own():
    assert for_device(_found("one GPU"), "cuda:0").claim.confound == "one GPU"
    assert for_device(_found("one GPU"), "cpu").claim.confound == "a CPU"
    assert for_device(_found(), "cuda").claim.confound == "a CPU"  # no GPU confound declared: unchanged


def test_every_claim_that_names_a_cpu_in_its_confound_has_a_gpu_one():
    import suites as _  # noqa: F401  (registers the built-in suites)

    for name in ("kv_cache", "sequence_cost", "attention_cost"):
        for claim in suites.get(name).claims:
            if "CPU" in claim.confound:
                assert claim.confound_gpu and "CPU" not in claim.confound_gpu.replace("2-core CPU", ""), claim.key


def test_suite_findings_apply_the_device(monkeypatch):
    suite = suites.get("sequence_cost")
    claim = next(c for c in suite.claims if c.confound_gpu)
    monkeypatch.setattr("harness.claims.judge_all", lambda suite, df: [Finding(claim, "agrees")])
    on_gpu = suite.findings(pd.DataFrame([{"device": "cuda"}]))
    on_cpu = suite.findings(pd.DataFrame([{"device": "cpu"}]))
    assert on_gpu[0].claim.confound == claim.confound_gpu and on_cpu[0].claim.confound == claim.confound
