"""Sharing-discovery plots (HoloViews/Bokeh): the sharing matrix A next to A_gt, the weights it implies as a
basis-coloring plot (same style as the Basis explorer), learning curves, and method 2's symmetry matrix U.

Every heatmap is sized from its matrix: square cells of ``MAX_CELL`` pixels at most and ``MIN_CELL`` at least
(a 400 x 400 A stays readable, a 2 x 3 one is not blown up), the longer side ``MAX_SIDE`` pixels when the cells
allow it, and no side under ``MIN_SIDE`` (a 1 x 5 or 5 x 1 matrix is not a thin strip: its cells stretch to
that side instead).  Titles are short and wrap onto a second line rather than being cut off.  Nothing here
computes what a picture says: callers pass the matrices (and for A the snapped one) they draw.
"""
from __future__ import annotations

import textwrap

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401
import numpy as np

from .partition import canonical
from ..plots.coloring import ColoringData, Span
from ..plots.coloring_hv import coloring_plot
from ..plots.palette import ZERO_COLOR
from .partition import block_order as order

MAX_CELL = 36  # pixels: the largest cell side (tiny matrices)
MIN_CELL = 2  # pixels: the smallest cell side (large matrices grow beyond MAX_SIDE rather than vanish)
MAX_SIDE = 280  # pixels: the longer frame side when the cells allow it
MIN_SIDE = 90  # pixels: the shorter frame side at least (no thin strips)
TITLE_PX = 8  # pixels per character of a title (Bokeh's 11pt bold title font, generously)
WIDEN_TO = 240  # pixels: a narrower frame widens to a title up to this long rather than wrap it
CURVE_HEIGHT = 270  # pixels: the learning curves with their legend above (their width follows the page)
BLUES = "Blues"


def frame_size(rows: int, cols: int, max_side: int = MAX_SIDE, max_cell: float = MAX_CELL,
               min_cell: float = MIN_CELL, min_side: int = MIN_SIDE) -> tuple[int, int]:
    """(frame width, frame height) in pixels for a ``rows`` x ``cols`` matrix.

    >>> frame_size(6, 6), frame_size(16, 16), frame_size(400, 400)
    ((216, 216), (280, 280), (800, 800))
    >>> frame_size(1, 5), frame_size(5, 1), frame_size(68, 70)
    ((180, 90), (90, 180), (280, 272))
    """
    cell = max(min_cell, min(max_cell, max_side / max(rows, cols, 1)))
    return max(round(cols * cell), min_side), max(round(rows * cell), min_side)


