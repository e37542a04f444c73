"""The live-pane base (lab/dashboard/live.py) and its decimation (lab/plots/decimate.py), headless."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lab.dashboard.live import LiveData, LivePlot, LiveView
from lab.plots.decimate import decimate, decimate_many, stride_keep

PLOTS = (LivePlot("drift", y="b", x="a", runs=True, legend=True, x_limit=True, y_limit="g1"),
         LivePlot("curve", y="a"))


def _rows(step, groups=("g0", "g1"), runs=3, seed=0):
    rng = np.random.default_rng(seed + step)
    return [{"group": g, "run": r, "step": step, "a": float(rng.normal()), "b": float(rng.normal() + 10 * j)}
            for j, g in enumerate(groups) for r in range(runs)]


def test_decimation_keeps_first_last_and_a_known_spike():
    rng = np.random.default_rng(1)
    y = np.cumsum(rng.normal(size=20_000))
    y[12_345] = y.max() + 50.0  # a divergence spike
    y[3_210] = y.min() - 50.0  # and a dip
    keep = decimate(y, 300)
    assert keep[0] == 0 and keep[-1] == len(y) - 1
    assert 12_345 in keep and 3_210 in keep
    assert len(keep) <= 304 and np.all(np.diff(keep) > 0)
    # NaN/inf (a diverged run) never break the selection and a NaN spike's place is kept too
    y[500] = np.inf
    assert 500 in decimate(y, 300)
    # short curves are sent whole; several curves: the union
    assert decimate(np.arange(50.0), 300).tolist() == list(range(50))
    z = np.zeros(20_000); z[7] = 1.0
    both = decimate_many([y, z], 300)
    assert {7, 12_345, 3_210, 0, 19_999} <= set(both.tolist())
    assert stride_keep(9, 4).tolist() == [0, 4, 8] and stride_keep(10, 4).tolist() == [0, 4, 8, 9]


def test_incremental_medians_equal_pandas_medians_of_the_whole_table():
    rows = [r for s in range(40) for r in _rows(s)]
    data = LiveData(["a", "b"], group="group", run="run")
    for s in range(0, 40, 7):  # batches of several steps, as a poll delivers them
        data.add([r for r in rows if s <= r["step"] < s + 7])
    df = pd.DataFrame(rows)
    med = df.groupby(["group", "step"])[["a", "b"]].median()
    for g in ("g0", "g1"):
        assert np.allclose(data.median(g, "b"), med.loc[g]["b"].to_numpy())
    bulk = LiveData.from_frame(df, ["a", "b"], group="group", run="run")
    assert bulk.steps == data.steps
    for g in ("g0", "g1"):
        for c in ("a", "b"):
            assert np.allclose(bulk.median(g, c), data.median(g, c))
        assert all(np.array_equal(p[1], q[1]) for p, q in zip(bulk.points[g], data.points[g]))
    assert bulk.largest("b", "g1") == pytest.approx(med.loc["g1"]["b"].max())


def test_the_view_streams_into_the_same_figures_and_ends_with_every_step():
    view = LiveView(PLOTS, group="group", run="run", live_points=16)
    view.reset(["g0", "g1"])
    fig = view.figure("drift")
    sizes = []
    for s in range(100):
        view.add(_rows(s))
        if s % 5 == 4:
            view.draw()
            xs, _ = view.points("curve", "g0")
            sizes.append(len(xs))
            assert xs[-1] == s  # the newest point is always drawn
            assert view.figure("drift") is fig  # streamed, never rebuilt
    assert max(sizes) <= 16 + 2  # the live view stays bounded: the stride doubled
    assert view._stride > 1
    view.draw(final=True)
    xs, ys = view.points("curve", "g0")
    assert xs == [float(s) for s in range(100)]
    assert np.allclose(ys, view.data.median("g0", "a"))
    assert view.figure("drift") is fig and view.note == ""
    # axis limits: MARGIN times the largest median, y of group g1
    assert fig.y_range.end == pytest.approx(1.2 * np.nanmax(view.data.median("g1", "b")))


def test_each_runs_line_is_every_segment_of_that_run():
    view = LiveView(PLOTS, group="group", run="run", live_points=8)
    view.reset(["g0"])
    for s in range(30):
        view.add(_rows(s, groups=("g0",), runs=2))
        view.draw()
    src = view._src[("drift", "g0")]
    # body + tail segments of run 0 chain from the first kept point to the newest
    body, tail = src["runs"].data, src["runs_tail"].data
    ends = set(zip(np.r_[body["x1"], tail["x1"]], np.r_[body["y1"], tail["y1"]]))
    newest = [r for r in _rows(29, groups=("g0",), runs=2)]
    assert all((r["a"], r["b"]) in ends for r in newest)
    view.draw(final=True)
    assert len(view._src[("drift", "g0")]["runs"].data["x0"]) == 2 * 29  # every step of both runs


def test_a_long_history_is_decimated_with_a_note():
    view = LiveView(PLOTS, group="group", run="run", full_points=500, run_segments=2_000)
    rows = [r for s in range(3_000) for r in _rows(s, groups=("g0",), runs=2)]
    view.load(LiveData.from_frame(pd.DataFrame(rows), view.columns, group="group", run="run"))
    xs, ys = view.points("curve", "g0")
    med = view.data.median("g0", "a")
    assert xs[0] == 0 and xs[-1] == 2_999 and len(xs) < 3_000
    assert max(ys) == med.max() and min(ys) == med.min()  # the extremes are drawn
    assert "MinMaxLTTB" in view.note and "3,000 steps" in view.note
    assert len(view._src[("drift", "g0")]["runs"].data["x0"]) <= 2_000
