"""The rpp family's matplotlib figure (``lab.rpp.plots_mpl``): thesis Figure 3.2's box plots, on made-up summaries
(nothing trained)."""
from __future__ import annotations

import io

import numpy as np
import pytest

from lab.errors import LabError
from lab.rpp.plots_mpl import regimes_figure
from lab.plots.style import MODEL_COLOURS

MSE = {
    "exact": {"mlp": [10.0, 12.0, 14.0], "emlp": [1.0, 2.0, 3.0], "rpp": [1.5, 2.5, 3.5]},
    "approximate": {"mlp": [4.0, 3.8, 3.9], "emlp": [3.4, 3.8, 3.7], "rpp": [2.4, 7.4, 2.7]},
    "misspecified": {"mlp": [10.0, 9.0, 13.0], "emlp": [32.0, 31.0, 33.0], "rpp": [10.0, 11.0, 9.5]},
}
ERROR = {"exact": 4e-16, "approximate": 0.17, "misspecified": 1.3}
GROUP = {"exact": "O(3)", "approximate": "O(3)", "misspecified": "SL(3)"}


def made_up(symmetry, mse=None):
    mse = mse or MSE[symmetry]
    return {"task": "inertia", "symmetry": symmetry, "regime": f"inertia-{symmetry}", "group": GROUP[symmetry],
            "variant": "original" if symmetry == "approximate" else None, "data_group": "O(3)",
            "target_symmetry_error": ERROR[symmetry], "seeds": 3, "seed_list": [0, 1, 2], "status": "finished",
            "models": {m: {"test_mse": list(v), "equivariance_error": [0.1] * len(v), "train_mse": list(v)}
                       for m, v in mse.items()}}


def drawn(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig.savefig(io.BytesIO(), format="png", dpi=60)  # it also writes a PNG
    FigureCanvasAgg(fig).draw()  # laid out last at the figure's own dpi (the extents below are measured there)
    return fig


def boxes(ax):
    """The box patches of a panel, left to right."""
    from matplotlib.patches import PathPatch

    return sorted((p for p in ax.patches if isinstance(p, PathPatch)), key=lambda p: p.get_path().vertices[:, 0].min())


def medians(ax):
    """The median lines of a panel (gid "median"), left to right: (x centre, y)."""
    return sorted((float(np.mean(line.get_xdata())), float(line.get_ydata()[0])) for line in ax.get_lines()
                  if line.get_gid() == "median")


def test_one_panel_per_regime_titled_with_the_regime_and_the_targets_error():
    fig = drawn(regimes_figure([made_up(s) for s in MSE]))
    assert len(fig.axes) == 3
    titles = [ax.get_title() for ax in fig.axes]
    for title, sym in zip(titles, MSE):
        assert f"{sym} symmetry" in title
        assert f"{ERROR[sym]:.2g}" in title and GROUP[sym] in title
    assert "authors' code" in titles[1] and "modified inertia" not in titles[0] + titles[2]
    assert "lower is better" in fig._suptitle.get_text() and "inertia" in fig._suptitle.get_text()


def test_one_box_per_model_in_order_with_the_right_median_and_a_log_axis():
    fig = drawn(regimes_figure([made_up(s) for s in MSE]))
    for ax, sym in zip(fig.axes, MSE):
        assert ax.get_yscale() == "log"
        assert [t.get_text() for t in ax.get_xticklabels()] == ["MLP", "EMLP", "RPP-EMLP"]
        patches = boxes(ax)
        assert len(patches) == 3
        for patch, m in zip(patches, ("mlp", "emlp", "rpp")):
            np.testing.assert_allclose(patch.get_facecolor()[:3], _rgb(MODEL_COLOURS[m]))
        got = [y for _, y in medians(ax)]
        assert got == pytest.approx([float(np.median(MSE[sym][m])) for m in ("mlp", "emlp", "rpp")])
        # every seed a point over its box
        points = np.concatenate([c.get_offsets() for c in ax.collections])
        assert len(points) == 9
        assert sorted(points[:, 1]) == pytest.approx(sorted(sum(MSE[sym].values(), [])))
    assert fig.axes[0].get_ylabel().startswith("test MSE")


def _rgb(colour):
    from matplotlib.colors import to_rgb

    return to_rgb(colour)


def test_models_in_the_theses_order_whatever_the_summarys_order_and_missing_seeds_left_out():
    mse = {"rpp": [2.0, float("nan")], "mlp": [5.0, 7.0], "emlp": [1.0, None]}
    fig = drawn(regimes_figure([made_up("exact", mse)]))
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_xticklabels()] == ["MLP", "EMLP", "RPP-EMLP"]
    assert [y for _, y in medians(ax)] == pytest.approx([6.0, 1.0, 2.0])


def test_the_legend_names_the_models_and_says_what_a_box_is():
    fig = drawn(regimes_figure([made_up("approximate")]))
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == ["MLP", "EMLP", "RPP-EMLP", "one seed"]
    assert "median" in legend.get_title().get_text()


def test_text_stays_inside_the_figure():
    fig = drawn(regimes_figure([made_up(s) for s in MSE]))
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    texts = [fig._suptitle, *fig.legends[0].get_texts(), fig.legends[0].get_title()]
    for ax in fig.axes:
        texts += [ax.title, ax.yaxis.label, *ax.get_xticklabels()]
    for t in texts:
        if t.get_text():
            e = t.get_window_extent(renderer)
            assert box.x0 - 1 <= e.x0 and e.x1 <= box.x1 + 1 and box.y0 - 1 <= e.y0 and e.y1 <= box.y1 + 1, t


@pytest.mark.parametrize("bad", [[], {"task": "inertia", "sizes": [30], "group": "O(3)", "models": {}},
                                 [{"task": "inertia", "sizes": [30, 100], "models": {"mlp": {"test_mse": [1, 2]}}}],
                                 ["inertia"], None])
def test_bad_input_is_a_lab_error(bad):
    with pytest.raises(LabError, match="summar"):
        regimes_figure(bad)


def test_the_trivial_baseline_is_a_dashed_line_at_the_seeds_median_inside_each_panel():
    """A summary's ``mean_mse`` (the pendulum's ``still_mse``) is a dashed line at the seeds' median, inside the
    panel's y range and named in the key; a summary written before it has no line."""
    base = {"exact": [40.0, 50.0, 45.0], "approximate": [5.0, 4.0, 6.0], "misspecified": [30.0, 20.0, 25.0]}
    summaries = [made_up(s) | {"mean_mse": base[s], "still_mse": None} for s in MSE]
    fig = drawn(regimes_figure(summaries))
    for ax, sym in zip(fig.axes, MSE):
        (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == "baseline"]
        assert line.get_linestyle() == "--" and line.get_ydata()[0] == pytest.approx(float(np.median(base[sym])))
        lo, hi = ax.get_ylim()
        assert lo < line.get_ydata()[0] < hi
    assert "predicting the training targets' mean" in [t.get_text() for t in fig.legends[0].get_texts()]
    pendulum = made_up("exact") | {"task": "pendulum", "still_mse": [2.0, 3.0], "mean_mse": None}
    fig = drawn(regimes_figure([pendulum]))
    assert [ln.get_ydata()[0] for ln in fig.axes[0].get_lines() if ln.get_gid() == "baseline"] == [2.5]
    assert "predicting no motion" in [t.get_text() for t in fig.legends[0].get_texts()]
    old = drawn(regimes_figure([made_up("exact")]))
    assert not [ln for ln in old.axes[0].get_lines() if ln.get_gid() == "baseline"]
