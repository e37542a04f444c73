"""lab.meter.plots_mpl draws the meter's numbers as given: the cumulative lines end at the sum of the layers'
contributions, the tangent has the Lie derivative as its slope, the study's LEE sits on a log axis with one point per
model and seed, and the gap's lines follow the input sets nearest the training data first.  Tiny untrained or
one-epoch models: seconds."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lab.errors import LabError
from lab.meter import (AliasingConfig, aliasing_study, build, cumulative_contributions, digits_data, lee_report,
                       transformed_example)
from lab.meter.plots_mpl import (INPUT_ORDER, MeterPlotError, aliasing_figure, cumulative_figure, example_figure,
                                 study_layers)
from lab.plots.style import LAYER_KIND_COLOURS


@pytest.fixture(scope="module")
def digits():
    return digits_data(0, holdout=9)


@pytest.fixture(scope="module")
def layers(digits):
    """Layer rows of two untrained variants (different layer lists: the blurred one has down2, down3)."""
    x = digits.x_test[:6]
    return {m: lee_report(build(m, width=4, classes=9), x, "translate-x", layerwise=True)["layers"]
            for m in ("cnn-stride", "cnn-blur")}


@pytest.fixture(scope="module")
def study():
    return aliasing_study(AliasingConfig(models=("cnn-stride", "cnn-blur"), transforms=("translate-x",), seeds=2,
                                         epochs=1, width=4, samples=4, device="cpu"))


def _line(ax, gid):
    return next(line for line in ax.get_lines() if line.get_gid() == gid)


def test_cumulative_lines_end_at_the_sum_of_the_contributions(layers):
    fig = cumulative_figure(layers, transform="translate-x")
    ax = fig.axes[0]
    for m, rows in layers.items():
        y = _line(ax, f"model:{m}").get_ydata()
        assert len(y) == len(rows)
        assert y[-1] == pytest.approx(sum(r["contribution"] for r in rows), rel=1e-12)
        assert y[-1] > 0  # untrained ReLU nets alias under sub-pixel translation
        np.testing.assert_allclose(y, [r["cumulative"] for r in cumulative_contributions(rows)])
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks.index("act2") < ticks.index("down2") < ticks.index("conv3")  # the blurred model's own order kept
    x_stride = _line(ax, "model:cnn-stride").get_xdata()
    assert ticks.index("down2") not in list(x_stride)  # the strided model has no down2: its line skips it
    dots = next(c for c in ax.collections if c.get_gid() == "layers:cnn-stride")
    kinds = [r["kind"] for r in layers["cnn-stride"]]
    np.testing.assert_allclose(dots.get_facecolors()[kinds.index("downsampling"), :3],
                               _rgb(LAYER_KIND_COLOURS["downsampling"]))
    assert "per pixel" in ax.get_ylabel()


def test_cumulative_fraction_ends_at_one_and_bad_rows_are_refused(layers):
    ax = cumulative_figure(layers, fraction=True).axes[0]
    for m in layers:
        assert _line(ax, f"model:{m}").get_ydata()[-1] == pytest.approx(1.0)
    with pytest.raises(MeterPlotError):
        cumulative_figure({})
    with pytest.raises(LabError):
        cumulative_figure({"m": [{"contribution": 1.0}]})


def test_example_figure_draws_the_versions_and_the_tangent(digits):
    model = build("cnn-stride", width=4, classes=9)
    ex = transformed_example(model, digits.x_test[0], "translate-x", versions=5, points=21)
    fig = example_figure(ex)
    images = [ax for ax in fig.axes if ax.get_gid() == "version"]
    assert len(images) == 5 == len(ex["t_versions"])
    for ax, img in zip(images, ex["images"]):
        np.testing.assert_array_equal(ax.get_images()[0].get_array(), img)
    assert "t = 0 (the input)" in [ax.get_title() for ax in images]
    assert "px" in images[0].get_title()
    out = next(ax for ax in fig.axes if ax.get_gid() != "version")
    top = ex["top"]
    np.testing.assert_allclose(_line(out, "top").get_ydata(), ex["outputs"][:, top])
    tangent = _line(out, "tangent")
    assert tangent.get_slope() == pytest.approx(float(ex["lie"][top]), rel=1e-12)
    assert tangent.get_xy1() == pytest.approx((0.0, float(ex["output0"][top])))
    assert "pixel" in out.get_xlabel()
    with pytest.raises(MeterPlotError):
        example_figure({"images": []})


def test_aliasing_figure_log_lee_per_model_and_seed_and_the_gap(study):
    rows = study.rows
    fig = aliasing_figure(study)
    lee_ax, gap_ax = fig.axes[0], fig.axes[1]
    assert lee_ax.get_yscale() == "log" and gap_ax.get_yscale() == "log"
    assert "per pixel" in lee_ax.get_ylabel()
    seeds = sorted({r["seed"] for r in rows if r["kind"] == "model"})
    points = [c for c in lee_ax.containers if c[0].get_gid() and c[0].get_gid().startswith("lee:")]
    assert len(points) == 2 * len(seeds)
    for c in points:  # each point is the study's test LEE for its model and seed
        _, m, s = c[0].get_gid().split(":")
        want = next(r["lee"] for r in rows if r["kind"] == "lee" and r["model"] == m and r["seed"] == int(s)
                    and r["inputs"] == "test")
        assert c[0].get_ydata()[0] == pytest.approx(want)
    line = _line(gap_ax, f"gap:cnn-blur:{seeds[0]}")
    want = [next(r["lee"] for r in rows if r["kind"] == "lee" and r["model"] == "cnn-blur" and r["seed"] == seeds[0]
                 and r["inputs"] == i) for i in INPUT_ORDER]
    np.testing.assert_allclose(line.get_ydata(), want)
    assert [t.get_text().split("\n")[0] for t in gap_ax.get_xticklabels()][:2] == ["train", "test"]
    assert len(aliasing_figure(rows, panels=("gap",)).axes) == 1
    with pytest.raises(MeterPlotError):
        aliasing_figure(rows, panels=("bars",))


def test_study_layers_feed_the_cumulative_figure_and_bad_input_is_refused(study):
    rows = study_layers(study, "cnn-blur", "translate-x")
    assert [r["name"] for r in rows][:3] == ["conv1", "act1", "conv2"] and "down2" in [r["name"] for r in rows]
    y = _line(cumulative_figure({"cnn-blur": rows}).axes[0], "model:cnn-blur").get_ydata()
    assert y[-1] == pytest.approx(sum(r["contribution"] for r in rows))
    with pytest.raises(MeterPlotError):
        study_layers(study, "cnn-smooth", "translate-x")
    with pytest.raises(MeterPlotError):
        aliasing_figure(study, transforms=["rotate"])
    with pytest.raises(MeterPlotError):
        aliasing_figure({"rows": []})
    assert not math.isnan(rows[0]["contribution"])


def _rgb(hex_colour):
    from matplotlib.colors import to_rgb

    return to_rgb(hex_colour)
