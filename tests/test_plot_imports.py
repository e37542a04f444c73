"""The matplotlib figure modules stay light: importing one never pulls in HoloViews, Bokeh or Panel."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MPL_MODULES = sorted(f"lab.plots.{p.stem}" for p in (ROOT / "lab" / "plots").glob("*_mpl.py"))
HEAVY = ("holoviews", "bokeh", "panel")


def test_there_are_matplotlib_modules():
    assert {"lab.plots.coloring_mpl", "lab.plots.dynamics_mpl", "lab.plots.sharing_mpl"} <= set(MPL_MODULES)


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
