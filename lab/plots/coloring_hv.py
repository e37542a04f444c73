"""Interactive basis-coloring plots (HoloViews on Bokeh) drawn from a ``ColoringData``."""
from __future__ import annotations

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the Bokeh backend the options below are for)
import numpy as np
from bokeh.core.validation import silence
from bokeh.core.validation.warnings import FIXED_SIZING_MODE

from .coloring import ColoringData, Span
from .palette import (DIVERGING, GRID_COLOR, GRID_MAX, GUIDE_COLOR, LINE_COLOR, OUTLINE_COLOR, ZERO_COLOR,
                      categorical_colours, index_colours)

# HoloViews sizes plots by frame_width/frame_height, which Bokeh's validator mistakes for a missing size
silence(FIXED_SIZING_MODE, True)

MAX_SIDE = 560  # pixels of the longer side of the main plot, unless its cells would be smaller than MIN_CELL
MIN_CELL = 3  # pixels: the smallest cell drawn; a larger matrix gets a larger plot (the dashboard scrolls it)


def _frame(shape: tuple[int, int], max_side: int = MAX_SIDE, max_cell: int = 36,
           min_cell: float = MIN_CELL) -> tuple[int, int]:
    """(frame width, frame height) in pixels: square cells, the matrix's aspect ratio, the longer side
    ``max_side`` at most unless the cells would be smaller than ``min_cell`` (each side at least 80 px)."""
    rows, cols = shape
    cell = max(min_cell, min(max_cell, max_side / max(rows, cols, 1)))
    return max(int(round(cols * cell)), 80), max(int(round(rows * cell)), 80)


def _ticks(spans: list[Span], size: int):
    """Block labels at the centre of each block when there are several blocks; integer ticks for small
    matrices; else Bokeh's default ticks."""
    if len(spans) >= 2:
        return [((s.start + s.stop - 1) / 2, s.label) for s in spans]
    if size <= 12:
        return list(range(size))
    return None


def _segments(data: ColoringData, ys: list[float], xs: list[float], **style):
    """Full-width horizontal lines at ``ys`` and full-height vertical lines at ``xs`` as one glyph."""
    rows, cols = data.shape
    segs = [(-0.5, y, cols - 0.5, y) for y in ys] + [(x, -0.5, x, rows - 0.5) for x in xs]
    return hv.Segments(segs, kdims=["x", "y", "x2", "y2"]).opts(**style)


def _boundaries(data: ColoringData) -> list:
    """A faint cell grid (small matrices: blank zero entries still show their cells), guide lines between V's
    channels (light), block boundaries of direct sums (dark) and the matrix's outline."""
    out = []
    if data.stride == 1 and max(data.shape) <= GRID_MAX:
        rows, cols = data.shape
        out.append(_segments(data, [y - 0.5 for y in range(1, rows)], [x - 0.5 for x in range(1, cols)],
                             color=GRID_COLOR, line_width=1))
    if data.row_guides or data.col_guides:
        out.append(_segments(data, data.row_guides, data.col_guides, color=GUIDE_COLOR, line_width=2))
    ys = [s.start - 0.5 for s in data.row_spans[1:]]
    xs = [s.start - 0.5 for s in data.col_spans[1:]]
    if ys or xs:
        out.append(_segments(data, ys, xs, color=LINE_COLOR, line_width=1.5))
    rows, cols = data.shape
    out.append(hv.Bounds((-0.5, -0.5, cols - 0.5, rows - 0.5)).opts(color=OUTLINE_COLOR, line_width=1))
    return out


def _bounds(xs: np.ndarray, ys: np.ndarray) -> tuple[float, float, float, float]:
    """Explicit image bounds: HoloViews cannot infer a cell size from a single row or column."""
    dx = xs[1] - xs[0] if len(xs) > 1 else 1
    dy = ys[1] - ys[0] if len(ys) > 1 else 1
    return (xs[0] - dx / 2, ys[0] - dy / 2, xs[-1] + dx / 2, ys[-1] + dy / 2)


def _image(data: ColoringData, arrays: list[np.ndarray], vdims: list[str], **opts) -> hv.Image:
    """An hv.Image over (column, row) with the entry's integer row and column as extra value dimensions
    (the image's own coordinates are continuous, so hovering them would show fractions)."""
    xs, ys = data.cols, data.rows
    rows, cols = np.meshgrid(ys, xs, indexing="ij")
    img = hv.Image((xs, ys, *arrays, rows, cols), kdims=["x", "y"], vdims=[*vdims, "row", "column"],
                   bounds=_bounds(xs, ys))
    fw, fh = _frame((len(ys), len(xs)), opts.pop("max_side", MAX_SIDE))
    xlabel = f"input: {data.rep_in}" if data.rep_in else "column"
    base = dict(invert_yaxis=True, frame_width=fw, frame_height=fh, xlabel=xlabel,
                ylabel=f"output: {data.rep_out}", xticks=_ticks(data.col_spans, data.shape[1]), yticks=_ticks(data.row_spans, data.shape[0]),
                tools=["hover"], toolbar="right",
                default_tools=["pan", "wheel_zoom", "box_zoom", "reset", "save"])
    return img.opts(**{**base, **opts})


