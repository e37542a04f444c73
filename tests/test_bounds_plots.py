"""The compression bounds' matplotlib figures draw the numbers they are given: the bound against bits per training
error, P^T P per projector, the weights' histogram with their levels, Figure 5.1b from one run, the bound against d
per data set and model, and the best bound per run as bars -- and they take ``lab bound``'s own summaries."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from lab.bounds.family import GUESS_ERROR, MODELS  # noqa: E402
from lab.bounds.plots_mpl import (BITS_PER_KB, BoundsPlotError, best_bounds_figure, bound_curves_figure,  # noqa: E402
                                  dims_figure, model_label, occam_figure, projector_figure,
                                  quantization_figure)
from lab.plots.style import BOUND_MODEL_COLOURS  # noqa: E402


def _row(d, train, bound, bits):
    return {"d": d, "train_error": train, "compressed_bits": bits, "bound": bound, "train_error_float": train / 2,
            "test_error": train + 0.01, "coded_bits": bits - 200, "ideal_bits": bits - 210, "kl": bits * 0.69,
            "levels_used": 7, "seconds": 0.1}


def _summary(model, data, bounds, rotation=None):
    dims = [_row(d, 0.5 / (k + 1), b, 300.0 * (k + 1)) for k, (d, b) in enumerate(zip((50, 100, 200), bounds))]
    best = min(dims, key=lambda r: (r["bound"], r["d"]))
    return {"model": model, "data": data, "rotation": rotation, "dims": dims, "best_bound": best["bound"],
            "best_dim": best["d"], "best_test_error": best["test_error"], "guess_error": GUESS_ERROR,
            "vacuous": best["bound"] >= GUESS_ERROR, "parameters": 7370}


def _guess_lines(ax):
    return [line for line in ax.get_lines() if line.get_linestyle() == "--" and
            list(line.get_ydata()) == [GUESS_ERROR, GUESS_ERROR]]


def test_the_legends_name_every_model_in_its_colour():
    runs = [_summary(m, "digits", [0.7, 0.5, 0.6]) for m in MODELS]
    legend = bound_curves_figure(runs).axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()][:len(MODELS)] == [model_label(m) for m in MODELS]
    assert len({to_hex(h.get_color()) for h in legend.legend_handles[:len(MODELS)]}) == len(MODELS)


def test_the_bound_against_bits_is_drawn_per_training_error():
    rows = [{"train_error": e, "bits": b, "bound": round(e + b / 1e4, 4)} for e in (0.1, 0.0) for b in (1000, 10, 100)]
    fig = occam_figure(rows, GUESS_ERROR, n=1438)
    ax = fig.axes[0]
    curves = [line for line in ax.get_lines() if line.get_linestyle() == "-"]
    assert [line.get_label() for line in curves] == ["training error 0", "training error 0.1"]
    for line, e in zip(curves, (0.0, 0.1)):
        assert list(line.get_xdata()) == [10, 100, 1000]
        assert list(line.get_ydata()) == [round(e + b / 1e4, 4) for b in (10, 100, 1000)]
    assert len(_guess_lines(ax)) == 1 and ax.get_xscale() == "log"
    assert "1,438" in ax.get_title()
    with pytest.raises(BoundsPlotError):
        occam_figure([])


def test_each_projectors_gram_is_shown_as_given():
    rng = np.random.default_rng(0)
    grams = {"dense": np.eye(4) + 0.01 * rng.standard_normal((4, 4)), "kron-sum": np.eye(4)}
    fig = projector_figure(grams)
    panels = [ax for ax in fig.axes if ax.get_images()]
    assert [ax.get_title().split(":")[0] for ax in panels] == list(grams)
    for ax, gram in zip(panels, grams.values()):
        image = ax.get_images()[0]
        np.testing.assert_array_equal(image.get_array(), gram)
        assert image.get_clim() == (-1, 1)
    with pytest.raises(BoundsPlotError):
        projector_figure({})


def test_the_weights_histogram_carries_every_weight_and_every_level():
    w = np.random.default_rng(1).standard_normal(300)
    levels, start = [-1.5, -0.2, 0.4, 1.1], [-2.0, -0.5, 0.5, 2.0]
    fig = quantization_figure(w, levels, start, bins=20)
    ax = fig.axes[0]
    assert sum(p.get_height() for p in ax.patches) == len(w)
    solid = [line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == "-"]
    dotted = [line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == ":"]
    assert solid == levels and dotted == start
    assert len(quantization_figure(w, levels).axes[0].get_lines()) == len(levels)
    with pytest.raises(BoundsPlotError):
        quantization_figure([], levels)


def test_figure_5_1b_draws_errors_sizes_and_bounds_against_d():
    s = _summary("gcnn", "rotated-digits", [0.8, 0.6, 0.7], rotation="c4")
    fig = dims_figure(s)
    err, size, bound = fig.axes
    rows = s["dims"]
    for ax in fig.axes:
        assert all(list(line.get_xdata()) == [50, 100, 200] for line in ax.get_lines()
                   if len(line.get_xdata()) == 3)
    assert [list(line.get_ydata()) for line in err.get_lines()] == \
        [[r[k] for r in rows] for k in ("train_error", "test_error", "train_error_float")]
    np.testing.assert_allclose([line.get_ydata() for line in size.get_lines()],
                               [[r[k] / BITS_PER_KB for r in rows] for k in ("compressed_bits", "coded_bits")])
    lines = bound.get_lines()
    assert list(lines[0].get_ydata()) == [0.8, 0.6, 0.7]
    assert (list(lines[1].get_xdata()), list(lines[1].get_ydata())) == ([100], [0.6])  # the d the bound chooses
    assert to_hex(lines[0].get_color()) == BOUND_MODEL_COLOURS["gcnn"]
    assert len(_guess_lines(bound)) == 1
    assert "rotated digits (c4)" in fig.get_suptitle()
    with pytest.raises(BoundsPlotError):
        dims_figure({"dims": []})


def test_the_bound_against_d_has_a_panel_per_data_set_and_a_line_per_model():
    runs = [_summary("mlp", "digits", [0.7, 0.5, 0.6]), _summary("cnn", "digits", [0.6, 0.45, 0.5]),
            _summary("cnn", "shuffled-labels", [0.98, 0.99, 1.0])]
    fig = bound_curves_figure(runs)
    assert [ax.get_title() for ax in fig.axes] == ["digits", "shuffled labels"]
    drawn = [line for line in fig.axes[0].get_lines() if line.get_linestyle() == "-"]
    assert [list(line.get_ydata()) for line in drawn] == [[0.7, 0.5, 0.6], [0.6, 0.45, 0.5]]
    assert [to_hex(line.get_color()) for line in drawn] == [BOUND_MODEL_COLOURS["mlp"], BOUND_MODEL_COLOURS["cnn"]]
    assert all(len(_guess_lines(ax)) == 1 for ax in fig.axes)
    with pytest.raises(BoundsPlotError):
        bound_curves_figure([{"dims": []}])


def test_the_best_bounds_are_bars_grouped_by_data_with_the_test_errors():
    runs = [_summary("mlp", "digits", [0.7, 0.5, 0.6]), _summary("cnn", "digits", [0.6, 0.45, 0.5]),
            _summary("cnn", "rotated-digits", [0.9, 0.8, 0.75], rotation="c4"),
            _summary("gcnn", "rotated-digits", [0.7, 0.6, 0.58], rotation="c4")]
    fig = best_bounds_figure(runs)
    ax = fig.axes[0]
    assert [p.get_height() for p in ax.patches] == [s["best_bound"] for s in runs]
    assert [to_hex(p.get_facecolor()) for p in ax.patches] == [BOUND_MODEL_COLOURS[s["model"]] for s in runs]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["digits", "rotated digits (c4)"]
    assert [t.get_text() for t in ax.texts] == [f"{s['best_bound']:.2f}" for s in runs]
    ticks = [line for line in ax.get_lines() if line.get_linestyle() == "-"]
    assert [line.get_ydata()[0] for line in ticks] == [s["best_test_error"] for s in runs]
    assert len(_guess_lines(ax)) == 1
    with pytest.raises(BoundsPlotError):
        best_bounds_figure([])


def test_the_figures_take_lab_bounds_own_summaries():
    from lab.bounds.family import FAMILY, BoundsConfig

    s = FAMILY.summary(FAMILY.run(BoundsConfig(dims="0,4", steps=2, quant_steps=2, train_points=64)))
    fig = dims_figure(s)
    assert list(fig.axes[2].get_lines()[0].get_ydata()) == [r["bound"] for r in s["dims"]]
    assert fig.axes[2].get_xscale() == "linear"  # d = 0 on the axis
    assert [p.get_height() for p in best_bounds_figure([s]).axes[0].patches] == [s["best_bound"]]
