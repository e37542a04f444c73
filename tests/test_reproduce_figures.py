"""The report's figures are readable: no text outside the canvas (titles, axis and tick labels, legends,
suptitles, colour bars), empty series said in words, honest colour ranges, and the trajectories kind (every run
faint, the mean bold)."""
from __future__ import annotations

import numpy as np
import pytest

from lab.plots import reproduce_mpl

LONG = ("a very long title that goes on and on about the measurement, its settings (K = 5, |D| = 100, "
        "one true block), the baseline, and every other thing a careful referee would want to read in it")
LONG_LABEL = "max over runs of ||A_aug - A_equi|| / ||A_equi - A0|| measured at every step of training, in float64"
LONG_WORD = "x" * 150  # one unbreakable token


def text_boxes(fig):
    """(name, window extent) of every drawn text of ``fig``: titles, axis labels, legends, suptitle, notes, and
    per axis the box of its drawn tick labels (``Axis.get_tightbbox`` counts only the ticks it draws)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    ticks, boxes = set(), []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks.update((id(tick.label1), id(tick.label2)))
            box = axis.get_tightbbox(renderer)
            if box is not None:
                boxes.append((f"{axis.axis_name} axis of {ax.get_title()[:30]!r}", box))
        boxes.append((f"axes {ax.get_title()[:30]!r}", ax.get_tightbbox(renderer)))
    for t in fig.findobj(Text):
        if id(t) not in ticks and t.get_visible() and t.get_text().strip():
            boxes.append((t.get_text()[:40], t.get_window_extent(renderer)))
    return boxes


def clipped(fig) -> list:
    """The texts of ``fig`` that reach outside its canvas (a pixel of slack)."""
    bb = fig.bbox
    return [(name, [round(v) for v in box.extents]) for name, box in text_boxes(fig)
            if box.x0 < bb.x0 - 1 or box.y0 < bb.y0 - 1 or box.x1 > bb.x1 + 1 or box.y1 > bb.y1 + 1]


def long_items():
    x = list(range(1, 31))
    series = {f"{LONG_LABEL[:60]} series {i}": [1.0 / (k + i) for k in x] for i in range(5)}
    runs = [{"x": [float(k) for k in x], "y": [0.1 * k * (1 + 0.1 * r) for k in x]} for r in range(3)]
    mean = {"x": [float(k) for k in x], "y": [0.1 * k * 1.1 for k in x]}
    return {
        "line": {"kind": "line", "title": LONG, "xlabel": LONG_LABEL, "ylabel": LONG_LABEL, "x": x,
                 "series": series, "logy": True},
        "line-one-word": {"kind": "line", "title": LONG_WORD, "xlabel": LONG_WORD, "ylabel": LONG_WORD, "x": x,
                          "series": {LONG_WORD: [float(k) for k in x]}},
        "bar": {"kind": "bar", "title": LONG, "ylabel": LONG_LABEL,
                "labels": [f"a long bar group label number {i}" for i in range(8)],
                "series": {f"{LONG_LABEL[:50]} {i}": [i + 1.0 + j for j in range(8)] for i in range(3)}},
        "matrix": {"kind": "matrix", "title": LONG,
                   "matrices": {f"{LONG_LABEL} {i}": np.arange(36.0).reshape(6, 6).tolist() for i in range(3)}},
        "trajectories": {"kind": "trajectories", "title": LONG, "xlabel": LONG_LABEL, "ylabel": LONG_LABEL,
                         "logx": True, "logy": True,
                         "panels": {f"{LONG_LABEL} panel {p}": {f"{LONG_LABEL[:40]} {s}": {"runs": runs, "mean": mean}
                                                                 for s in ("nom", "aug", "equi")}
                                    for p in range(3)}},
        "boxes": {"kind": "boxes", "title": LONG, "ylabel": LONG_LABEL, "logy": True,
                  "panels": {f"{LONG_LABEL[:30]} panel {p}": {f"{LONG_LABEL[:30]} {s}": [1.0 + p, 2.0 + s, 5.0 * (p + 1)]
                                                               for s in range(3)} for p in range(3)}},
    }


@pytest.mark.parametrize("name", list(long_items()))
def test_long_texts_stay_inside_the_canvas(name):
    fig = reproduce_mpl.figure(long_items()[name])
    assert clipped(fig) == []
    # the long title was wrapped, not cut: every character of it is drawn
    title = fig._suptitle.get_text() if fig._suptitle is not None else fig.axes[0].get_title()
    assert title.replace("\n", "").replace(" ", "") == long_items()[name]["title"].replace(" ", "")


def test_the_checker_sees_a_clipped_text():
    """The clipping check can fail: a title placed past the right edge is reported."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    ax.set_title(LONG)
    assert any(LONG[:20] in name for name, _ in clipped(fig))


