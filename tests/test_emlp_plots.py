"""The emlp family's matplotlib figures (``lab.emlp.plots_mpl``): the data-efficiency figure (thesis Figure 2.5)
and the train/test curves, on made-up summaries and curve rows (nothing trained) and once on a tiny real run."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lab.emlp.plots_mpl import curves_figure, data_efficiency_figure, model_label, rollout_figure

ROOT = Path(__file__).resolve().parent.parent
SIZES = [30, 100, 300]
MSE = {"mlp": [20.0, 8.0, 3.0], "mlp-aug": [12.0, 4.0, 1.0], "emlp": [1.0, 0.1, 0.01]}


def made_up_summary(sizes=SIZES, mse=MSE, task="inertia", group="O(3)"):
    return {"task": task, "sizes": list(sizes), "group": group, "scale": "small", "seeds": 1, "status": "finished",
            "models": {m: {"test_mse": list(v), "train_mse": [x / 2 for x in v],
                           "equivariance_error": 1e-7 if m == "emlp" else 0.3} for m, v in mse.items()}}


def drawn(fig):
    """Lay the figure out (constrained layout and legends need a draw) on an Agg canvas and hand it back."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    fig.savefig(io.BytesIO(), format="png", dpi=60)  # it also writes a PNG
    return fig


def all_text(fig) -> list[str]:
    texts = [fig._suptitle.get_text()] if fig._suptitle is not None else []
    for ax in fig.axes:
        texts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        texts += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
        if ax.get_legend() is not None:
            texts += [t.get_text() for t in ax.get_legend().get_texts()]
    for legend in fig.legends:
        texts += [t.get_text() for t in legend.get_texts()]
    return [t for t in texts if t]


def legend_texts(fig) -> list[str]:
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


def overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


# ------------------------------------------------------------------------------------------- data efficiency
def test_data_efficiency_is_log_log_with_one_line_per_model_at_the_summarys_values():
    fig = drawn(data_efficiency_figure(made_up_summary()))
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    lines = ax.get_lines()
    assert len(lines) == 3
    got = {line.get_label(): line for line in lines}
    for name, values in MSE.items():
        (line,) = [ln for label, ln in got.items() if label.startswith(model_label(name, "O(3)") + " ")]
        np.testing.assert_array_equal(line.get_xdata(), SIZES)
        np.testing.assert_array_equal(line.get_ydata(), values)
        assert line.get_marker() not in (None, "", "None", " ")
    # the thesis's names, in its order, each with its equivariance error
    assert [t.split("  ")[0] for t in legend_texts(fig)] == ["MLP", "MLP-Aug", "EMLP-O(3)"]
    assert "1e-07" in legend_texts(fig)[2]
    assert "inertia" in ax.get_title() and "O(3)" in ax.get_title()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["30", "100", "300"]


def test_data_efficiency_legend_covers_no_data():
    fig = drawn(data_efficiency_figure(made_up_summary()))
    (ax,) = fig.axes
    (legend,) = fig.legends
    renderer = fig.canvas.get_renderer()
    assert not overlaps(legend.get_window_extent(renderer), ax.get_window_extent(renderer))


def test_data_efficiency_labels_have_no_underscores():
    mse = {"mlp": [2.0, 1.0], "my_model": [1.0, 0.5]}
    fig = drawn(data_efficiency_figure(made_up_summary([10, 20], mse, task="my_task", group="SO(3)")))
    texts = all_text(fig)
    assert texts and not [t for t in texts if "_" in t]
    assert any("my model" in t for t in legend_texts(fig)) and "my task" in fig.axes[0].get_title()


def test_data_efficiency_with_a_single_size_shows_markers_inside_the_axes():
    mse = {m: v[:1] for m, v in MSE.items()}
    fig = drawn(data_efficiency_figure(made_up_summary([100], mse)))
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    lines = ax.get_lines()
    assert len(lines) == 3
    for line in lines:
        assert line.get_marker() not in (None, "", "None", " ") and line.get_markersize() >= 5
    assert sorted(float(line.get_ydata()[0]) for line in lines) == sorted(v[0] for v in mse.values())
    lo, hi = ax.get_xlim()
    assert lo < 100 < hi and hi / lo > 2
    ylo, yhi = ax.get_ylim()
    assert ylo < 1.0 and yhi > 20.0


def test_data_efficiency_leaves_a_size_not_run_as_a_gap():
    summary = made_up_summary()
    summary["models"]["mlp"]["test_mse"][1] = None
    (ax,) = drawn(data_efficiency_figure(summary)).axes
    ys = next(ln for ln in ax.get_lines() if ln.get_label().startswith("MLP ")).get_ydata()
    assert np.isnan(ys[1]) and ys[0] == 20.0 and ys[2] == 3.0


