"""The figure kit every suite draws with (harness/figures.py): curves with a seeded 95% interval, family styling,
labelled axes, panels and heatmaps, each figure written and closed."""

import pandas as pd
import pytest

from harness.figures import curves, finish, guide, heatmap, panel_grid, panels, points, present, pyplot, styles

VARIANTS = ["rope", "alibi", "rope+ntk", "none"]


def seeds_frame(variants=("rope", "alibi", "rope+ntk")) -> pd.DataFrame:
    """Three seeds of each variant at four lengths, the seeds spread so that every interval is wide."""
    rows = []
    for k, v in enumerate(variants):
        for seed in range(3):
            for x in (64, 128, 256, 512):
                rows.append({"variant": v, "seed": seed, "x": x, "value": 1.0 + k + 0.1 * x / 64 + 0.3 * seed})
    return pd.DataFrame(rows)


def curve_figure(path, **options):
    fig, axes = panels(size=(5, 3))
    ax = axes[0][0]
    curves(
        ax, seeds_frame(), "x", "value", order=VARIANTS, xlabel="length (characters)", ylabel="loss (nats)", **options
    )
    return ax, finish(fig, path, "a title")


def test_a_curve_figure_is_written_with_its_axis_labels(tmp_path):
    ax, path = curve_figure(tmp_path / "figures" / "curve.png")
    assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert ax.get_xlabel() == "length (characters)" and ax.get_ylabel() == "loss (nats)"
    assert ax.figure._suptitle.get_text() == "a title"
    assert not pyplot().fignum_exists(ax.figure.number)  # closed once saved


def test_the_hue_order_is_the_one_given_less_the_levels_absent():
    fig, axes = panels()
    curves(axes[0][0], seeds_frame(), "x", "value", order=VARIANTS)
    shown = [t.get_text() for t in axes[0][0].get_legend().get_texts()]
    assert shown == present(VARIANTS, seeds_frame().variant) == ["rope", "alibi", "rope+ntk"]
    pyplot().close(fig)


def test_the_interval_is_seeded_two_draws_are_byte_identical(tmp_path):
    _, a = curve_figure(tmp_path / "a.png")
    _, b = curve_figure(tmp_path / "b.png")
    assert a.read_bytes() == b.read_bytes()
    fig, axes = panels()
    curves(axes[0][0], seeds_frame(), "x", "value", order=VARIANTS)
    assert axes[0][0].collections  # the interval is drawn as a band around each curve
    pyplot().close(fig)


def test_a_curve_without_interval_draws_no_band():
    fig, axes = panels()
    curves(axes[0][0], seeds_frame(), "x", "value", order=VARIANTS, interval=False)
    assert not axes[0][0].collections
    pyplot().close(fig)


def test_a_look_gives_each_variant_its_family_colour_and_marker():
    look = styles(present(VARIANTS, seeds_frame().variant))
    fig, axes = panels()
    ax = axes[0][0]
    curves(ax, seeds_frame(), "x", "value", order=VARIANTS, look=look)
    lines = {line.get_label(): line for line in ax.get_legend().get_lines()}
    for v in ("rope", "alibi", "rope+ntk"):
        assert tuple(lines[v].get_color()[:3]) == pytest.approx(look[v].colour)
        assert lines[v].get_marker() == look[v].marker
    assert look["rope"].family == look["rope+ntk"].family != look["alibi"].family
    pyplot().close(fig)


def test_points_draw_a_seeded_interval_per_level():
    fig, axes = panels()
    ax = axes[0][0]
    points(ax, seeds_frame(), "x", "value", "variant", ["alibi", "rope", "rope+ntk"], xlabel="length", ylabel="loss")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["alibi", "rope", "rope+ntk"]
    assert ax.get_xlabel() == "length" and ax.get_ylabel() == "loss"
    pyplot().close(fig)


def test_panels_are_two_dimensional_and_a_grid_blanks_its_spare_cells():
    fig, axes = panels(1, 1)
    assert axes.shape == (1, 1)
    pyplot().close(fig)
    fig, flat = panel_grid(5, 3, (2, 2))
    assert len(flat) == 6 and [ax.axison for ax in flat] == [True] * 5 + [False]
    assert tuple(fig.get_size_inches()) == (6, 4)
    pyplot().close(fig)


def test_a_heatmap_labels_its_colour_bar_and_axes():
    fig, axes = panels()
    ax = axes[0][0]
    grid = pd.DataFrame([[0.1, 0.2], [0.3, 0.4]], index=[1, 2], columns=[64, 128])
    heatmap(ax, grid, "accuracy (share)", xlabel="length (characters)", ylabel="depth (share)", vmin=0, vmax=1)
    assert ax.collections[0].colorbar.ax.get_ylabel() == "accuracy (share)"
    assert ax.get_xlabel() == "length (characters)" and ax.get_ylabel() == "depth (share)"
    pyplot().close(fig)


def test_a_guide_is_a_thin_grey_line_with_its_label():
    fig, axes = panels()
    ax = axes[0][0]
    guide(ax, x=64, label="training length")
    guide(ax, y=0.5, style=":")
    vertical, horizontal = ax.get_lines()
    assert vertical.get_label() == "training length" and vertical.get_color() == "grey"
    assert horizontal.get_linestyle() == ":" and horizontal.get_linewidth() == 1
    pyplot().close(fig)
