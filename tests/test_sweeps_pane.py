"""The Sweeps tab (issue 32), without a browser: on a store the test writes (``SweepStore.append`` of synthetic rows:
test error against dataset size per model over three seeds), the figure's median lines, bands and whiskers are
``lab.sweeps.aggregate.aggregate``'s numbers, a filter removes a model's line and its points from the table, the
status line counts the points done and failed of the sweep file's size, a directory that is not a store (or an
unreadable index) is one inline message that leaves the store shown as it was, and a point's run opens in its
family's own pane (the Generalization bounds pane, the run loaded) -- an index naming a directory outside the store is
refused."""
from __future__ import annotations

import json

import numpy as np
import pytest
from bokeh.document import Document
from bokeh.models import FactorRange, LogScale

from lab.sweeps.pane import LOG_X, LOG_Y, NONE, Sweeps, default_axes, list_stores
from lab.sweeps.plots_bokeh import aggregate_figure, categorical, spans_decades
from lab.sweeps import SweepStore
from lab.sweeps.aggregate import aggregate

MODELS, SIZES, SEEDS = ("mlp", "emlp"), (100, 1000, 10000), (0, 1, 2)
SPEC = """experiment: emlp
grid:
  model: [mlp, emlp]
  size: [100, 1000, 10000]
seeds: 3
"""


def _error(model: str, size: int, seed: int) -> float:
    """A made-up test error: falling with the size, the EMLP's lower, a different spread per seed."""
    base = (0.8 if model == "mlp" else 0.3) * size ** -0.25
    return base * (1 + 0.1 * (seed - 1) + 0.03 * seed ** 2)


def _store(root, failed_point: bool = True) -> SweepStore:
    """A store of 2 models x 3 sizes x 3 seeds; the last point failed (no summary), in two index parts."""
    store = SweepStore(root)
    store.write_spec(SPEC)
    rows, t = [], 1.7e9
    for model in MODELS:
        for size in SIZES:
            for seed in SEEDS:
                t += 1
                settings = {"model": model, "size": size, "seed": seed}
                row = {"point": f"{model}-{size}-{seed}", "status": "done", "error": None, "run": None,
                       "seconds": 1.5, "finished": t, "settings": json.dumps(settings),
                       "x.model": model, "x.size": size, "x.seed": seed}
                err = _error(model, size, seed)
                row.update({"summary": json.dumps({"test_error": err, "model": model}), "s.test_error": err,
                            "s.constant": 1.0})
                rows.append(row)
    if failed_point:
        rows[-1].update(status="failed", error="RuntimeError: out of memory", summary=None, **{"s.test_error": None,
                                                                                                "s.constant": None})
    store.append(rows[:7])
    store.append(rows[7:])
    return store


def _pane(**kw) -> Sweeps:
    pane = Sweeps(**kw)
    pane.__panel__().get_root(Document())  # the layout builds into Bokeh models
    return pane


def _renderers(fig, prefix: str) -> dict:
    """{series label: its data} of the glyphs named ``prefix-<i>`` (the median lines: ``swp-median``)."""
    out = {}
    for r in fig.renderers:
        if r.name and r.name.startswith(prefix + "-") and r.name[len(prefix) + 1:].isdigit():
            data = r.data_source.data
            out[data["series"][0]] = data
    return out


@pytest.fixture
def opened(tmp_path):
    store = _store(tmp_path / "sweeps" / "emlp-sizes")
    pane = _pane(results=str(tmp_path / "sweeps"))  # the newest store under the root opens by itself
    assert pane.store is not None and pane.store.root == store.root, pane._error.object
    return pane, store


