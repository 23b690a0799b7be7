"""The attention kernels' roofline points (suites/attention_cost/figures.py): useful FLOP/s against useful FLOPs over
the compulsory bytes derived from the records' shapes, forward 2 (Q + KV), fwd+bwd 6 (Q + KV)."""

import pandas as pd
import pytest

from suites.attention_cost.figures import roofline, roofline_points
from suites.attention_cost.tables import with_cases

B, H, HKV, D, T = 2, 4, 2, 8, 32  # batch, query heads, key/value heads, head size, tokens
SPEC = {"kernel": "sdpa", "n_heads": H, "n_kv_heads": HKV, "d_model": H * D, "position": "none"}


def case(metric: str, value: float, pass_: str) -> dict:
    return dict(
        variant="sdpa+gqa2",
        seed=0,
        x=float(T),
        metric=metric,
        value=value,
        status="ok",
        spec=SPEC,
        profile_settings={"batch": B},
        dtype="float32",
        extra={"causal": False, "pass": pass_},
    )


def made_up() -> pd.DataFrame:
    rows = [case("flops", 0.5, "fwd"), case("throughput", 10.0, "fwd")]  # 0.5 GFLOP at 10 GFLOP/s
    rows += [case("flops", 1.5, "fwd+bwd"), case("throughput", 5.0, "fwd+bwd")]
    rows += [dict(case("matmul_peak", 200.0, None), x=None, extra={"sizes": {}}, device_name="AMD EPYC")]
    return with_cases(pd.DataFrame(rows).assign(device_name="AMD EPYC"))


def test_each_case_is_its_flops_over_its_compulsory_bytes():
    points = roofline_points(made_up()).set_index("kind")
    q, kv = B * H * T * D * 4, B * HKV * T * D * 4  # bytes of q (or the output) and of k (or v), float32
    assert points.loc["fwd, full", "intensity"] == pytest.approx(0.5e9 / (2 * (q + kv)))
    assert points.loc["fwd+bwd, full", "intensity"] == pytest.approx(1.5e9 / (6 * (q + kv)))
    assert points.loc["fwd, full", "flops_per_s"] == pytest.approx(10e9)
    assert set(points.kernel) == {"sdpa"}


def test_the_roofline_is_written_from_made_up_records(tmp_path):
    assert roofline(made_up(), tmp_path).stat().st_size > 10_000
