"""Static basis-coloring figures (matplotlib): notebooks and PNG export, same data and colours as the dashboard."""
from __future__ import annotations

import io

import numpy as np

from .coloring import ColoringData
from .palette import (DIVERGING, GRID_COLOR, GRID_MAX, GUIDE_COLOR, LINE_COLOR, OUTLINE_COLOR, ZERO_COLOR,
                      categorical_colours, index_colours)


def _draw_matrix(ax, data: ColoringData, matrix: np.ndarray, continuous: bool, title: str, ticks: bool = True,
                 fontsize: float = 10):
    from matplotlib.colors import ListedColormap

    extent = (-0.5, data.shape[1] - 0.5, data.shape[0] - 0.5, -0.5)
    if continuous:
        im = ax.imshow(matrix, cmap=ListedColormap(DIVERGING), vmin=-1, vmax=1, extent=extent,
                       interpolation="nearest")
    else:
        colour = categorical_colours if data.scheme == "distinct" else index_colours
        idx, colours = colour(matrix, data.signs, data.rank)
        cmap = ListedColormap(colours).with_extremes(bad=ZERO_COLOR)
        im = ax.imshow(np.ma.masked_invalid(idx), cmap=cmap, vmin=-0.5, vmax=len(colours) - 0.5,
                       extent=extent, interpolation="nearest")
    rows, cols = matrix.shape
    if data.stride == 1 and max(rows, cols) <= GRID_MAX and ticks:  # blank zeros still show their cells
        ax.hlines(np.arange(1, rows) - 0.5, -0.5, cols - 0.5, color=GRID_COLOR, lw=0.6)
        ax.vlines(np.arange(1, cols) - 0.5, -0.5, rows - 0.5, color=GRID_COLOR, lw=0.6)
    for spine in ax.spines.values():
        spine.set_edgecolor(OUTLINE_COLOR)
    for y in data.row_guides:
        ax.axhline(y, color=GUIDE_COLOR, lw=1.2)
    for x in data.col_guides:
        ax.axvline(x, color=GUIDE_COLOR, lw=1.2)
    for s in data.row_spans[1:]:
        ax.axhline(s.start - 0.5, color=LINE_COLOR, lw=1.2)
    for s in data.col_spans[1:]:
        ax.axvline(s.start - 0.5, color=LINE_COLOR, lw=1.2)
    ax.set_title(title, fontsize=fontsize)
    if not ticks:
        ax.set_xticks([])
        ax.set_yticks([])
        return im
    for axis, n in ((ax.xaxis, data.shape[1]), (ax.yaxis, data.shape[0])):
        if n <= 12:  # small matrices: one tick per entry, no fractional ticks
            axis.set_ticks(range(n))
    if len(data.col_spans) > 1:
        ax.set_xticks([(s.start + s.stop - 1) / 2 for s in data.col_spans], [s.label for s in data.col_spans])
    if len(data.row_spans) > 1:
        ax.set_yticks([(s.start + s.stop - 1) / 2 for s in data.row_spans], [s.label for s in data.row_spans])
    ax.set_xlabel(f"input: {data.rep_in}" if data.rep_in else "column")
    ax.set_ylabel(f"output: {data.rep_out}")
    return im


def coloring_figure(data: ColoringData, gallery: bool = True, size: float = 4.5):
    """A matplotlib Figure: the main basis-coloring plot, plus the gallery's first page in the continuous view."""
    from matplotlib.figure import Figure

    tiles = [data.gallery[k] for k in data.page(0)] if gallery and data.kind == "continuous" else []
    n_cols = min(len(tiles), 4)
    n_rows = -(-len(tiles) // n_cols) if tiles else 0
    rows, cols = data.shape
    aspect = rows / max(cols, 1)
    main_h = min(max(size * aspect, 1.6), size * 1.4)
    tile_h = min(1.6, (size + 1.0) / 4 * min(aspect, 1.5))
    fig = Figure(figsize=(size + (1.0 if data.kind == "continuous" else 0), main_h + (tile_h + 0.3) * n_rows + 0.9),
                 layout="constrained")
    grid = fig.add_gridspec(1 + n_rows, max(n_cols, 1), height_ratios=[main_h] + [tile_h] * n_rows)
    ax = fig.add_subplot(grid[0, :])
    title = f"{data.group}: {data.rep_in or '?'} → {data.rep_out}   r = {data.rank} of {data.dim}"
    if data.downsampled:
        title += f"  (1 row/col in {data.stride} shown)"
    if data.kind == "categorical":
        _draw_matrix(ax, data, data.labels, False, title)
    else:
        below = f"; below: basis elements 0–{len(tiles) - 1} of {data.rank}" if 0 < len(tiles) < data.rank else ""
        im = _draw_matrix(ax, data, data.values, True, title + "\na random equivariant W" + below)
        fig.colorbar(im, ax=ax, shrink=0.8)
    for k, b in enumerate(tiles):
        tax = fig.add_subplot(grid[1 + k // n_cols, k % n_cols])
        name = data.names[k] if k < len(data.names) else None
        _draw_matrix(tax, data, b, True, f"element {k}: {name}" if name else f"element {k}", ticks=False, fontsize=8)
    return fig


def coloring_png(data: ColoringData, dpi: int = 150, **kw) -> bytes:
    """PNG bytes of ``coloring_figure`` (the dashboard's export button)."""
    buf = io.BytesIO()
    coloring_figure(data, **kw).savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()