def fit_title(title: str, width: int) -> tuple[str, int]:
    """(``title`` fitted to a frame ``width`` pixels wide, the frame width that holds it): a title is never cut off.
    A title up to ``WIDEN_TO`` pixels long stays on one line and a narrower frame widens to it (plots side by side
    keep one title line each: Bokeh aligns the frames of a row, and a plot with a taller title would push its
    neighbours' axes out of view); a longer one wraps.

    >>> fit_title("A_gt (truth)", 90), fit_title("A snapped: distance 1", 216)
    (('A_gt (truth)', 96), ('A snapped: distance 1', 216))
    >>> fit_title("max_k |U|: the fully connected baseline has none", 180)
    ('max_k |U|: the fully connected\\nbaseline has none', 240)
    """
    need = round(len(title) * TITLE_PX)
    if need <= max(width, WIDEN_TO):
        return title, max(width, need)
    width = max(width, WIDEN_TO)
    lines = textwrap.wrap(title, int(width // TITLE_PX), break_long_words=False) or [""]
    return "\n".join(lines), max(width, round(max(map(len, lines)) * TITLE_PX))


def _heatmap(M: np.ndarray, title: str, xlabel: str, ylabel: str, vdim: str, fw: int, fh: int, **opts):
    img = hv.Image((np.arange(M.shape[1]), np.arange(M.shape[0]), M), kdims=[xlabel, ylabel], vdims=[vdim],
                   bounds=(-0.5, -0.5, M.shape[1] - 0.5, M.shape[0] - 0.5))
    ticks = dict(xticks=list(range(M.shape[1])) if M.shape[1] <= 12 else 6,
                 yticks=list(range(M.shape[0])) if M.shape[0] <= 12 else 6)
    title, fw = fit_title(title, fw)
    base = dict(invert_yaxis=True, frame_width=fw, frame_height=fh, title=title,
                fontsize={"title": "11pt"}, tools=["hover"], toolbar=None, framewise=True, **ticks)
    return img.opts(**{**base, **opts})


def a_size(K: int) -> tuple[int, int]:
    """The frame of a K x K sharing matrix (the relaxed and the snapped A are drawn alike)."""
    return frame_size(K, K)


def a_heatmap(A: np.ndarray, gt: np.ndarray, title: str = "A (learned)", order_by=None, colorbar: bool = True):
    """A sharing matrix, rows by true block, columns by matched block; ``order_by``: the matrix whose order is
    used (the relaxed A, so that its snapped 0/1 matrix is drawn in the same rows and columns).  The image's
    values are ``A`` in that order: what is drawn is what was passed."""
    rows, cols = order(A if order_by is None else order_by, gt)
    M = np.asarray(A)[np.ix_(rows, cols)]
    fw, fh = a_size(M.shape[0])
    return _heatmap(M, title, "shared parameter", "weight entry", "A", fw, fh, cmap=BLUES, clim=(0, 1),
                    colorbar=colorbar)


def gt_heatmap(gt: np.ndarray, title: str = "A_gt (truth)"):
    """The true sharing A_gt (K x blocks), its rows at the height of the K x K heatmaps beside it."""
    gt = np.asarray(gt)
    A = np.zeros((gt.size, gt.max() + 1))
    A[np.arange(gt.size), gt] = 1
    M = A[np.argsort(gt, kind="stable")]
    _, fh = a_size(gt.size)
    cell = fh / gt.size
    fw = max(round(M.shape[1] * cell), MIN_SIDE)
    return _heatmap(M, title, "true block", "weight entry", "A", fw, fh, cmap=BLUES, clim=(0, 1), colorbar=False)


def placeholder(title: str, shape: tuple[int, int] = (2, 2)):
    """An empty (white) heatmap of ``shape`` with the same options as the real one: what a plot shows before its
    first frame."""
    fw, fh = frame_size(*shape)
    return _heatmap(np.zeros(shape), title, "column", "row", "value", fw, fh, cmap=BLUES, clim=(0, 1),
                    colorbar=False, tools=[])


def weights_coloring(labels, shape: tuple[int, int], title: str = "W", caption: str | None = None):
    """The weight matrix implied by a hard sharing ``labels``: one colour per shared parameter (Basis explorer
    style), sized like the other heatmaps; the title counts the parameters.  ``labels`` None: an empty W of
    that shape (every entry in the zero colour) titled ``caption``."""
    shape = tuple(int(s) for s in shape)
    if labels is None:  # one block drawn in the zero colour (not all NaN: HoloViews warns on an all-NaN range)
        lab, n = np.zeros(shape, dtype=np.int64), 0
    else:
        lab = canonical(labels).reshape(shape)
        n = int(lab.max()) + 1
    data = ColoringData(kind="categorical", shape=shape, rows=np.arange(shape[0]), cols=np.arange(shape[1]),
                        labels=lab.astype(np.int32), signs=np.ones(shape, dtype=np.int8), values=None,
                        row_spans=[Span("", 0, shape[0])], col_spans=[Span("", 0, shape[1])],
                        rank=max(n, 1), dim=lab.size, group=title, rep_in="", rep_out="")
    fw, fh = frame_size(*shape)
    title, fw = fit_title(caption or f"{title}: {n} parameter{'s' if n != 1 else ''}", fw)
    extra = {} if n else {"cmap": [ZERO_COLOR]}
    plot = coloring_plot(data).map(lambda img: img.opts(frame_width=fw, frame_height=fh, toolbar=None, title=title,
                                                       xlabel="column", ylabel="row", fontsize={"title": "11pt"},
                                                       **extra), hv.Image)
    return plot.opts(title=title, fontsize={"title": "11pt"})


#: method 1's learning curves, per plot: history column -> (label, colour).  The low-rank penalty is recorded
#: under its form's name (``lab.sharing.defaults.RANK_COLUMNS``): one of its two rows is drawn
CURVES = {"losses": {"upper": ("upper (validation)", "#d62728"), "lower": ("lower (training)", "#1f77b4")},
          "penalties": {"entropy": ("entropy H(A)", "#2ca02c"), "nuclear": ("nuclear norm ‖A‖*", "#9467bd"),
                        "column_norms": ("column norms Σⱼ ‖A:ⱼ‖", "#9467bd"),
                        "partition_distance": ("partition distance", "#ff7f0e")}}


def u_picture(U: np.ndarray, n_out: int, n_in: int, title: str = "max_k |U|"):
    """max_k |U| as an n_out x n_in picture of the layer (the report's Fig. 2)."""
    pic = np.abs(U).reshape(n_out, n_in, -1).max(-1)
    fw, fh = frame_size(n_out, n_in)
    return _heatmap(pic, title, "input", "output", "max |U|", fw, fh, cmap="viridis", colorbar=True)


def u_histogram(U: np.ndarray, title: str = "distribution of |U|"):
    counts, edges = np.histogram(np.abs(U).ravel(), bins=40)
    return hv.Histogram((edges, counts), kdims=["|U|"], vdims=["count"]).opts(
        responsive=True, min_width=300, height=CURVE_HEIGHT, title=title, logy=False, framewise=True,
        color="#1f77b4", fontsize={"title": "11pt"}, toolbar=None)
