"""The ensembles' matplotlib figures draw the numbers they are given: the error against M with its 1/sqrt(M) guide
from M = 1, the records through training per size, one digit's orbit with the ensemble's and one member's bars."""
from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lab.ensembles.plots_mpl import EnsemblePlotError, orbit_figure, sizes_figure, steps_figure  # noqa: E402
from lab.plots.style import SETTING_COLOURS  # noqa: E402


def _summary(setting, errors):
    sizes = [1, 2, 4, 8][:len(errors)]
    return {"setting": setting, "augment": "sampled", "sizes": sizes, "equivariance_error": errors,
            "orbit_same_prediction": [2.5, 2.8, 3.1, 3.3][:len(errors)], "slope": -0.5,
            "noise": {"sizes": sizes, "equivariance_error": errors, "orbit_same_prediction": [2, 2, 2, 2],
                      "slope": -0.4}}


def test_the_error_against_M_is_drawn_with_its_guide_in_the_settings_colours():
    runs = [_summary("invariant", [2.0, 1.4, 1.0, 0.7]), _summary("noninvariant-space", [2.0, 1.5, 1.2, 1.0])]
    fig = sizes_figure(runs)
    ax = fig.axes[0]
    solid = [l for l in ax.get_lines() if l.get_linestyle() == "-"]
    dotted = [l for l in ax.get_lines() if l.get_linestyle() == ":"]
    assert [list(l.get_ydata()) for l in solid] == [r["equivariance_error"] for r in runs]
    np.testing.assert_allclose(dotted[0].get_ydata(), 2.0 / np.sqrt([1, 2, 4, 8]))
    assert solid[1].get_color() == SETTING_COLOURS["noninvariant-space"]
    assert ax.get_yscale() == "log" and ax.get_xscale() == "log"
    assert fig.axes[1].get_ylim()[1] > 4 - 1e-9 and fig.axes[1].get_ylim()[0] == 1
    noise = sizes_figure(runs, inputs="noise")
    assert list(noise.axes[1].get_lines()[0].get_ydata()) == [2, 2, 2, 2]
    with pytest.raises(EnsemblePlotError):
        sizes_figure([])


def test_records_through_training_are_drawn_per_size():
    rows = [{"step": s, "inputs": i, "size": m, "equivariance_error": 1.0 / math.sqrt(m) + s / 100,
             "divergence": 0.1, "orbit_same_prediction": 3.0} for s in (0, 5, 10) for m in (1, 2, 4, 8)
            for i in ("test", "noise")]
    fig = steps_figure(rows)
    lines = fig.axes[0].get_lines()
    assert [l.get_label() for l in lines] == ["M = 1", "M = 4", "M = 8"]  # smallest, a middle one, largest
    np.testing.assert_allclose(lines[2].get_ydata(), [1 / math.sqrt(8) + s / 100 for s in (0, 5, 10)])
    with pytest.raises(EnsemblePlotError, match="metric"):
        steps_figure(rows, metric="accuracy")


def test_one_digit_along_its_orbit():
    ens = np.full((4, 10), 0.05)
    ens[:, 6] = [0.5, 0.52, 0.49, 0.51]
    one = np.full((4, 10), 0.05)
    one[:, 6] = [0.9, 0.1, 0.4, 0.2]
    example = {"images": np.random.default_rng(0).random((4, 8, 8)).tolist(), "ensemble": ens.tolist(),
               "member": one.tolist(), "members": 32, "label": 6}
    fig = orbit_figure(example)
    assert len(fig.axes) == 5  # four images and the bars
    bars = fig.axes[-1].patches
    np.testing.assert_allclose([b.get_height() for b in bars], [*ens[:, 6], *one[:, 6]])
    assert fig.axes[-1].get_ylabel() == "p(digit 6)"
    with pytest.raises(EnsemblePlotError):
        orbit_figure({})
