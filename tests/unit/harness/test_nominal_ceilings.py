"""The nominal-ceiling table (harness/ceilings.py) against its sources' figures: each entry's dense numbers are the
figures its vendor document prints (halved where the document prints them with sparsity), its quoted text holds
those figures, and a CPU or an unlisted GPU has no entry."""

import pytest

from harness.ceilings import NOMINAL, compute_ceiling, nominal

#: torch's device name -> the figures as its source prints them: (BF16 tensor, TF32 tensor, FP32, bandwidth text,
#: bandwidth in TB/s, whether the tensor-core figures are printed with sparsity)
SOURCES = {
    # NVIDIA H100 datasheet: "BFLOAT16 Tensor Core 1,979 teraFLOPS*", "* With sparsity"
    "NVIDIA H100 80GB HBM3": ("1,979", "989", "67", "3.35TB/s", 3.35, True),
    # NVIDIA H200 page: "BFLOAT16 Tensor Core² 1,979 TFLOPS", "² With sparsity."
    "NVIDIA H200": ("1,979", "989", "67", "4.8TB/s", 4.8, True),
    # NVIDIA A100 datasheet: "BFLOAT16 Tensor Core 312 TFLOPS | 624 TFLOPS*": the first figure is dense
    "NVIDIA A100-SXM4-80GB": ("312", "156", "19.5", "2,039GB/s", 2.039, False),
    "NVIDIA A100-SXM4-40GB": ("312", "156", "19.5", "1,555GB/s", 1.555, False),
    # NVIDIA L4 datasheet: "BFLOAT16 Tensor Core 242 teraFLOPS*", "* Shown with sparsity"
    "NVIDIA L4": ("242", "120", "30.3", "300GB/s", 0.3, True),
    # Ada whitepaper, appendix A: "Peak BF16 Tensor TFLOPS with FP32 Accumulate 165.2/330.4" (dense/sparse)
    "NVIDIA GeForce RTX 4090": ("165.2", "82.6", "82.6", "1008 GB/sec", 1.008, False),
}


def number(text: str) -> float:
    return float(text.replace(",", ""))


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_each_entry_is_its_sources_figure_dense(name):
    bf16, tf32, fp32, bandwidth_text, bandwidth, sparse = SOURCES[name]
    entry = nominal(name)
    halve = 2 if sparse else 1
    assert entry.bf16_tflops == pytest.approx(number(bf16) / halve)
    assert entry.tf32_tflops == pytest.approx(number(tf32) / halve)
    assert entry.fp32_tflops == pytest.approx(number(fp32))  # FP32 without tensor cores has no sparse figure
    assert entry.bandwidth_tbs == pytest.approx(bandwidth)
    for figure in (bf16, tf32, fp32, bandwidth_text):
        assert figure in entry.written, (name, figure)
    assert ("sparsity" in entry.written.lower()) and entry.source.split(", ")[-1].startswith("https://")


def test_every_entry_of_the_table_is_pinned_here():
    assert set(NOMINAL) == set(SOURCES)


@pytest.mark.parametrize("name", ["AMD EPYC", "Intel(R) Xeon(R) Processor", "NVIDIA H100 PCIe", "NVIDIA A10G", None])
def test_a_cpu_or_an_unlisted_gpu_has_no_nominal_ceiling(name):
    assert nominal(name) is None


def test_the_ceiling_follows_the_dtype_and_float32_precision():
    h200 = nominal("NVIDIA H200")
    assert compute_ceiling(h200, "bfloat16")[0] == pytest.approx(989.5)
    assert compute_ceiling(h200, "float32") == (67, "FP32 peak without tensor cores")
    assert compute_ceiling(h200, "float32", "high")[0] == pytest.approx(494.5)
    with pytest.raises(ValueError, match="float64"):
        compute_ceiling(h200, "float64")
