"""The Equivariant models pane (``lab emlp`` in the dashboard): a run streams into its plots and table, the plotted
points are the run's own numbers, bad settings are one inline message, and Stop ends a run."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd
from bokeh.document import Document

from lab.dashboard.equivariant_models import EquivariantModels
from lab.experiments.emlp import FAMILY

sys.path.insert(0, str(Path(__file__).parent))
from polling import DEADLINE  # noqa: E402  (a hang guard, never a speed requirement)


def _pane(tmp_path, **settings):
    pane = EquivariantModels(results=str(tmp_path), worker="thread")
    pane.__panel__().get_root(Document())
    pane.param.update(task="o5", channels=8, layers=1, epochs=4, test=30, **settings)
    pane._sizes_w.value = "20,40"
    return pane


def _run_to_end(pane):
    t0 = time.monotonic()
    while pane.runner.busy and time.monotonic() - t0 < DEADLINE:
        pane.poll()
        time.sleep(0.05)
    pane.poll()
    assert not pane.runner.busy, "the run did not end"


def test_a_run_fills_the_plots_and_table_with_its_own_numbers(tmp_path):
    pane = _pane(tmp_path)
    assert pane.start()
    _run_to_end(pane)
    assert "done" in pane._status.object
    (run,) = list(tmp_path.iterdir())
    saved = FAMILY.load(run)
    means = saved.results.groupby(["model", "size"])["test_mse"].mean()
    for model, src in pane._sources.items():
        assert src.data["x"] == [20, 40]
        assert src.data["y"] == [float(means.loc[(model, n)]) for n in (20, 40)]
    table = pane._table.object
    assert isinstance(table, pd.DataFrame) and len(table) == 6  # 3 models x 2 sizes
    assert len(pane.live.groups) == 6 and len(pane.live.data) == 6 * 4  # every epoch of every model and size


def test_bad_settings_are_one_inline_message_and_stop_ends_a_run(tmp_path):
    pane = _pane(tmp_path)
    pane._sizes_w.value = "20,x"
    assert not pane.start()
    assert pane._error.visible and "whole numbers" in pane._error.object
    pane._sizes_w.value = "20"
    pane.param.update(epochs=100_000)
    assert pane.start() and not pane._error.visible
    time.sleep(0.5)
    pane.stop(wait=True, timeout=DEADLINE)
    _run_to_end(pane)
    assert "stopped" in pane._status.object
