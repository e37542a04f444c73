"""The Basis explorer pane driven through its parameters (no server: solves run synchronously)."""
from __future__ import annotations

import io

import numpy as np
import pytest

from lab.dashboard.basis_explorer import CUSTOM, BasisExplorer
from lab.export import load_basis


@pytest.fixture
def explorer():
    return BasisExplorer()


def test_default_preset_shows_graph_layer(explorer):
    assert "r = 15 of 256" in explorer._info.object
    assert "S(4)" in explorer._info.object and "orbit" in explorer._info.object
    assert explorer._plot.object is not None and not explorer._error.visible
    assert "Categorical view" in explorer._note.object


def test_preset_and_size_drive_the_solve(explorer):
    explorer.preset = "DeepSets"
    assert (explorer.group, explorer.n, explorer.rep_in, explorer.rep_out) == ("S(n)", 6, "V", "V")
    assert "r = 2 of 36" in explorer._info.object
    explorer.n = 9
    assert "r = 2 of 81" in explorer._info.object
    assert explorer.preset == "DeepSets"  # changing only the size keeps the preset
    explorer.preset = "Convolution"
    assert "r = 8 of 64" in explorer._info.object
    explorer.preset = "Lorentz metric"
    assert "O13()" in explorer._info.object and explorer._n_w.disabled


def test_editing_a_rep_switches_to_custom(explorer):
    explorer.rep_out = "V"
    assert explorer.preset == "Custom"
    assert "r = 5 of 64" in explorer._info.object  # S(4): T(2) -> V has Bell(3) = 5 elements


def test_custom_group_text(explorer):
    explorer.param.update(group=CUSTOM, custom_group="Z(3)*Z(3)", rep_in="V", rep_out="V")
    assert explorer._custom_w.visible
    assert "r = 9 of 81" in explorer._info.object


def test_malformed_rep_is_an_inline_error_and_keeps_the_plot(explorer):
    plot = explorer._plot.object
    explorer._in_w.value_input = "T(2"  # typing, not yet committed: live validation
    assert explorer._validation.visible and "input rep" in explorer._validation.object
    assert "position 3" in explorer._validation.object
    explorer._in_w.value_input = "T(2)"
    assert not explorer._validation.visible
    explorer.rep_in = "T(2"  # committed
    assert explorer._error.visible and "expected" in explorer._error.object
    assert explorer._plot.object is plot and "r = 15 of 256" in explorer._info.object
    explorer.rep_in = "T(2)"
    assert not explorer._error.visible


def test_unknown_group_is_an_inline_error(explorer):
    explorer.param.update(group=CUSTOM, custom_group="Q(4)")
    assert explorer._error.visible and "unknown group" in explorer._error.object


def test_memory_guard_refusal_is_inline(explorer, monkeypatch):
    monkeypatch.setenv("LAB_MEMORY_LIMIT", "1MB")
    explorer.param.update(group="SO(n)", n=3, rep_in="T(3)", rep_out="T(3)")  # 531 441 entries, dense
    assert explorer._error.visible
    assert "memory" in explorer._error.object.lower()


def test_continuous_group_shows_gallery(explorer):
    explorer.param.update(group="SO(n)", n=3, rep_in="T(2)", rep_out="T(2)")
    assert "Continuous view" in explorer._note.object and explorer._gallery_box.visible
    explorer.preset = "Levi-Civita"
    assert "Categorical view" in explorer._note.object and not explorer._gallery_box.visible


def test_exports(explorer):
    png = explorer._png_file().getvalue()
    assert png[:4] == b"\x89PNG"
    d = load_basis(io.BytesIO(explorer._npz_file().getvalue()))
    assert d["rank"] == 15 and d["group"] == "S(4)"
    assert np.unique(d["labels"]).size == 15
    assert explorer._png.filename == "S_4_T_2_to_T_2.png"


def test_superseded_solve_stops_at_its_next_progress_report():
    from lab.control import Control, Stopped
    from lab.experiments.basis import BasisConfig

    control, calls = Control(), []

    def progress(record):
        calls.append(record["message"])
        control.stop()  # a newer request arrived

    with pytest.raises(Stopped):  # a 19 683-entry solve that would take seconds stops at once
        BasisExplorer._compute(BasisConfig(group="SO(3)", rep="T(4)", rep_out="T(5)", cache=False), progress, control)
    assert len(calls) == 1


def test_each_explorer_solves_on_its_own_job():
    a, b = BasisExplorer(), BasisExplorer()
    assert a._job is None and b._job is None  # nothing shared, nothing module-level
    import lab.dashboard.basis_explorer as module

    assert not hasattr(module, "_EXECUTOR")
