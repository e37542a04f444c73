"""Draw the evidence of ``lab reproduce`` claims with matplotlib (the static report and the notebook).

An evidence item is a plain dict (JSON, written by the claim modules):

* ``{"kind": "line", "title", "xlabel", "ylabel", "x": [...], "series": {label: [...]}, "logx", "logy"}``
* ``{"kind": "bar", "title", "ylabel", "labels": [...], "series": {label: [...]}, "logy"}``
* ``{"kind": "matrix", "title", "matrices": {label: 2-D list}}`` (heatmaps side by side, one colour bar each)
* ``{"kind": "table", "title", "columns": [...], "rows": [[...], ...]}`` (not drawn here: ``table_html``)

Missing values (``None``) are gaps.  ``figure(item)`` returns a matplotlib Figure, ``png(item)`` its PNG bytes.
"""
from __future__ import annotations

import html
import io

import numpy as np



DRAWN = ("line", "bar", "matrix")


def _floats(values) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)


def figure(item: dict):
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    kind = item.get("kind")
    if kind == "matrix":
        mats = item.get("matrices", {})
        fig = Figure(figsize=(3.6 * max(len(mats), 1), 3.4), layout="constrained")
        axes = fig.subplots(1, max(len(mats), 1), squeeze=False)[0]
        for ax, (label, m) in zip(axes, mats.items()):
            a = np.array([[np.nan if v is None else v for v in row] for row in m], dtype=float)
            im = ax.imshow(a, cmap="viridis", interpolation="nearest", aspect="auto")
            ax.set_title(label, fontsize=9)
            _integer_ticks(ax.xaxis)
            _integer_ticks(ax.yaxis)
            fig.colorbar(im, ax=ax, shrink=0.8)
        fig.suptitle(item.get("title", ""), fontsize=10)
        return fig
    fig = Figure(figsize=(5.6, 3.4), layout="constrained")
    ax = fig.add_subplot()
    series = item.get("series", {})
    if kind == "line":
        x = _floats(item.get("x", []))
        for label, ys in series.items():
            ax.plot(x, _floats(ys), marker="o", markersize=3.5, label=str(label))
        ax.set_xlabel(item.get("xlabel", ""))
        if item.get("logx"):
            ax.set_xscale("log")
        elif all(isinstance(v, int) for v in item.get("x", [])):
            _integer_ticks(ax.xaxis)  # counts (blocks, passes, steps): no 1.5 ticks
    elif kind == "bar":
        labels = [str(v) for v in item.get("labels", [])]
        k = max(len(series), 1)
        width = 0.8 / k
        pos = np.arange(len(labels))
        for i, (label, ys) in enumerate(series.items()):
            ax.bar(pos + (i - (k - 1) / 2) * width, _floats(ys), width, label=str(label))
        ax.set_xticks(pos, labels, rotation=20 if max(map(len, labels), default=0) > 8 else 0)
    else:
        raise ValueError(f"evidence of kind {kind!r} is not drawn (tables: table_html)")
    if item.get("logy"):
        ax.set_yscale("log")
    ax.set_ylabel(item.get("ylabel", ""))
    ax.set_title(item.get("title", ""), fontsize=10)
    if len(series) > 1 or kind == "line":
        ax.legend(fontsize=8, frameon=False)
    ax.grid(alpha=0.3)
    return fig


def _integer_ticks(axis) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def png(item: dict, dpi: int = 110) -> bytes:
    buf = io.BytesIO()
    figure(item).savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def _cell(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return html.escape("—" if v is None else str(v))


def table_html(item: dict) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in item.get("columns", []))
    body = "".join("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>" for row in item.get("rows", []))
    title = html.escape(item.get("title", ""))
    return f"<table class='evidence'><caption>{title}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
