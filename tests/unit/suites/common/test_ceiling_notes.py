"""The sentences that name a cost report's ceilings (suites/common/ceiling_notes.py), on made-up records: a CPU is
'unknown device: measured only', an H200's share of the measured peak converts to its share of the nominal one by
measured / nominal, and a ceiling the jobs did not record is 'not recorded', never nan or None."""

import re

import pandas as pd
import pytest

from suites.common.ceiling_notes import (
    UNKNOWN,
    accelerator_line,
    bandwidth_note,
    measured_peak,
    nominal_peak_note,
    with_nominal_share,
)

MISSING = re.compile(r"\b(?:nan|NaN|None)\b")


def records(device_name: str, device: str, dtype: str, peak_gflops: float, share: float, **facts) -> pd.DataFrame:
    """One job: its matmul peak (best at 2048 x 2048), one case's share of it, and its copy bandwidth."""
    sizes = {"1024": {"flops_per_s": peak_gflops * 0.9e9}, "2048": {"flops_per_s": peak_gflops * 1e9}}
    job = dict(device_name=device_name, device=device, dtype=dtype, status="ok", matmul_peak_gflops=peak_gflops)
    return pd.DataFrame(
        [
            {**job, "metric": "matmul_peak", "value": peak_gflops, "extra": {"sizes": sizes, "sm_clock_mhz": None}},
            {**job, "metric": "peak_fraction", "value": share, "extra": {}},
            {**job, "metric": "copy_bandwidth", "value": 15.7, "extra": {}},
        ]
    ).assign(**facts)


def test_a_cpu_is_an_unknown_device_measured_only_and_says_what_it_did_not_record():
    df = records("AMD EPYC", "cpu", "float32", 226.8, 83.3)
    assert measured_peak(df) == "the measured torch.mm peak (the fastest repeat of a 2048 x 2048 matmul in the job)"
    assert UNKNOWN in nominal_peak_note(df) and "AMD EPYC" in nominal_peak_note(df)
    assert nominal_peak_note(df, known_only=True) == ""
    assert not (with_nominal_share(df).metric == "nominal_fraction").any()
    note = bandwidth_note(df)
    assert "copy bandwidth 15.7 GB/s" in note and "read-only bandwidth not recorded" in note and UNKNOWN in note
    assert accelerator_line(df).startswith("- Accelerator: none")
    for text in (measured_peak(df), nominal_peak_note(df), note, accelerator_line(df)):
        assert not MISSING.search(text), text


def test_an_h200s_share_of_the_measured_peak_converts_to_its_share_of_the_nominal_one():
    # the reference GPU run's bfloat16 peak: 684.5 TFLOP/s measured against 989.5 nominal (1,979 with sparsity)
    df = records("NVIDIA H200", "cuda", "bfloat16", 684454.77, 50.0)
    note = nominal_peak_note(df)
    assert "989.5 TFLOP/s" in note and "69% of it" in note and "1.45x" in note and "nvidia.com" in note
    nominal = with_nominal_share(df)
    share = nominal[nominal.metric == "nominal_fraction"].value
    assert list(share) == pytest.approx([50.0 * 684454.77e9 / 989.5e12])
    assert "nominal 4,800 GB/s for NVIDIA H200" in bandwidth_note(df)


def test_a_float32_job_on_a_gpu_is_bounded_by_the_fp32_peak_unless_it_ran_tf32():
    default = records("NVIDIA H200", "cuda", "float32", 51170.0, 50.0)
    assert "FP32 peak without tensor cores 67 TFLOP/s" in nominal_peak_note(default)
    tf32 = default.assign(accelerator=[{"float32_matmul_precision": "high"}] * len(default))
    assert "TF32 tensor-core peak 494.5 TFLOP/s" in nominal_peak_note(tf32)


def test_the_accelerator_line_reads_the_recorded_facts_and_says_what_is_missing():
    facts = {"driver_version": "550.54.15", "sm_clock_max_mhz": 1980, "float32_matmul_precision": "highest"}
    df = records("NVIDIA H200", "cuda", "bfloat16", 684454.77, 50.0, library_versions=[{"cudnn": "91900"}] * 3)
    df["accelerator"] = [facts] * len(df)
    df.at[0, "extra"] = {**df.at[0, "extra"], "sm_clock_mhz": 1755}
    line = accelerator_line(df)
    assert "driver 550.54.15" in line and "cuDNN 91900" in line and "peak 1755 MHz" in line and "max 1980 MHz" in line
    old = records("NVIDIA H200", "cuda", "bfloat16", 684454.77, 50.0)  # stored before the facts were
    assert "driver not recorded" in accelerator_line(old) and not MISSING.search(accelerator_line(old))
