"""The matplotlib figure modules stay light: importing one never pulls in HoloViews, Bokeh or Panel."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: the shared ones (lab/plots) and every family's (lab/<family>/plots*_mpl.py)
MPL_MODULES = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts)
                     for p in [*(ROOT / "lab" / "plots").glob("*_mpl.py"), *(ROOT / "lab").glob("*/plots*_mpl.py")])
HEAVY = ("holoviews", "bokeh", "panel")


def test_there_are_matplotlib_modules():
    assert {"lab.plots.coloring_mpl", "lab.dynamics.plots_mpl", "lab.sharing.plots_mpl"} <= set(MPL_MODULES)


@pytest.mark.parametrize("module", MPL_MODULES)
def test_matplotlib_module_does_not_import_holoviews_bokeh_or_panel(module):
    code = ("import importlib, sys; importlib.import_module(sys.argv[1]); "
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    res = subprocess.run([sys.executable, "-c", code, module], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "", f"importing {module} imported {res.stdout.strip()}"


@pytest.mark.parametrize("module", ["lab.plots.compare_hv", "lab.plots.compare_mpl"])
def test_the_comparison_plots_import_nothing_from_the_experiments_layer(module):
    """Plots draw what they are given: importing one never loads ``lab.compare`` (which reads runs) or the
    experiment families."""
    code = ("import importlib, sys; importlib.import_module(sys.argv[1]); "
            "print(','.join(m for m in sys.modules if m == 'lab.compare' or m.startswith('lab.experiments')))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    res = subprocess.run([sys.executable, "-c", code, module], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "", f"importing {module} imported {res.stdout.strip()}"


def test_no_plot_label_shows_a_literal_underscore_subscript():
    """Bokeh draws text as it is: "Π_E⊥" would show its underscore.  The words every plot uses are declared once."""
    from lab.plots.style import AXES, METRICS

    for text in [*AXES.values(), *(w for pair in METRICS.values() for w in pair)]:
        assert "_" not in text, text


def _drift_records():
    """Two strategies, two runs, five steps of the long table ``lab.dynamics`` records (made up, not trained)."""
    return [dict(strategy=s, run=r, step=t, layer="total", diverged=False, dist_from_init=0.1 * t * (1 + r),
                 dist_from_E=(0.05 if s == "nom" else 0.005) * t, loss=1 / (t + 1), accuracy=t / 5)
            for s in ("nom", "aug") for r in range(2) for t in range(5)]


def test_both_renderers_take_the_drift_axes_from_one_table():
    """One declaration per quantity (``style.AXIS_TEXT``): Bokeh's plain Unicode, matplotlib's mathtext with a
    true subscript Π_{E⊥} (parsed by matplotlib's own parser); the figures use exactly these words."""
    from matplotlib.mathtext import MathTextParser

    from lab.dynamics.plots_hv import drift_plot
    from lab.dynamics.plots_mpl import drift_figure
    from lab.plots.style import AXES, AXES_MPL, AXIS_TEXT, METRICS

    assert set(AXES) == set(AXES_MPL) == set(AXIS_TEXT) >= {"dist_from_init", "dist_from_E"}
    assert r"\Pi_{E^\perp}" in AXES_MPL["dist_from_E"] and "Π⊥" in AXES["dist_from_E"]
    parser = MathTextParser("path")
    for text in AXES_MPL.values():
        assert text.count("$") % 2 == 0, text
        outside = text.split("$")[::2]  # the underscore of a subscript only inside $...$
        assert not any("_" in part for part in outside), text
        for math in text.split("$")[1::2]:
            parser.parse(f"${math}$")  # raises ValueError on bad mathtext
    axes = drift_figure(_drift_records(), curves=False).axes
    assert [(ax.get_xlabel(), ax.get_ylabel()) for ax in axes] == \
        [(AXES_MPL["dist_from_init"], AXES_MPL["dist_from_E"])] * 2
    opts = drift_plot(_drift_records()).opts.get().kwargs
    assert (opts["xlabel"], opts["ylabel"]) == (AXES["dist_from_init"], AXES["dist_from_E"])
    assert METRICS["drift"][0] == AXES["dist_from_E"]