# ------------------------------------------------------------------------------------------- curves
def made_up_curves(sizes=(30, 100), seeds=(0, 1), epochs=(1, 2, 3)):
    """Curve rows as ``curves.csv`` holds them (model, size, epoch, train_mse, test_mse, seed)."""
    return [{"kind": "epoch", "model": m, "size": n, "epoch": e, "epochs": epochs[-1], "seed": s,
             "train_mse": (k + 1) / e / n + s, "test_mse": 2 * (k + 1) / e / n + s}
            for k, m in enumerate(("mlp", "mlp-aug", "emlp")) for n in sizes for s in seeds for e in epochs]


def test_curves_one_panel_per_size_with_train_and_test_per_model():
    rows = made_up_curves()
    fig = drawn(curves_figure(rows, group="O(3)"))
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["N = 30", "N = 100"]
    for ax, n in zip(axes, (30, 100)):
        assert ax.get_yscale() == "log"
        lines = ax.get_lines()
        assert len(lines) == 6  # test and train for each of three models
        tests = [ln for ln in lines if ln.get_linestyle() == "-"]
        trains = [ln for ln in lines if ln.get_linestyle() == "--"]
        assert len(tests) == len(trains) == 3
        for k, (test, train) in enumerate(zip(tests, trains)):  # MLP, MLP-Aug, EMLP; seeds averaged
            np.testing.assert_array_equal(test.get_xdata(), [1, 2, 3])
            np.testing.assert_allclose(test.get_ydata(), [2 * (k + 1) / e / n + 0.5 for e in (1, 2, 3)])
            np.testing.assert_allclose(train.get_ydata(), [(k + 1) / e / n + 0.5 for e in (1, 2, 3)])
    assert legend_texts(fig) == ["MLP", "MLP-Aug", "EMLP-O(3)", "test", "train"]
    assert not [t for t in all_text(fig) if "_" in t]
    (legend,) = fig.legends
    renderer = fig.canvas.get_renderer()
    assert not any(overlaps(legend.get_window_extent(renderer), ax.get_window_extent(renderer)) for ax in axes)


def test_curves_take_a_dataframe_or_the_results_rows():
    import pandas as pd

    rows = made_up_curves(sizes=(30,), seeds=(0,))
    result_rows = [{"model": m, "size": 30, "seed": 0, "test_mse": 1.0,
                    "curve": [{k: v for k, v in r.items() if k != "seed"} for r in rows if r["model"] == m]}
                   for m in ("mlp", "mlp-aug", "emlp")]
    ys = []
    for given in (rows, pd.DataFrame(rows), result_rows):
        (ax,) = [a for a in drawn(curves_figure(given)).axes if a.get_visible()]
        ys.append([ln.get_ydata().tolist() for ln in ax.get_lines()])
    assert ys[0] == ys[1] == ys[2] and len(ys[0]) == 6


def test_curves_of_one_size_and_one_epoch_show_points():
    rows = [r for r in made_up_curves(sizes=(30,), seeds=(0,), epochs=(1,))]
    fig = drawn(curves_figure(rows))
    (ax,) = [a for a in fig.axes if a.get_visible()]
    for line in ax.get_lines():
        assert line.get_marker() not in (None, "", "None", " ")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1"]


def test_a_memorising_train_curve_does_not_squash_the_test_curves():
    """An MLP's train MSE can fall to 1e-12; the shared log axis stops two decades below the lowest test MSE."""
    rows = made_up_curves(sizes=(30, 100), seeds=(0,))
    rows += [dict(r, model="mlp", train_mse=1e-12) for r in rows if r["model"] == "mlp" and r["epoch"] == 3]
    rows = [r for r in rows if not (r["model"] == "mlp" and r["epoch"] == 3 and r["train_mse"] != 1e-12)]
    fig = drawn(curves_figure(rows))
    lowest_test = min(r["test_mse"] for r in rows)
    for ax in (a for a in fig.axes if a.get_visible()):
        bottom, top = ax.get_ylim()
        assert lowest_test / 1000 < bottom < lowest_test / 50 and top > max(r["test_mse"] for r in rows)


# ------------------------------------------------------------------------------------------- a real run
def test_a_real_run_and_its_saved_files_draw(tmp_path):
    """A tiny run of the family: its summary draws the data-efficiency figure, its saved curves.csv the curves."""
    from lab.emlp.family import EMLPConfig, FAMILY

    cfg = EMLPConfig(task="inertia", sizes=("20", "40"), models=("mlp", "emlp"), channels=16, epochs=2, test=40,
                     device="cpu")
    result = FAMILY.run(cfg)
    summary = FAMILY.summary(result)
    (ax,) = drawn(data_efficiency_figure(summary)).axes
    for line, name in zip(ax.get_lines(), ("mlp", "emlp")):
        np.testing.assert_array_equal(line.get_xdata(), [20, 40])
        np.testing.assert_allclose(line.get_ydata(), summary["models"][name]["test_mse"])
    saved = FAMILY.load(FAMILY.save(result, tmp_path))
    panels = [a for a in drawn(curves_figure(saved.curves, group=summary["group"])).axes if a.get_visible()]
    assert [a.get_title() for a in panels] == ["N = 20", "N = 40"]
    assert all(len(a.get_lines()) == 4 for a in panels)


