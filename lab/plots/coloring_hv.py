"""Interactive basis-coloring plots (HoloViews on Bokeh) drawn from a ``ColoringData``."""
from __future__ import annotations

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the Bokeh backend the options below are for)
import numpy as np
from bokeh.core.validation import silence
from bokeh.core.validation.warnings import FIXED_SIZING_MODE

from .coloring import ColoringData, Span
from .palette import DIVERGING, GUIDE_COLOR, LINE_COLOR, ZERO_COLOR, categorical_colours

# HoloViews sizes plots by frame_width/frame_height, which Bokeh's validator mistakes for a missing size
silence(FIXED_SIZING_MODE, True)

MAX_SIDE = 560  # pixels of the longer side of the main plot


def _frame(shape: tuple[int, int], max_side: int = MAX_SIDE, max_cell: int = 36) -> tuple[int, int]:
    rows, cols = shape
    cell = min(max_cell, max_side / max(rows, cols, 1))
    return max(int(cols * cell), 80), max(int(rows * cell), 80)


def _ticks(spans: list[Span]):
    """Block labels at the centre of each block when there are several blocks; else default ticks."""
    if len(spans) < 2:
        return None
    return [((s.start + s.stop - 1) / 2, s.label) for s in spans]


def _boundaries(data: ColoringData) -> list:
    guides = [hv.HLine(y) for y in data.row_guides] + [hv.VLine(x) for x in data.col_guides]
    lines = [hv.HLine(s.start - 0.5) for s in data.row_spans[1:]]
    lines += [hv.VLine(s.start - 0.5) for s in data.col_spans[1:]]
    return ([g.opts(color=GUIDE_COLOR, line_width=1.5) for g in guides]
            + [ln.opts(color=LINE_COLOR, line_width=1.5) for ln in lines])


def _image(data: ColoringData, arrays: list[np.ndarray], vdims: list[str], **opts) -> hv.Image:
    xs, ys = data.cols, data.rows
    img = hv.Image((xs, ys, *arrays), kdims=["column", "row"], vdims=vdims)
    fw, fh = _frame((len(ys), len(xs)), opts.pop("max_side", MAX_SIDE))
    xlabel = f"input: {data.rep_in}" if data.rep_in else "column"
    base = dict(invert_yaxis=True, frame_width=fw, frame_height=fh, xlabel=xlabel,
                ylabel=f"output: {data.rep_out}", xticks=_ticks(data.col_spans), yticks=_ticks(data.row_spans),
                tools=["hover"], toolbar="right",
                default_tools=["pan", "wheel_zoom", "box_zoom", "reset", "save"])
    return img.opts(**{**base, **opts})


def coloring_plot(data: ColoringData):
    """The main plot: categorical colours per basis element, or a random equivariant matrix."""
    title = f"{data.group}: {data.rep_in or '?'} → {data.rep_out}   (r = {data.rank})"
    if data.kind == "categorical":
        labels = data.labels
        idx, colours = categorical_colours(labels, data.signs, data.rank)
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


def gallery_plot(data: ColoringData, columns: int = 4):
    """Small multiples of individual basis elements (continuous view); None when there are none."""
    if data.kind != "continuous" or not data.gallery:
        return None
    tiles = []
    for k, b in enumerate(data.gallery):
        img = _image(data, [b], ["value"], cmap=DIVERGING, clim=(-1, 1), colorbar=False,
                     title=f"basis element {k}", max_side=150, xaxis=None, yaxis=None, toolbar=None,
                     hover_tooltips=[("row", "@row"), ("column", "@column"), ("value", "@value{0.000}")])
        tiles.append(hv.Overlay([img, *_boundaries(data)]))
    return hv.Layout(tiles).cols(columns).opts(shared_axes=False)