def test_every_kind_listed_is_drawn():
    assert set(reproduce_mpl.DRAWN) == {"line", "bar", "matrix", "trajectories", "boxes"}
    for name, item in long_items().items():
        assert item["kind"] in reproduce_mpl.DRAWN
        assert reproduce_mpl.png(item)[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError):
        reproduce_mpl.figure({"kind": "table", "columns": [], "rows": []})


def _all_texts(fig) -> str:
    from matplotlib.text import Text

    return " | ".join(t.get_text() for t in fig.findobj(Text) if t.get_visible())


def test_a_bar_chart_of_zeros_says_so():
    item = {"kind": "bar", "title": "share sum", "ylabel": "mean partition distance", "labels": ["5 positions"],
            "series": {"faithful": [0.0], "merge": [0.0]}}
    fig = reproduce_mpl.figure(item)
    assert "every value is 0" in _all_texts(fig)
    assert clipped(fig) == []
    # one series of zeros among others: said in its legend entry, the others are not
    item["series"] = {"faithful": [1.0], "merge": [0.0]}
    texts = _all_texts(reproduce_mpl.figure(item))
    assert "merge (every value is 0)" in texts and "faithful (every" not in texts
    # a chart with data says nothing of the kind
    item["series"] = {"faithful": [1.0], "merge": [0.5]}
    assert "every value" not in _all_texts(reproduce_mpl.figure(item))


def test_a_line_of_missing_values_says_so():
    item = {"kind": "line", "title": "t", "xlabel": "x", "ylabel": "y", "x": [1, 2, 3],
            "series": {"gap": [None, None, None]}, "logy": True}
    assert "every value is missing" in _all_texts(reproduce_mpl.figure(item))


def _colour_limits(fig) -> list:
    """(vmin, vmax) of every image, read back from the drawn colour mapping."""
    return [tuple(float(v) for v in ax.images[0].get_clim()) for ax in fig.axes if ax.images]


def _colourbar_limits(fig) -> list:
    """The value range each colour bar spans, read back from the colour bar itself."""
    bars = [ax for ax in fig.axes if not ax.images]  # colour bar axes hold no image
    return [tuple(float(v) for v in sorted(ax.get_ylim())) for ax in bars]


def test_matrix_ranges_set_the_colour_bar():
    softmax = [[0.048, 0.068], [0.06, 0.05]]
    item = {"kind": "matrix", "title": "relaxed A", "matrices": {"A": softmax, "B": softmax},
            "ranges": {"A": [0, 1]}}
    fig = reproduce_mpl.figure(item)
    assert _colour_limits(fig)[0] == (0.0, 1.0)
    assert _colourbar_limits(fig)[0] == pytest.approx((0.0, 1.0))
    # B has no range: its data spread (0.02) is not tiny against its max (0.068), so it keeps the data's range
    assert _colourbar_limits(fig)[1] == pytest.approx((0.048, 0.068))
    whole = dict(item, vmin=-1, vmax=2, ranges={})
    assert _colourbar_limits(reproduce_mpl.figure(whole)) == [pytest.approx((-1, 2))] * 2


def test_a_near_constant_matrix_is_not_stretched():
    rng = np.random.default_rng(0)
    flat = (1.0 + 1e-4 * rng.standard_normal((5, 5))).tolist()
    fig = reproduce_mpl.figure({"kind": "matrix", "title": "flat", "matrices": {"flat": flat}})
    lo, hi = _colourbar_limits(fig)[0]
    assert lo <= 0.0 and hi >= 1.0  # widened to include 0: the noise takes a sliver of the colours
    assert "nearly constant" in _all_texts(fig)
    # a matrix with real structure keeps the data's range
    fig = reproduce_mpl.figure({"kind": "matrix", "title": "eye", "matrices": {"eye": np.eye(4).tolist()}})
    assert _colourbar_limits(fig)[0] == pytest.approx((0.0, 1.0))
    fig = reproduce_mpl.figure({"kind": "matrix", "title": "shifted",
                                "matrices": {"m": (5 + np.eye(4)).tolist()}})
    assert _colourbar_limits(fig)[0] == pytest.approx((5.0, 6.0))