def test_the_module_imports_no_training_code():
    """Plots draw what they are given: importing the module loads neither torch, the networks nor the family's
    manifest or science (of its own folder only the package, lazy; the tasks' titles are the shared lab.data's)."""
    light = ("lab.emlp", "lab.emlp.plots_mpl")
    code = ("import sys, lab.emlp.plots_mpl; print(','.join(m for m in sys.modules if m == 'torch' or "
            "m.startswith(('lab.nn', 'lab.emlp', 'lab.experiments', 'holoviews', 'bokeh', 'panel')) "
            f"and m not in {light!r}))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == ""


@pytest.mark.parametrize("name,group,label", [("mlp", "O(3)", "MLP"), ("mlp-aug", None, "MLP-Aug"),
                                              ("emlp", "SO13p()", "EMLP-SO13p()"), ("emlp", None, "EMLP"),
                                              ("a_b", None, "a b")])
def test_model_labels(name, group, label):
    assert model_label(name, group) == label


def _pendulum_row(model, size, seed, shift):
    t = np.arange(150) * 0.2
    true = np.zeros((150, 12))
    true[:, 3], true[:, 4], true[:, 5] = np.cos(t), np.sin(t), -3.0
    pred = true.copy()
    pred[:, 3] += shift
    return {"model": model, "size": size, "seed": seed, "rollout_error": 0.1 + shift, "times": t.tolist(),
            "rollout": {"true": true.tolist(), "pred": pred.tolist(), "true_lz": [1.0] * 150,
                        "pred_lz": (1.0 - shift * t).tolist()}}


def test_the_rollout_figure_draws_the_largest_size_outer_bob_and_lz_of_every_model():
    rows = [_pendulum_row("hnn-mlp", 8, 0, 0.5), _pendulum_row("hnn-emlp", 8, 0, 0.0),
            _pendulum_row("hnn-mlp", 64, 0, 0.3), _pendulum_row("hnn-emlp", 64, 0, 0.1),
            {"model": "hnn-mlp", "size": 64, "seed": 1, "rollout": None}]
    fig = rollout_figure(rows, group="O2eR3()")
    above, side, lz = fig.axes
    # the truth and two models (size 64, seed 0) in each panel, plus the start dot in the projections
    assert len(lz.get_lines()) == 3 and len(above.get_lines()) == 4 and len(side.get_lines()) == 4
    xs = [line.get_xdata()[0] for line in above.get_lines()[1:3]]
    assert xs == pytest.approx([1.3, 1.1])  # the outer bob (q2 = entries 3:6) of the models at N = 64
    assert side.get_lines()[0].get_ydata()[0] == -3.0  # side view: z
    assert lz.get_lines()[1].get_ydata()[-1] == pytest.approx(1.0 - 0.3 * 29.8)
    assert "N = 64" in fig._suptitle.get_text()
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert texts[0] == "true" and any(t.startswith("HNN MLP") for t in texts) and texts[-1] == "start"
    assert rollout_figure([]).axes[1].texts  # nothing to draw: it says so


def test_the_live_efficiency_legend_wraps_past_four_models():
    """The pane's efficiency plot keeps its legend above the plot: up to four models in one row, the pendulum's six
    in two rows of three (one row of six ran past a half-width plot, clipping the first label)."""
    from bokeh.models import Legend

    from lab.emlp.plots_bokeh import data_efficiency_figure as bokeh_efficiency

    six = ["hnn-mlp", "hnn-mlp-aug", "hnn-emlp", "node-mlp", "node-mlp-aug", "node-emlp"]
    for models, cols in ((["mlp", "mlp-aug", "emlp"], 3), (six, 3), (six[:4], 4)):
        fig, sources = bokeh_efficiency(models)
        (legend,) = [r for r in fig.above if isinstance(r, Legend)]
        assert legend.ncols == cols and len(legend.items) == len(models) and set(sources) == set(models)


def test_the_trivial_baseline_is_a_dashed_line_in_the_data_efficiency_figure():
    """A summary's ``mean_mse`` (predicting the training targets' mean, per size) is a dashed line in the legend;
    a summary written before it has none."""
    summary = made_up_summary() | {"mean_mse": [2.0, 2.1, 1.9]}
    fig = drawn(data_efficiency_figure(summary))
    (ax,) = fig.axes
    (line,) = [ln for ln in ax.get_lines() if ln.get_label() == "predicting the mean"]
    assert line.get_linestyle() == "--"
    np.testing.assert_array_equal(line.get_xdata(), SIZES)
    np.testing.assert_array_equal(line.get_ydata(), [2.0, 2.1, 1.9])
    assert "predicting the mean" in legend_texts(fig)
    assert len(drawn(data_efficiency_figure(made_up_summary())).axes[0].get_lines()) == 3
