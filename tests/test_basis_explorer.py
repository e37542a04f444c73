"""The Basis explorer pane driven through its parameters (no server: solves run synchronously)."""
from __future__ import annotations

import io

import numpy as np
import pytest

from lab.basis.pane import CUSTOM, BasisExplorer
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
    assert not explorer._validation.visible  # reported once: above the plot, not also beside the box
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
    from lab.basis.family import BasisConfig

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
    import lab.basis.pane as module

    assert not hasattr(module, "_EXECUTOR")


# ---------------------------------------------------------------- issue 13, item 2: numbers from the drawing
def _shown_numbers(explorer) -> tuple[int, int]:
    """(r, dimension) as the information card shows them ("### r = 15 of 256")."""
    import re

    m = re.search(r"### r = (\d+) of (\d+)", explorer._info.object)
    assert m, explorer._info.object
    return int(m.group(1)), int(m.group(2))


def _drawn_elements(explorer) -> set[int]:
    """The distinct basis-element numbers in the data of the plots on screen: the main plot's image
    (categorical), or every page of the gallery, turned with the pane's own buttons (continuous)."""
    main = explorer._plot.object.get(0)
    if "basis element" in [d.name for d in main.vdims]:
        labels = main.dimension_values("basis element")
        return set(labels[labels >= 0].astype(int).tolist())
    seen: set[int] = set()
    while True:
        numbers = explorer._gallery.object.get(0).dimension_values("basis element")
        seen |= set(numbers[~np.isnan(numbers)].astype(int).tolist())
        if explorer._next_w.disabled or not explorer._pager.visible:
            return seen
        explorer.turn_page(+1)


@pytest.mark.parametrize("group, n, rep_in, rep_out, view", [
    ("S(n)", 4, "T(2)", "T(2)", "Categorical"),  # a permutation group (orbit solver): r = Bell(4) = 15
    ("SO(n)", 3, "T(2)", "T(2)", "Continuous"),  # a continuous group: identity, transpose, trace
    ("SO(n)", 3, "T(3)", "T(3)", "Continuous"),  # r = 15: a gallery of two pages
    ("Z(n)*Z(n)", 8, "V", "V", "Categorical"),  # r = 64: coloured by element number
    ("S(n)", 5, "T(3)", "T(3)", "Categorical"),  # r = 202 = Bell(6) - 1 (partitions of 6 into at most 5 blocks)
])
def test_the_numbers_shown_are_those_of_the_plot_drawn(explorer, group, n, rep_in, rep_out, view):
    explorer.param.update(group=group, n=n, rep_in=rep_in, rep_out=rep_out)
    assert not explorer._error.visible and f"{view} view" in explorer._note.object
    rank, dim = _shown_numbers(explorer)
    main = explorer._plot.object.get(0)
    shape = main.dimension_values("row", flat=False).shape
    assert dim == shape[0] * shape[1]  # not strided at these sizes: one cell per entry
    assert rank == len(_drawn_elements(explorer))
    assert f"(r = {rank})" in explorer._plot.object.opts.get().kwargs["title"]
    if rank > 24:
        assert "sequential scale" in explorer._note.object


def test_gallery_pages_turn_and_stop_at_the_ends(explorer):
    explorer.param.update(group="SO(n)", n=3, rep_in="T(3)", rep_out="T(3)")
    assert explorer._pager.visible and explorer._prev_w.disabled and not explorer._next_w.disabled
    assert explorer._page_text.object == "page 1 of 2"
    explorer.turn_page(+1)
    assert explorer._page_text.object == "page 2 of 2" and explorer._next_w.disabled
    explorer.turn_page(+1)  # past the end: stays
    assert explorer._page_text.object == "page 2 of 2"
    explorer.rep_out = "T(2)"  # a new result starts at its first page; r = 6 fits one page
    assert not explorer._pager.visible and _shown_numbers(explorer)[0] == len(_drawn_elements(explorer)) == 6


def test_a_new_shape_rebuilds_the_plot_with_it(explorer):
    def drawn_shape():
        return explorer._plot.object.get(0).dimension_values("row", flat=False).shape

    assert drawn_shape() == (16, 16) and _shown_numbers(explorer) == (15, 256)
    explorer.rep_out = "V"  # S(4): T(2) -> V, 4 x 16, r = Bell(3) = 5
    assert drawn_shape() == (4, 16) and _shown_numbers(explorer) == (5, 64)
    explorer.rep_in = "Scalar"
    assert drawn_shape() == (4, 1) and _shown_numbers(explorer) == (1, 4)
    explorer.param.update(group="SO(n)", n=3, rep_in="T(2)", rep_out="T(2)")
    assert drawn_shape() == (9, 9) and explorer._gallery.object.get(0).dimension_values(
        "basis element", flat=False).shape == (9, 29)