def coloring_plot(data: ColoringData):
    """The main plot: categorical colours per basis element (distinct ones, or by element number on a
    sequential scale when there are many), or a random equivariant matrix."""
    title = f"{data.group}: {data.rep_in or '?'} → {data.rep_out}   (r = {data.rank})"
    if data.kind == "categorical":
        labels = data.labels
        colour = categorical_colours if data.scheme == "distinct" else index_colours
        idx, colours = colour(labels, data.signs, data.rank)
        arrays = [idx, labels.astype(float), data.signs.astype(float)]
        img = _image(data, arrays, ["colour", "basis element", "sign"], cmap=colours,
                     clim=(-0.5, len(colours) - 0.5), clipping_colors={"NaN": ZERO_COLOR}, colorbar=False,
                     title=title, hover_tooltips=[("row", "@row"), ("column", "@column"),
                                                  ("basis element", "@{basis element}"), ("sign", "@sign")])
    else:
        img = _image(data, [data.values], ["value"], cmap=DIVERGING, clim=(-1, 1), colorbar=True,
                     title=title + "  — a random equivariant W",
                     hover_tooltips=[("row", "@row"), ("column", "@column"), ("value", "@value{0.000}")])
    return hv.Overlay([img, *_boundaries(data)]).opts(title=title)


def gallery_plot(data: ColoringData, page: int = 0, columns: int = 4):
    """One page of basis elements (continuous view: ``data.page(page)``) as one mosaic image, left to right,
    top to bottom, each tile outlined (zero entries are blank white).

    One glyph instead of a figure per element keeps the page fast; hover tells the element, its row,
    column and value.  None when there is nothing to show.
    """
    if data.kind != "continuous" or not data.gallery:
        return None
    shown = data.page(page)
    h, w = data.gallery[0].shape
    k = len(shown)
    ncol = min(columns, k)
    nrow = -(-k // ncol)
    gap = max(1, max(h, w) // 8)
    H, W = nrow * (h + gap) - gap, ncol * (w + gap) - gap
    value = np.full((H, W), np.nan)
    element, row, col = (np.full((H, W), np.nan) for _ in range(3))
    boxes = []
    for i, e in enumerate(shown):
        r0, c0 = (i // ncol) * (h + gap), (i % ncol) * (w + gap)
        value[r0:r0 + h, c0:c0 + w] = data.gallery[e]
        element[r0:r0 + h, c0:c0 + w] = e
        row[r0:r0 + h, c0:c0 + w] = data.rows[:, None]
        col[r0:r0 + h, c0:c0 + w] = data.cols[None, :]
        boxes.append((c0 - 0.5, r0 - 0.5, c0 + w - 0.5, r0 + h - 0.5))
    img = hv.Image((np.arange(W), np.arange(H), value, element, row, col), kdims=["x", "y"],
                   vdims=["value", "basis element", "row", "column"], bounds=(-0.5, -0.5, W - 0.5, H - 0.5))
    cell = min(24, 150 / max(h, w))
    title = data.gallery_title(page)
    pad = 0.25  # cells of margin, so that the outlines on the mosaic's edges are not clipped
    # each named element's name over its tile (a checked identity, ``lab.reps.named``), in the gap above it
    labels = [((i % ncol) * (w + gap) + (w - 1) / 2, (i // ncol) * (h + gap) - 0.5 - gap / 2, f"{e}: {data.names[e]}")
              for i, e in enumerate(shown) if e < len(data.names) and data.names[e]]
    top = gap if labels else 0
    img = img.opts(invert_yaxis=True, cmap=DIVERGING, clim=(-1, 1), clipping_colors={"NaN": "white"},
                   xlim=(-0.5 - pad, W - 0.5 + pad), ylim=(-0.5 - pad - top, H - 0.5 + pad),
                   frame_width=max(int(W * cell), 80), frame_height=max(int((H + top) * cell), 40), xaxis=None,
                   yaxis=None, colorbar=False, tools=["hover"], toolbar=None, title=title,
                   hover_tooltips=[("basis element", "@{basis element}"), ("row", "@row"), ("column", "@column"),
                                   ("value", "@value{0.000}")])
    outlines = hv.Rectangles(boxes).opts(fill_alpha=0, line_color=OUTLINE_COLOR, line_width=1)
    names = [hv.Text(x, y, text).opts(fontsize="9pt", text_baseline="middle") for x, y, text in labels]
    return hv.Overlay([img, outlines, *names]).opts(title=title)
