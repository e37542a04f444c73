"""Symmetry discovery's matplotlib figures draw the numbers they are given: the data with each generator's flow A x
and the per-point losses, the spectrum per task with the threshold and the gap's mark, the generators as heatmaps,
the singular values split at the cut, and the loop's test MSEs -- and they take ``lab discover-lie``'s own summary."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from lab.discovery.plots_mpl import (TEST_COLOURS, TEST_LABELS, DiscoveryPlotError, flow_figure,  # noqa: E402
                                     generators_figure, singular_values_figure, spectrum_figure, loop_figure)


def _dashed(ax):
    return [line for line in ax.get_lines() if line.get_linestyle() == "--"]


def test_the_flow_is_each_generators_arrows_at_the_points_and_the_losses_colour_them():
    X = np.array([[1.0, 0.0], [0.0, 2.0], [-1.0, -1.0]])
    J = np.array([[0.0, -1.0], [1.0, 0.0]])
    S = np.array([[2.0, 0.0], [0.0, 3.0]])
    losses = {"rot": [1e-4, 2e-4, 3e-4], "stretch": [0.5, 1.0, 2.0]}
    fig = flow_figure(X, [1.0, 2.0, 3.0], {"rot": (J, losses["rot"]), "stretch": (S, losses["stretch"])})
    data, *panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert len(panels) == 2
    np.testing.assert_array_equal(data.collections[0].get_offsets(), X)
    np.testing.assert_array_equal(data.collections[0].get_array(), [1.0, 2.0, 3.0])
    arrows = [c for c in data.collections[1:]]
    for quiver, A in zip(arrows, (J, S)):
        np.testing.assert_allclose(np.c_[quiver.U, quiver.V], X @ A.T)
    assert [t.get_text() for t in data.get_legend().get_texts()] == ["rot: A x", "stretch: A x"]
    for ax, name in zip(panels, losses):
        np.testing.assert_array_equal(ax.collections[0].get_offsets(), X)
        np.testing.assert_array_equal(ax.collections[0].get_array(), losses[name])
        assert ax.get_title().startswith(name)
    # one log colour scale for every panel: the same loss is the same colour everywhere
    norms = {(c.norm.vmin, c.norm.vmax) for ax in panels for c in ax.collections}
    assert norms == {(1e-4, 2.0)}
    with pytest.raises(DiscoveryPlotError):
        flow_figure(X, [1.0, 2.0, 3.0], {})
    with pytest.raises(DiscoveryPlotError):
        flow_figure(X, [1.0, 2.0, 3.0], {"rot": (J, [1.0])})
    with pytest.raises(DiscoveryPlotError):
        flow_figure(np.zeros((3, 3)), [1.0, 2.0, 3.0], {"rot": (J, [1.0] * 3)})


def test_the_spectra_are_drawn_per_task_with_the_threshold_and_the_gap():
    spectra = {"plane": [0.003, 0.1, 1.9, 2.0], "none": [0.013, 0.02, 0.03]}
    fig = spectrum_figure(spectra, 0.005, mark=1)
    ax = fig.axes[0]
    curves = [line for line in ax.get_lines() if line.get_linestyle() == "-"]
    assert [line.get_label() for line in curves] == ["plane", "none"]
    for line, values in zip(curves, spectra.values()):
        assert line.get_xdata().tolist() == list(range(1, len(values) + 1))
        assert line.get_ydata().tolist() == values
    assert len({to_hex(line.get_color()) for line in curves}) == 2
    (threshold,) = _dashed(ax)
    assert list(threshold.get_ydata()) == [0.005, 0.005]
    (gap,) = [line for line in ax.get_lines() if line.get_linestyle() == ":"]
    assert list(gap.get_xdata()) == [1.5, 1.5]
    assert ax.get_yscale() == "log"
    assert not [line for line in spectrum_figure(spectra, 0.005).axes[0].get_lines() if line.get_linestyle() == ":"]
    with pytest.raises(DiscoveryPlotError):
        spectrum_figure({"plane": []}, 0.005)


def test_the_generators_are_heatmaps_on_their_own_symmetric_scales():
    A = np.array([[0.0, -1.0], [1.0, 0.0]])
    B = np.array([[0.1, 0.3], [-0.2, 0.0]])
    fig = generators_figure({"true": A, "learned": B}, notes={"learned": "angle 5.0°"})
    assert len(fig.axes) == 2
    for ax, M in zip(fig.axes, (A, B)):
        image = ax.get_images()[0]
        np.testing.assert_array_equal(image.get_array(), M)
        top = np.abs(M).max()
        assert image.get_clim() == (-top, top)
        assert sorted(t.get_text() for t in ax.texts) == sorted(f"{v:.2f}" for v in M.ravel())
    assert fig.axes[0].get_title() == "true" and fig.axes[1].get_title() == "learned\nangle 5.0°"
    with pytest.raises(DiscoveryPlotError):
        generators_figure({})


def test_the_singular_values_are_split_at_the_cut():
    values = [1.0, 0.5, 1e-3, 1e-12]
    ax = singular_values_figure(values, 0.01).axes[0]
    cut, kept = [line for line in ax.get_lines() if line.get_linestyle() == "None"]
    assert cut.get_xdata().tolist() == [1, 2] and cut.get_ydata().tolist() == [1.0, 0.5]
    assert kept.get_xdata().tolist() == [3, 4] and kept.get_ydata().tolist() == [1e-3, 1e-12]
    assert "2 at or below" in kept.get_label()
    (line,) = _dashed(ax)
    assert list(line.get_ydata()) == [0.01, 0.01]
    assert ax.get_yscale() == "log"
    with pytest.raises(DiscoveryPlotError):
        singular_values_figure([], 0.01)


def test_the_loop_is_three_bars_and_a_model_not_built_is_named():
    mse = {"mlp": 0.08, "emlp_true": 0.07, "emlp_learned": 0.09}
    ax = loop_figure(mse).axes[0]
    assert [p.get_height() for p in ax.patches] == [0.08, 0.07, 0.09]
    assert [to_hex(p.get_facecolor()) for p in ax.patches] == [TEST_COLOURS[k] for k in mse]
    assert [t.get_text() for t in ax.get_xticklabels()] == [TEST_LABELS[k] for k in mse]
    ax = loop_figure({"mlp": 0.08, "emlp_true": None, "emlp_learned": None, "why": "too large"}).axes[0]
    assert [p.get_height() for p in ax.patches] == [0.08]
    assert [t.get_text() for t in ax.texts].count("not built") == 2
    assert "too large" in ax.get_title()
    with pytest.raises(DiscoveryPlotError):
        loop_figure({"why": "nothing"})


def test_the_figures_take_lab_discover_lies_own_run(tmp_path, monkeypatch):
    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))
    from lab.discovery.family import FAMILY, DiscoveryConfig

    result = FAMILY.run(DiscoveryConfig(task="rotated-plane", method="spectral", generators=1, samples=200,
                                        fit_steps=100, hidden=16))
    s = FAMILY.summary(result)
    ax = spectrum_figure({"plane": result.spectrum}, s["threshold"], mark=s["true_dimension"]).axes[0]
    assert ax.get_lines()[0].get_ydata().tolist() == result.spectrum
    assert loop_figure(s["test_mse"]).axes[0].patches
    if s["found"]:
        fig = generators_figure({"learned": np.array(s["generators"][0])})
        np.testing.assert_array_equal(fig.axes[0].get_images()[0].get_array(), s["generators"][0])
        values = result.basis["singular_values"]
        ax = singular_values_figure(values, s["tol"]).axes[0]
        assert sum(len(line.get_xdata()) for line in ax.get_lines() if line.get_linestyle() == "None") == len(values)
