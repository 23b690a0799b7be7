"""The decode steps' roofline points (suites/kv_cache/figures.py): a decode path's FLOPs and bytes from its recorded
shapes, the whole model's step from its parameter count and recorded bytes, latent attention left out."""

import pandas as pd
import pytest

from suites.kv_cache.figures import roofline, roofline_points

S, HEADS, KV, DIM = 1024, 32, 2, 128  # cached tokens, query heads, key/value heads, head size of the path records
SPEC = {"n_layers": 2, "n_heads": 4, "n_kv_heads": 2, "d_model": 32, "position": "rope"}


def record(metric: str, value: float, x: float, extra: dict, spec=SPEC, **kw) -> dict:
    base = dict(variant="rope+gqa2", seed=0, status="ok", dtype="float32", profile_settings={"batch": 1})
    return {**base, "metric": metric, "value": value, "x": x, "extra": extra, "spec": spec, "grouping": "GQA-2", **kw}


def made_up() -> pd.DataFrame:
    path = {"path": "grouped", "heads": HEADS, "kv_heads": KV, "head_dim": DIM}
    step = {"weight_bytes": 4000, "cache_bytes_read": 2 * 2 * 2 * 8 * 32 * 4, "step_ms": 0.5}
    return pd.DataFrame(
        [
            record("decode_path_latency", 2.0, float(S), path),  # 2 ms
            record("decode_bandwidth", 10.0, 31.0, step, parameters=1000),
            record("decode_bandwidth", 10.0, 31.0, step, spec={**SPEC, "attention": "mla"}, parameters=1000),
            record("copy_bandwidth", 15.7, None, {}),
        ]
    ).assign(device_name="AMD EPYC")


def test_a_decode_path_and_a_model_step_are_their_flops_over_their_bytes():
    points = roofline_points(made_up()).set_index("kernel")
    flops = 4 * HEADS * DIM * S
    moved = (2 * KV * S * DIM + 2 * HEADS * DIM) * 4
    assert points.loc["grouped", "intensity"] == pytest.approx(flops / moved)
    assert points.loc["grouped", "flops_per_s"] == pytest.approx(flops / 2e-3)
    assert points.loc["grouped", "kind"] == "GQA-2"
    model = 2 * 1000 + 4 * 2 * 4 * 8 * 32  # 2 FLOPs per parameter, 4 L H Dh S for attention over S = 31 + 1
    assert points.loc["model step", "intensity"] == pytest.approx(model / (4000 + 2 * 2 * 2 * 8 * 32 * 4))
    assert len(points) == 2  # the latent-attention step is left out


def test_the_roofline_is_written_from_made_up_records(tmp_path):
    assert roofline(made_up(), tmp_path / "roofline.png").stat().st_size > 10_000