def test_the_figure_draws_the_aggregated_medians_quartiles_and_extremes(opened):
    pane, store = opened
    assert (pane._x_w.value, pane._y_w.value, pane._group_w.value) == ("size", "test_error", "model")
    assert pane._y_w.value != "constant"  # a number that never varies is not the first one shown
    want = aggregate(store.frame(), "size", "test_error", "model")
    fig = pane._figure_pane.object
    medians = _renderers(fig, "swp-median")
    assert set(medians) == {"model = mlp", "model = emlp"}
    bands, whiskers = _renderers(fig, "swp-band"), _renderers(fig, "swp-whiskers")
    for model in MODELS:
        rows = want[want["group"] == model]
        drawn = medians[f"model = {model}"]
        assert list(drawn["x"]) == [float(s) for s in rows["x"]] == [float(s) for s in SIZES]
        assert np.allclose(drawn["median"], rows["median"])
        band = bands[f"model = {model}"]
        assert np.allclose(band["q25"], rows["q25"]) and np.allclose(band["q75"], rows["q75"])
        wh = whiskers[f"model = {model}"]
        assert np.allclose(wh["min"], rows["min"]) and np.allclose(wh["max"], rows["max"])
        assert list(drawn["n"]) == list(rows["n"])
    # the values the test wrote: the median over the three seeds of the MLP at size 100 is seed 1's
    assert medians["model = mlp"]["median"][0] == pytest.approx(_error("mlp", 100, 1))
    assert list(medians["model = emlp"]["n"]) == [3, 3, 2]  # the failed point is not drawn
    assert pane._over_note.object == "Each marker: the median of 2 to 3 finished points, over seed."
    # the sizes span two decades: log x suggested and drawn; the errors span less: linear y
    assert pane._scale_w.value == [LOG_X] and isinstance(fig.x_scale, LogScale)
    status = pane._status.object
    assert "emlp" in status and "17 done" in status and "1 failed" in status and "18 points" in status


def test_a_filter_removes_a_models_line_and_its_points(opened):
    pane, _ = opened
    pane.set_filter("model", ["mlp"])
    assert pane.filters() == {"model": ["mlp"]}
    medians = _renderers(pane._figure_pane.object, "swp-median")
    assert set(medians) == {"model = mlp"}
    table = pane._table.object
    assert len(table) == 9 and set(table["model"]) == {"mlp"} and "test_error" in table
    assert all("mlp" in label for label in pane._point_w.options)
    pane.set_filter("size", [100, 10000])
    assert list(_renderers(pane._figure_pane.object, "swp-median")["model = mlp"]["x"]) == [100.0, 10000.0]
    pane.set_filter("model", [])
    fig = pane._figure_pane.object
    assert not _renderers(fig, "swp-median") and "no finished point matches" in fig.title.text


def test_grouping_by_nothing_and_a_text_axis_along_x(opened):
    pane, store = opened
    pane._group_w.value = NONE
    medians = _renderers(pane._figure_pane.object, "swp-median")
    assert list(medians) == ["test_error"]
    want = aggregate(store.frame(), "size", "test_error")
    assert np.allclose(medians["test_error"]["median"], want["median"])
    pane._x_w.value = "model"  # texts: a categorical axis, one category per model
    fig = pane._figure_pane.object
    assert isinstance(fig.x_range, FactorRange) and list(fig.x_range.factors) == ["emlp", "mlp"]
    assert "size" in pane._group_w.options and "model" not in pane._group_w.options
    pane._scale_w.value = [LOG_Y]
    assert isinstance(pane._figure_pane.object.y_scale, LogScale)


def test_a_path_that_is_not_a_store_is_one_inline_message(opened, tmp_path):
    pane, store = opened
    fig, status = pane._figure_pane.object, pane._status.object
    (tmp_path / "plain").mkdir()
    for path in (tmp_path / "plain", tmp_path / "missing", ""):
        assert pane.open(str(path)) is False
        assert pane._error.visible and "\n" not in pane._error.object
        assert ("is not a sweep store" if path else "type a sweep store") in pane._error.object
        assert pane._figure_pane.object is fig and pane._status.object == status  # the store shown stays
        assert pane.store.root == store.root
    # a damaged index part: one line naming the store
    bad = SweepStore(tmp_path / "damaged")
    bad.write_spec(SPEC)
    bad.index_dir.mkdir()
    (bad.index_dir / "part-00000000000000000001-deadbeef.parquet").write_bytes(b"not parquet")
    assert pane.open(str(bad.root)) is False
    assert "its index could not be read" in pane._error.object and "\n" not in pane._error.object


def test_a_store_with_no_finished_point_shows_an_empty_figure(tmp_path):
    store = SweepStore(tmp_path / "empty")
    store.write_spec(SPEC)
    pane = _pane(results=str(tmp_path), store=str(store.root))
    assert pane.store is not None and not pane._error.visible
    assert "0 done" in pane._status.object and "18 not run yet" in pane._status.object
    assert "no point has finished yet" in pane._figure_pane.object.title.text


def test_the_stores_under_the_root_newest_first(tmp_path):
    import os

    a, b = _store(tmp_path / "a"), _store(tmp_path / "b", failed_point=False)
    (tmp_path / "not-a-store").mkdir()
    os.utime(a.root / "sweep.yaml", ns=(1, 1))
    os.utime(a.index_dir, ns=(1, 1))
    assert list_stores(tmp_path) == [b.root, a.root]
    pane = _pane(results=str(tmp_path))
    assert pane.store.root == b.root and pane._path_w.value == str(b.root)
    assert list(pane._stores_w.options) == ["b", "a"]
    pane._stores_w.value = str(a.root)  # choosing another store opens it
    assert pane.store.root == a.root and "1 failed" in pane._status.object


