"""The roofline figure (suites/common/roofline.py): it writes a figure from made-up points under measured and nominal
ceilings, refuses points without the columns it plots in one sentence, and takes a group's ceilings from its records
(measured where recorded, nominal only for a device in the table)."""

import pandas as pd
import pytest

from suites.common.roofline import Ceiling, ceilings, roofline_figure

POINTS = pd.DataFrame(
    {
        "intensity": [0.5, 8.0, 16.0, 60.0],
        "flops_per_s": [5e9, 40e9, 60e9, 150e9],
        "kernel": ["naive", "sdpa", "sdpa", "flex"],
        "kind": ["fwd", "fwd", "fwd+bwd", "fwd+bwd"],
    }
)


def test_the_figure_is_written_from_made_up_points_under_every_kind_of_ceiling(tmp_path):
    found = [
        Ceiling("measured torch.mm peak", 220e9, memory=False),
        Ceiling("measured read bandwidth (sum)", 20e9, memory=True),
        Ceiling("nominal dense BF16/FP16 tensor-core peak", 989.5e12, memory=False, nominal=True),
        Ceiling("nominal memory bandwidth", 4.8e12, memory=True, nominal=True),
    ]
    path = roofline_figure(POINTS, found, tmp_path / "roofline.png", "made up")
    assert path.stat().st_size > 10_000


def test_a_figure_without_points_or_ceilings_is_still_written(tmp_path):
    empty = POINTS.iloc[0:0]
    assert roofline_figure(empty, [], tmp_path / "empty.png", "nothing timed").stat().st_size > 1_000


def test_points_without_the_plotted_columns_are_refused_in_one_sentence(tmp_path):
    with pytest.raises(ValueError, match="lack the columns kind"):
        roofline_figure(POINTS.drop(columns="kind"), [], tmp_path / "x.png", "bad")


def test_a_groups_ceilings_are_its_measured_ones_and_the_nominal_ones_of_a_known_device():
    job = dict(status="ok", dtype="bfloat16", extra={})
    rows = [
        {**job, "metric": "matmul_peak", "value": 684454.77},  # GFLOP/s
        {**job, "metric": "read_bandwidth", "value": 4000.0},  # GB/s
    ]
    h200 = ceilings(pd.DataFrame(rows).assign(device_name="NVIDIA H200"))
    assert [(c.label, c.memory, c.nominal) for c in h200] == [
        ("measured torch.mm peak", False, False),
        ("measured read bandwidth (sum)", True, False),
        ("nominal dense BF16/FP16 tensor-core peak", False, True),
        ("nominal memory bandwidth", True, True),
    ]
    assert h200[0].value == pytest.approx(684.45477e12) and h200[3].value == pytest.approx(4.8e12)
    cpu = ceilings(pd.DataFrame(rows).assign(device_name="AMD EPYC"))
    assert [c.nominal for c in cpu] == [False, False]
