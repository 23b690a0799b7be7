"""The nominal ceilings of known devices: dense tensor-core, TF32 and FP32 peaks and memory bandwidth, each from its
vendor's document.

The cost suites divide by ceilings they measure (the fastest torch.mm of the job, one large copy or reduction); a
reader reads a share against the device's nominal peak. This table lets a report print both. Each entry is keyed by
the name torch reports (``torch.cuda.get_device_name``), holds dense figures (the vendor prints most tensor-core peaks
with 2:4 structured sparsity, twice the dense rate; those are halved here, and ``written`` quotes the figure as
printed with its footnote) and names its source. A device not in the table (every CPU) has no nominal ceiling:
``nominal`` returns None and a report says "unknown device: measured only".

Left out, their figures unconfirmed: H100 PCIe (two revisions of NVIDIA's H100 datasheet print 51 / 756* / 1,513*
and 48 / 800* / 1,600* TFLOPS for FP32 / TF32 / BF16) and A10G (an AWS part with no NVIDIA datasheet).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Nominal:
    """One device's nominal ceilings: dense TFLOP/s by arithmetic and memory bandwidth in TB/s (10^12 B/s)."""

    #: the product as its vendor names it
    part: str
    #: dense BF16 (= FP16) tensor-core peak, FP32 accumulate: what torch.mm in bfloat16 runs on
    bf16_tflops: float
    #: dense TF32 tensor-core peak: float32 matmuls with torch.set_float32_matmul_precision("high")
    tf32_tflops: float
    #: FP32 without tensor cores (SIMT): float32 matmuls at torch's default precision ("highest")
    fp32_tflops: float
    #: memory bandwidth as the vendor states it (bytes read or written per second, not the two summed)
    bandwidth_tbs: float
    #: the vendor document: title and address
    source: str
    #: the figures as the source prints them, its sparsity footnote included
    written: str


_H100_DATASHEET = (
    "NVIDIA H100 Tensor Core GPU datasheet, https://resources.nvidia.com/en-us-gpu-resources/h100-datasheet-24306"
)
_A100_DATASHEET = (
    "NVIDIA A100 Tensor Core GPU datasheet, "
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
)
_A100_WRITTEN = (
    "FP32 19.5 TFLOPS; TF32 Tensor Core 156 TFLOPS | 312 TFLOPS*; BFLOAT16 Tensor Core 312 TFLOPS | 624 TFLOPS*; "
    "* With sparsity"
)

#: torch's device name -> the device's nominal ceilings
NOMINAL: dict[str, Nominal] = {
    "NVIDIA H100 80GB HBM3": Nominal(
        part="H100 SXM",
        bf16_tflops=1979 / 2,
        tf32_tflops=989 / 2,
        fp32_tflops=67,
        bandwidth_tbs=3.35,
        source=_H100_DATASHEET,
        written="FP32 67 teraFLOPS; TF32 Tensor Core 989 teraFLOPS*; BFLOAT16 Tensor Core 1,979 teraFLOPS*; "
        "GPU memory bandwidth 3.35TB/s; * With sparsity",
    ),
    "NVIDIA H200": Nominal(
        part="H200 SXM",
        bf16_tflops=1979 / 2,
        tf32_tflops=989 / 2,
        fp32_tflops=67,
        bandwidth_tbs=4.8,
        source="NVIDIA H200 Tensor Core GPU, specifications, https://www.nvidia.com/en-us/data-center/h200/",
        written="FP32 67 TFLOPS; TF32 Tensor Core² 989 TFLOPS; BFLOAT16 Tensor Core² 1,979 TFLOPS; "
        "GPU Memory Bandwidth 4.8TB/s; ² With sparsity.",
    ),
    "NVIDIA A100-SXM4-80GB": Nominal(
        part="A100 80GB SXM",
        bf16_tflops=312,
        tf32_tflops=156,
        fp32_tflops=19.5,
        bandwidth_tbs=2.039,
        source=_A100_DATASHEET,
        written=_A100_WRITTEN + "; A100 80GB SXM GPU Memory Bandwidth 2,039GB/s",
    ),
    "NVIDIA A100-SXM4-40GB": Nominal(
        part="A100 40GB SXM",
        bf16_tflops=312,
        tf32_tflops=156,
        fp32_tflops=19.5,
        bandwidth_tbs=1.555,
        source=_A100_DATASHEET,
        written=_A100_WRITTEN + "; A100 40GB SXM GPU Memory Bandwidth 1,555GB/s",
    ),
    "NVIDIA L4": Nominal(
        part="L4",
        bf16_tflops=242 / 2,
        tf32_tflops=120 / 2,
        fp32_tflops=30.3,
        bandwidth_tbs=0.3,
        source="NVIDIA L4 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/l4/",
        written="FP32 30.3 teraFLOPs; TF32 Tensor Core 120 teraFLOPS*; BFLOAT16 Tensor Core 242 teraFLOPS*; "
        "GPU memory bandwidth 300GB/s; * Shown with sparsity. Specifications are one-half lower without sparsity.",
    ),
    "NVIDIA GeForce RTX 4090": Nominal(
        part="GeForce RTX 4090",
        bf16_tflops=165.2,
        tf32_tflops=82.6,
        fp32_tflops=82.6,
        bandwidth_tbs=1.008,
        source="NVIDIA Ada GPU Architecture whitepaper, appendix A, "
        "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf",
        written="Peak FP32 TFLOPS (non-Tensor) 82.6; Peak TF32 Tensor TFLOPS 82.6/165.2; Peak BF16 Tensor TFLOPS "
        "with FP32 Accumulate 165.2/330.4; Memory Bandwidth 1008 GB/sec; the second figure of a pair is with sparsity",
    ),
}


def nominal(device_name: str | None) -> Nominal | None:
    """The nominal ceilings of the device torch names ``device_name``, or None for a device not in the table."""
    if not isinstance(device_name, str):
        return None
    return NOMINAL.get(device_name.strip())


def compute_ceiling(entry: Nominal, dtype: str, float32_precision: str | None = None) -> tuple[float, str]:
    """(TFLOP/s, which figure) of ``entry`` that a matmul in ``dtype`` is bounded by.

    bfloat16 and float16 run on the tensor cores; float32 runs without them at torch's default precision
    ("highest") and on the TF32 tensor cores when ``float32_precision`` is "high" or "medium".
    """
    if dtype in ("bfloat16", "float16"):
        return entry.bf16_tflops, "dense BF16/FP16 tensor-core peak"
    if dtype == "float32" and float32_precision in ("high", "medium"):
        return entry.tf32_tflops, "dense TF32 tensor-core peak"
    if dtype == "float32":
        return entry.fp32_tflops, "FP32 peak without tensor cores"
    raise ValueError(f"dtype={dtype!r} has no nominal ceiling here; use bfloat16, float16 or float32.")