def test_no_store_yet_says_how_to_make_one(tmp_path):
    pane = _pane(results=str(tmp_path / "nothing"))
    assert pane.store is None and "lab sweep" in pane._status.object
    assert pane._figure_pane.object is not None and not pane._error.visible


def _bounds_store(root):
    """A bounds sweep (model x 2) whose points' runs are saved bounds runs (written, not trained), and a point whose
    index row names a directory outside the store."""
    from lab.bounds.store import COLUMNS, save_bounds
    from lab.bounds.family import BoundsConfig

    store = SweepStore(root)
    store.write_spec("experiment: bounds\nfixed: {dims: '0,4'}\ngrid: {model: [mlp, cnn]}\n")
    rows = []
    for i, (model, best) in enumerate((("mlp", 0.82), ("cnn", 0.74))):
        dims = [{"d": d, "train_error": 0.5 - 0.1 * d / 4, "train_error_float": 0.5, "test_error": 0.55,
                 "coded_bits": 900 + d, "ideal_bits": 800 + d, "compressed_bits": 1000 + 100 * d, "kl": 600.0,
                 "bound": 0.95 if d == 0 else best, "levels": 7, "levels_used": 5, "seconds": 0.1} for d in (0, 4)]
        assert set(dims[0]) == set(COLUMNS)
        config = BoundsConfig(model=model, dims="0,4").to_dict()
        summary = {"best_bound": best, "best_dim": 4, "dims": dims, "best_test_error": 0.55, "guess_error": 0.9,
                   "vacuous": False, "model": model, "data": config["data"], "rotation": None, "status": "finished"}
        path = save_bounds(config, summary, dims, store.runs)
        rows.append({"point": f"p{i}", "status": "done", "run": f"runs/{path.name}", "finished": 1.7e9 + i,
                     "settings": json.dumps({"dims": "0,4", "model": model}), "x.model": model,
                     "summary": json.dumps(summary), "s.best_bound": best, "s.best_dim": 4.0})
    rows.append({"point": "p9", "status": "done", "run": "../elsewhere", "finished": 1.7e9 + 9,
                 "settings": json.dumps({"dims": "0,4", "model": "mlp"}), "x.model": "mlp",
                 "summary": json.dumps({"best_bound": 0.9}), "s.best_bound": 0.9, "s.best_dim": 4.0})
    store.append(rows)
    return store


def test_a_points_run_opens_in_its_familys_pane(tmp_path):
    from lab.bounds.pane import GeneralizationBounds

    store = _bounds_store(tmp_path / "bounds-models")
    pane = _pane(results=str(tmp_path), store=str(store.root))
    assert pane._x_w.value == "model" and pane._y_w.value == "best_bound"
    assert isinstance(pane._figure_pane.object.x_range, FactorRange)
    pane._point_w.value = "p1"
    note = pane._point_note.object
    assert "runs/" in note and "best_bound 0.74" in note
    assert pane._open_run_b.visible and pane._open_run_b.label == "Open in Generalization bounds"
    assert pane.open_run("p1") is True
    viewer = pane.viewer
    assert isinstance(viewer, GeneralizationBounds) and viewer.results == store.runs
    assert viewer._status.object.startswith("Loaded") and viewer.models == ["cnn"]
    assert "0.740" in viewer._headline.object
    assert viewer.main in pane._run_box.objects
    # the row that names a directory outside the store: said, not opened
    pane._point_w.value = "p9"
    assert "refused the run" in pane._point_note.object and not pane._open_run_b.visible
    assert pane.open_run("p9") is False and "refused the run" in pane._error.object
    assert pane.viewer is viewer  # the run shown stays


def test_the_figure_alone():
    """The plot module draws what it is given: no rows is an empty figure that says why."""
    fig = aggregate_figure(None, "size", "test_error", empty="nothing yet")
    assert fig.title.text.endswith("nothing yet") and not fig.renderers
    assert categorical(["a", 1]) and not categorical([1, 2.5]) and categorical([True, False])
    assert spans_decades([0.01, 1.0]) and not spans_decades([0.1, 1.0]) and not spans_decades([0, 100])
    assert default_axes({"seed": [0, 1, 2], "model": ["a", "b"], "size": [1, 2, 3]}) == ("size", "model")