def test_the_basis_drawn_is_a_control(explorer):
    explorer.param.update(group="SO(n)", n=3, rep_in="T(2)", rep_out="T(2)")
    assert explorer.basis == "canonical" and "canonical basis elements" in explorer._note.object
    explorer.basis = "solver"
    assert "as the solver returned them" in explorer._note.object and explorer.config().basis == "solver"
    assert _shown_numbers(explorer)[0] == len(_drawn_elements(explorer)) == 3


def test_one_change_is_one_solve_and_a_fresh_solve_is_not_called_cached(explorer, monkeypatch):
    from lab.basis import pane as module
    from lab.solvers import cache

    calls = []
    real = module.basis_family.run
    monkeypatch.setattr(module.basis_family, "run", lambda config, **kw: calls.append(config) or real(config, **kw))
    monkeypatch.setenv("LAB_CACHE_DIR", "off")
    cache.clear_memory()
    explorer.param.update(group="Z(n)", n=5, rep_in="V", rep_out="T(2)")  # also switches the preset to Custom
    assert len(calls) == 1 and explorer.preset == "Custom"
    assert "r = 25 of 125" in explorer._info.object and "cached" not in explorer._info.object
    explorer.basis = "solver"  # solved again: this time read from the cache, and said so
    assert len(calls) == 2 and "(cached)" in explorer._info.object


def test_the_stop_button_uses_the_current_panel_api_and_stops_the_solve():
    """Built without a deprecation warning (Panel 1.9: ``color``, not ``button_type``); a click on Stop while a
    solve is in flight cancels it, hides the progress and says so."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explorer = BasisExplorer()
        explorer.__panel__()
    deprecated = [f"{w.category.__name__}: {w.message}" for w in caught
                  if issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning, FutureWarning))]
    assert deprecated == []
    stop = explorer._stop_w
    assert (stop.label, stop.color, stop.visible) == ("Stop", "warning", False)

    class InFlight:
        cancelled = False

        def cancel(self):
            self.cancelled = True

    job = explorer._job = InFlight()
    explorer._busy(True, "solving …")
    assert stop.visible and explorer._progress.visible
    stop.clicks += 1  # what a click in the browser does
    assert job.cancelled and explorer._job is None
    assert not stop.visible and not explorer._progress.visible
    assert explorer._error.visible and explorer._error.object.startswith("stopped")


@pytest.mark.parametrize("rep_in, rep_out, side", [("V", "0*V", "output"), ("0*V", "V", "input")])
def test_a_layer_with_a_zero_dimensional_side_is_one_inline_line(explorer, rep_in, rep_out, side):
    """No weights, nothing to draw: the pane says so in one line (never 'unexpected …' or a traceback) and keeps
    the last plot, whose downloads still work."""
    plot = explorer._plot.object
    explorer.param.update(group=CUSTOM, custom_group="S(3)", rep_in=rep_in, rep_out=rep_out)
    message = explorer._error.object
    assert explorer._error.visible and message.startswith("nothing to draw") and "\n" not in message
    assert f"{side} side is zero-dimensional" in message and "unexpected" not in message
    assert explorer._plot.object is plot and "r = 15 of 256" in explorer._info.object
    assert explorer._png_file().getvalue().startswith(b"\x89PNG")


def test_the_group_menu_lists_every_catalog_group_of_one_size_or_none():
    """The menu comes from the catalog: every group of at most one size argument is there (the new SO11p(),
    O2eR3(), SL(n), GL(n) included), and each entry, its size filled in, is a group the parser builds."""
    from lab.basis.pane import GROUP_CHOICES
    from lab.groups import group_catalog, parse_group
    from lab.basis.presets import fill_size

    names = {c.split("(")[0] for c in GROUP_CHOICES if c != CUSTOM}
    for signature, _ in group_catalog():
        if signature.count(",") == 0:
            assert signature.split("(")[0] in names, signature
    assert {"SO11p()", "O2eR3()", "SL(n)", "GL(n)", "DkeR3(n)", "Z(n)*Z(n)"} <= set(GROUP_CHOICES)
    assert GROUP_CHOICES[-1] == CUSTOM and len(GROUP_CHOICES) == len(set(GROUP_CHOICES))
    for choice in GROUP_CHOICES[:-1]:
        assert parse_group(fill_size(choice, 2)).d >= 1
