"""Sharing-discovery plots (HoloViews/Bokeh): the sharing matrix A next to A_gt, the weights it implies as a
basis-coloring plot (same style as the Basis explorer), learning curves, and method 2's symmetry matrix U."""
from __future__ import annotations

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401
import numpy as np

from ..sharing.partition import canonical
from .coloring import ColoringData, Span
from .coloring_hv import coloring_plot
from .style import order


def a_heatmap(A: np.ndarray, gt: np.ndarray, title: str = "A (learned)", size: int = 260, order_by=None):
    """A sharing matrix, rows by true block, columns by matched block; ``order_by``: the matrix whose order is
    used (the relaxed A, so that its snapped 0/1 matrix is drawn in the same rows and columns)."""
    rows, cols = order(A if order_by is None else order_by, gt)
    M = A[np.ix_(rows, cols)]
    img = hv.Image((np.arange(M.shape[1]), np.arange(M.shape[0]), M), kdims=["shared parameter", "weight entry"],
                   vdims=["A"], bounds=(-0.5, -0.5, M.shape[1] - 0.5, M.shape[0] - 0.5))
    return img.opts(cmap="Blues", clim=(0, 1), invert_yaxis=True, frame_width=size, frame_height=size,
                    title=title, colorbar=True, tools=["hover"], toolbar=None, framewise=True)


def gt_heatmap(gt: np.ndarray, size: int = 260):
    A = np.zeros((gt.size, gt.max() + 1))
    A[np.arange(gt.size), gt] = 1
    return a_heatmap(A, gt, "A_gt (ground truth)", size)


def weights_coloring(labels: np.ndarray, shape: tuple[int, int], title: str):
    """The weight matrix implied by a hard sharing: one colour per shared parameter (Basis explorer style)."""
    lab = canonical(labels).reshape(shape)
    data = ColoringData(kind="categorical", shape=shape, rows=np.arange(shape[0]), cols=np.arange(shape[1]),
                        labels=lab.astype(np.int32), signs=np.ones(shape, dtype=np.int8), values=None,
                        row_spans=[Span("", 0, shape[0])], col_spans=[Span("", 0, shape[1])],
                        rank=int(lab.max()) + 1, dim=lab.size, group=title, rep_in="in", rep_out="out")
    return coloring_plot(data).opts(title=f"{title} ({int(lab.max()) + 1} params)")


def _curve(history, key, label, color):
    return hv.Curve(([h["step"] for h in history], [h[key] for h in history]), "step", "value", label=label).opts(
        color=color, line_width=2, framewise=True)


def loss_curves(history: list[dict], width: int = 340, height: int = 220):
    """Upper (validation) and lower (training) loss against the outer step."""
    return (_curve(history, "upper", "upper (validation)", "#d62728") *
            _curve(history, "lower", "lower (training)", "#1f77b4")).opts(
        title="losses", legend_position="top_right", width=width, height=height, show_grid=True)


def penalty_curves(history: list[dict], width: int = 340, height: int = 220):
    """Entropy, nuclear norm and partition distance against the outer step (similar scales)."""
    return (_curve(history, "entropy", "entropy H(A)", "#2ca02c") *
            _curve(history, "nuclear", "nuclear norm ‖A‖*", "#9467bd") *
            _curve(history, "partition_distance", "partition distance", "#ff7f0e")).opts(
        title="penalties and partition distance", legend_position="top_right", width=width, height=height,
        show_grid=True)


def u_picture(U: np.ndarray, n_out: int, n_in: int, title: str = "max_k |U|", size: int = 260):
    pic = np.abs(U).reshape(n_out, n_in, -1).max(-1)
    img = hv.Image((np.arange(n_in), np.arange(n_out), pic), kdims=["input", "output"], vdims=["max |U|"],
                   bounds=(-0.5, -0.5, n_in - 0.5, n_out - 0.5))
    return img.opts(cmap="viridis", invert_yaxis=True, frame_width=size, frame_height=int(size * n_out / n_in),
                    colorbar=True, title=title, tools=["hover"], toolbar=None, framewise=True)


def u_histogram(U: np.ndarray, title: str = "distribution of |U|"):
    counts, edges = np.histogram(np.abs(U).ravel(), bins=40)
    return hv.Histogram((edges, counts), kdims=["|U|"], vdims=["count"]).opts(width=320, height=220, title=title, logy=False,
                                                             framewise=True, color="#1f77b4")