def test_trajectories_draw_every_run_faint_and_the_mean_bold():
    rng = np.random.default_rng(1)
    runs = {"nom": 4, "aug": 3, "equi": 2}
    panels = {}
    for p, panel in enumerate(("Perm", "Trans")):
        panels[panel] = {}
        for label, k in runs.items():
            rs = [{"x": list(np.cumsum(rng.random(10))), "y": list(rng.random(10) + 0.1)} for _ in range(k)]
            mean = {"x": rs[0]["x"], "y": list(np.mean([r["y"] for r in rs], axis=0))}
            panels[panel][label] = {"runs": rs, "mean": mean}
    item = {"kind": "trajectories", "title": "||Pi_E-perp A|| against ||A - A0||", "xlabel": "||A - A0||",
            "ylabel": "||Pi_E-perp A||", "logx": True, "logy": True, "panels": panels}
    fig = reproduce_mpl.figure(item)
    axes = [ax for ax in fig.axes]
    assert len(axes) == 2
    for ax in axes:
        lines = ax.get_lines()
        assert len(lines) == sum(runs.values()) + len(runs)  # every run + one mean per series
        widths = sorted({line.get_linewidth() for line in lines})
        assert len(widths) == 2
        faint = [line for line in lines if line.get_linewidth() == widths[0]]
        bold = [line for line in lines if line.get_linewidth() == widths[1]]
        assert len(bold) == len(runs) and all((line.get_alpha() or 1.0) > 0.9 for line in bold)
        assert all(line.get_alpha() < 0.5 for line in faint)
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    # each series one colour, the same in both panels
    colours = [{tuple(line.get_color()) if not isinstance(line.get_color(), str) else line.get_color()
                for line in ax.get_lines()} for ax in axes]
    assert len(colours[0]) == len(runs) and colours[0] == colours[1]
    # one shared legend with one entry per series
    assert len(fig.legends) == 1 and len(fig.legends[0].get_texts()) == len(runs)
    assert clipped(fig) == []


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")
def test_every_figure_of_the_quick_report_keeps_its_text_inside(quick_report):
    """Every drawn evidence item of every claim of ``lab reproduce --quick``: no clipped text."""
    _, report = quick_report
    drawn, bad = 0, []
    for c in report["claims"]:
        for item in c["evidence"]:
            if item.get("kind") in reproduce_mpl.DRAWN:
                drawn += 1
                out = clipped(reproduce_mpl.figure(item))
                if out:
                    bad.append((c["id"], item.get("title", "")[:60], out))
    assert drawn > 0
    assert bad == []


def test_evidence_tables_read_like_the_report():
    """Notebook 00 and report.html show evidence tables through ``table_html``: 4 significant digits, never a
    16-digit float, and yes/no for truth values (as the summary table), a dash for a missing value."""
    item = {"kind": "table", "title": "t", "columns": ["ratio", "equal", "npequal", "missing", "n"],
            "rows": [[0.008720000000000001, True, np.bool_(False), None, 480], [np.float64(1 / 3), False, True, 1.5, 2]]}
    out = reproduce_mpl.table_html(item)
    cells = [c.split("<", 1)[0] for c in out.split("<td>")[1:]]
    assert cells == ["0.00872", "yes", "no", "—", "480", "0.3333", "no", "yes", "1.5", "2"]


def test_boxes_draw_quartiles_median_and_every_value():
    """A box per series: its median line at numpy's median, the box from the 25th to the 75th percentile, whiskers
    to the extremes, each value a point; an empty series says "no runs"."""
    vals = [1.0, 2.0, 4.0, 8.0, 100.0]
    item = {"kind": "boxes", "title": "Figure 3.2", "ylabel": "test MSE", "logy": True,
            "panels": {"exact": {"MLP": vals, "EMLP": []}, "approximate": {"MLP": [3.0], "EMLP": [1.0, 2.0]}}}
    fig = reproduce_mpl.figure(item)
    ax = fig.axes[0]
    medians = [line for line in ax.lines if list(line.get_color()) == [0, 0, 0, 1] or line.get_color() == "black"]
    ys = {round(float(y), 9) for line in medians for y in line.get_ydata()}
    assert float(np.median(vals)) in ys
    whisker_ys = {round(float(y), 9) for line in ax.lines for y in line.get_ydata()}
    assert {min(vals), max(vals), float(np.percentile(vals, 25)), float(np.percentile(vals, 75))} <= whisker_ys
    assert sum(len(c.get_offsets()) for c in ax.collections) == len(vals)
    assert "no runs" in _all_texts(fig) and ax.get_yscale() == "log"
    assert clipped(fig) == []
