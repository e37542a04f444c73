"""Draw the evidence of ``lab reproduce`` claims with matplotlib (the static report and the notebook).

An evidence item is a plain dict (JSON, written by the claim modules):

* ``{"kind": "line", "title", "xlabel", "ylabel", "x": [...], "series": {label: [...]}, "logx", "logy"}``
* ``{"kind": "bar", "title", "ylabel", "labels": [...], "series": {label: [...]}, "logy"}``
* ``{"kind": "matrix", "title", "matrices": {label: 2-D list}, "vmin", "vmax", "ranges": {label: [vmin, vmax]}}``
  (heatmaps side by side, one colour bar each).  ``vmin``/``vmax`` fix the colour range of every matrix,
  ``ranges`` that of one (a softmax in [0, 1] is drawn on 0..1).  Without them the range is the data's, except
  that a nearly constant matrix (max - min below ``FLAT`` of its largest magnitude) is widened to include 0, so
  that noise never looks like structure; the colour bar says the range and why;
* ``{"kind": "trajectories", "title", "xlabel", "ylabel", "logx", "logy",
  "panels": {panel: {series: {"runs": [{"x": [...], "y": [...]}, ...], "mean": {"x": [...], "y": [...]}}}}}``
  (one subplot per panel side by side; each series one colour in every panel, one shared legend; every run a
  thin faint line, the mean over runs bold);
* ``{"kind": "boxes", "title", "ylabel", "logy", "panels": {panel: {series: [values, ...]}}}`` (one subplot per
  panel side by side, each with its own y scale; per series a box of its values -- the middle half, the median,
  whiskers from the lowest to the highest -- and every value a point over it; each series one colour in every
  panel, one shared legend: thesis Figure 3.2's form);
* ``{"kind": "table", "title", "columns": [...], "rows": [[...], ...]}`` (not drawn here: ``table_html``).

Missing values (``None``) are gaps.  A line or bar series whose every value is 0 or missing is said in words on
the axes (an empty box says nothing).  Long titles, labels, tick labels and legend entries wrap to the figure's
width instead of being cut, and a crowded legend goes below the axes.  ``figure(item)`` returns a matplotlib
Figure, ``png(item)`` its PNG bytes.
"""
from __future__ import annotations

import html
import io
import textwrap

import numpy as np

DRAWN = ("line", "bar", "matrix", "trajectories", "boxes")

#: a matrix whose spread (max - min) is below this fraction of its largest magnitude is drawn on a range that
#: includes 0 (its colours would otherwise stretch a nearly constant matrix into apparent structure)
FLAT = 0.1

#: font sizes (points): figure title, panel title, axis labels, ticks, legend, notes on the axes
TITLE, PANEL, LABEL, TICK, LEGEND, NOTE = 10, 9, 9, 8, 8, 8
#: width of a character, as a fraction of the font size (DejaVu Sans averages ~0.55; kept on the safe side)
CHAR = 0.62
#: a legend goes below the axes when it has more entries than this, or an entry longer than ``LONG_ENTRY``
CROWDED, LONG_ENTRY = 3, 28


def _floats(values) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)


def _wrap(text, inches: float, size: float) -> str:
    """``text`` wrapped to lines that fit ``inches`` at font ``size`` points (long words are broken too)."""
    text = "" if text is None else str(text)
    width = max(8, int(inches * 72 / (size * CHAR)))
    lines = []
    for line in text.splitlines() or [""]:
        lines += textwrap.wrap(line, width, break_long_words=True, break_on_hyphens=False) or [""]
    return "\n".join(lines)


def _empty(values: np.ndarray) -> bool:
    """Every value is 0 or missing."""
    finite = values[np.isfinite(values)]
    return finite.size == 0 or bool(np.all(finite == 0))


def _empty_words(values: np.ndarray) -> str:
    return "every value is missing" if not np.isfinite(values).any() else "every value is 0"


def _say_empty(ax, series: dict, width: float) -> dict:
    """Say in words which series are all 0 or missing: in the middle of the axes when every series is, else in
    their legend entries (returned: label -> label with the words), so that no note covers data."""
    empty = {label: ys for label, ys in series.items() if _empty(ys)}
    if empty and len(empty) == len(series):
        words = {_empty_words(ys) for ys in series.values()}
        text = words.pop() if len(words) == 1 else "every value is 0 or missing"
        if len(series) > 1:
            text = f"{text} (every series)"
        ax.text(0.5, 0.5, _wrap(text, width * 0.8, NOTE + 1), transform=ax.transAxes, ha="center", va="center",
                fontsize=NOTE + 1, color="0.25", bbox=dict(boxstyle="round", facecolor="white", edgecolor="0.6"))
    return {label: f"{label} ({_empty_words(ys)})" for label, ys in empty.items()}


def _legend(fig, ax, handles, labels, width: float) -> None:
    """One legend: inside the axes when short, below the axes (outside the data) when crowded."""
    if not handles:
        return
    crowded = len(labels) > CROWDED or max(map(len, labels)) > LONG_ENTRY
    if crowded:
        ncols = 1 if max(map(len, labels)) > 40 else min(2, len(labels))
        wrapped = [_wrap(lab, width / ncols - 0.5, LEGEND) for lab in labels]
        fig.legend(handles, wrapped, loc="outside lower center", ncols=ncols, fontsize=LEGEND, frameon=False)
    else:
        ax.legend(handles, [_wrap(lab, width * 0.45, LEGEND) for lab in labels], fontsize=LEGEND, frameon=False)


def _colours(labels) -> dict:
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return {label: cmap(i % 10) for i, label in enumerate(labels)}


def _positive(arrays) -> bool:
    return any(np.any(np.isfinite(a) & (a > 0)) for a in arrays)


def figure(item: dict):
    import matplotlib

    matplotlib.use("Agg", force=False)
    kind = item.get("kind")
    if kind == "matrix":
        fig = _matrix(item)
    elif kind == "trajectories":
        fig = _trajectories(item)
    elif kind == "boxes":
        fig = _boxes(item)
    elif kind in ("line", "bar"):
        fig = _chart(item)
    else:
        raise ValueError(f"evidence of kind {kind!r} is not drawn (tables: table_html)")
    _fit(fig)
    return fig


def _fit(fig, rounds: int = 4) -> None:
    """Re-wrap every text (titles, labels, legend entries, notes) that still reaches outside the canvas once
    laid out, narrower by the measured overflow, until none does (glyph widths vary; the first wrap guesses)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    canvas = FigureCanvasAgg(fig)
    ticks = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            ticks.update(id(t) for t in axis.get_ticklabels(which="both"))
    for _ in range(rounds):
        canvas.draw()
        renderer, bb, changed = canvas.get_renderer(), fig.bbox, False
        for t in fig.findobj(Text):
            text = t.get_text()
            if id(t) in ticks or not t.get_visible() or not text.strip():
                continue
            e = t.get_window_extent(renderer)
            over = max(bb.x0 - e.x0, e.x1 - bb.x1, bb.y0 - e.y0, e.y1 - bb.y1)
            if over <= 0.5:
                continue
            vertical = 45 < t.get_rotation() % 180 < 135
            length = e.height if vertical else e.width
            chars = max(map(len, text.splitlines()))
            shrink = max(0.3, (length - 2 * over - 6) / max(length, 1))
            flat = " ".join(text.split()) if " " in text else text.replace("\n", "")
            t.set_text("\n".join(textwrap.wrap(flat, max(4, int(chars * shrink)), break_long_words=True,
                                               break_on_hyphens=False)))
            changed = True
        if not changed:
            return


def _chart(item: dict):
    from matplotlib.figure import Figure

    kind, (width, height) = item.get("kind"), (5.6, 3.6)
    fig = Figure(figsize=(width, height), layout="constrained")
    ax = fig.add_subplot()
    series = {str(label): _floats(ys) for label, ys in item.get("series", {}).items()}
    if kind == "line":
        x = _floats(item.get("x", []))
        marker = "o" if len(x) <= 40 else None  # markers on long curves only blur them
        for label, ys in series.items():
            ax.plot(x, ys, marker=marker, markersize=3.5, label=label)
        ax.set_xlabel(_wrap(item.get("xlabel", ""), width - 0.8, LABEL), fontsize=LABEL)
        if item.get("logx") and _positive([x]):
            ax.set_xscale("log")
        elif all(isinstance(v, int) for v in item.get("x", [])):
            _integer_ticks(ax.xaxis)  # counts (blocks, passes, steps): no 1.5 ticks
    else:
        labels = [str(v) for v in item.get("labels", [])]
        k = max(len(series), 1)
        bar_width = 0.8 / k
        pos = np.arange(len(labels))
        for i, (label, ys) in enumerate(series.items()):
            ax.bar(pos + (i - (k - 1) / 2) * bar_width, ys, bar_width, label=label)
        slot = (width - 1.0) / max(len(labels), 1)  # inches per bar group
        longest = max(map(len, labels), default=0)
        if longest * TICK * CHAR / 72 <= slot:
            ax.set_xticks(pos, labels, fontsize=TICK)
        elif slot >= 0.6:  # wrap within the group's width
            ax.set_xticks(pos, [_wrap(lab, slot, TICK) for lab in labels], fontsize=TICK)
        else:  # many groups: slanted, wrapped to a few lines
            ax.set_xticks(pos, [_wrap(lab, 1.2, TICK) for lab in labels], fontsize=TICK, rotation=30,
                          ha="right", rotation_mode="anchor")
        if item.get("xlabel"):
            ax.set_xlabel(_wrap(item.get("xlabel", ""), width - 0.8, LABEL), fontsize=LABEL)
    if item.get("logy") and _positive(series.values()):
        ax.set_yscale("log")
    ax.set_ylabel(_wrap(item.get("ylabel", ""), height - 0.9, LABEL), fontsize=LABEL)
    ax.set_title(_wrap(item.get("title", ""), width - 0.6, TITLE), fontsize=TITLE)
    ax.tick_params(which="both", labelsize=TICK)
    said = _say_empty(ax, series, width)
    if len(series) > 1 or kind == "line":
        handles, labels = ax.get_legend_handles_labels()
        _legend(fig, ax, handles, [said.get(label, label) for label in labels], width)
    ax.grid(alpha=0.3)
    return fig


def _matrix_range(a: np.ndarray, given) -> tuple[float, float, str]:
    """(vmin, vmax, words for the colour bar): the given range, else the data's (widened to include 0 when flat)."""
    finite = a[np.isfinite(a)]
    if given is not None:
        vmin, vmax = (float(v) for v in given)
        return vmin, vmax, f"range {vmin:.3g} to {vmax:.3g}"
    if finite.size == 0:
        return 0.0, 1.0, "no values"
    lo, hi = float(finite.min()), float(finite.max())
    scale = max(abs(lo), abs(hi))
    if hi - lo <= FLAT * scale or scale == 0:
        vmin, vmax = min(lo, 0.0), max(hi, 0.0)
        if vmin == vmax:
            vmax = vmin + 1.0
        return vmin, vmax, f"range {vmin:.3g} to {vmax:.3g} (nearly constant: values {lo:.3g} to {hi:.3g})"
    return lo, hi, f"range {lo:.3g} to {hi:.3g} (the data's)"


def _matrix(item: dict):
    from matplotlib.figure import Figure

    mats = item.get("matrices", {})
    panel, height = 3.6, 3.8
    n = max(len(mats), 1)
    fig = Figure(figsize=(panel * n, height), layout="constrained")
    axes = fig.subplots(1, n, squeeze=False)[0]
    ranges = item.get("ranges") or {}
    whole = None
    if item.get("vmin") is not None or item.get("vmax") is not None:
        whole = (item.get("vmin"), item.get("vmax"))
    for ax, (label, m) in zip(axes, mats.items()):
        a = np.array([[np.nan if v is None else v for v in row] for row in m], dtype=float)
        given = ranges.get(label)
        if given is None and whole is not None:
            finite = a[np.isfinite(a)]
            lo = whole[0] if whole[0] is not None else (float(finite.min()) if finite.size else 0.0)
            hi = whole[1] if whole[1] is not None else (float(finite.max()) if finite.size else 1.0)
            given = (lo, hi)
        vmin, vmax, words = _matrix_range(a, given)
        im = ax.imshow(a, cmap="viridis", interpolation="nearest", aspect="auto", vmin=vmin, vmax=vmax)
        ax.set_title(_wrap(label, panel - 0.9, PANEL), fontsize=PANEL)
        _integer_ticks(ax.xaxis)
        _integer_ticks(ax.yaxis)
        ax.tick_params(which="both", labelsize=TICK)
        bar = fig.colorbar(im, ax=ax, shrink=0.85)
        bar.ax.tick_params(which="both", labelsize=TICK - 1)
        bar.set_label(_wrap(words, height - 1.2, TICK - 1), fontsize=TICK - 1)
    fig.suptitle(_wrap(item.get("title", ""), panel * n - 0.4, TITLE), fontsize=TITLE)
    return fig


def _trajectories(item: dict):
    from matplotlib.figure import Figure

    panels = item.get("panels", {})
    n = max(len(panels), 1)
    panel, height = (3.4 if n > 1 else 5.6), 3.8
    fig = Figure(figsize=(panel * n, height), layout="constrained")
    axes = fig.subplots(1, n, squeeze=False)[0]
    order = []
    for series in panels.values():
        order += [label for label in series if label not in order]
    colour = _colours(order)
    handles = {}
    for ax, (title, series) in zip(axes, panels.items()):
        xs_all, ys_all, drawn = [], [], 0
        for label, data in series.items():
            for run in data.get("runs", []):
                x, y = _floats(run.get("x", [])), _floats(run.get("y", []))
                ax.plot(x, y, color=colour[label], linewidth=0.8, alpha=0.25)
                xs_all.append(x), ys_all.append(y)
                drawn += 1
            mean = data.get("mean")
            if mean:
                x, y = _floats(mean.get("x", [])), _floats(mean.get("y", []))
                (line,) = ax.plot(x, y, color=colour[label], linewidth=2.2, alpha=1.0)
                handles.setdefault(label, line)
                xs_all.append(x), ys_all.append(y)
                drawn += 1
        if not drawn:
            ax.text(0.5, 0.5, "no runs", transform=ax.transAxes, ha="center", va="center", fontsize=NOTE + 1)
        if item.get("logx") and _positive(xs_all):
            ax.set_xscale("log")
        if item.get("logy") and _positive(ys_all):
            ax.set_yscale("log")
        ax.set_title(_wrap(title, panel - 0.7, PANEL), fontsize=PANEL)
        ax.set_xlabel(_wrap(item.get("xlabel", ""), panel - 0.7, LABEL), fontsize=LABEL)
        ax.tick_params(which="both", labelsize=TICK)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(_wrap(item.get("ylabel", ""), height - 1.3, LABEL), fontsize=LABEL)
    if handles:
        labels = [f"{label} (bold: mean over runs)" if i == 0 else label for i, label in enumerate(handles)]
        ncols = min(len(labels), max(1, int(panel * n / 2.6)))
        fig.legend(list(handles.values()), [_wrap(lab, panel * n / ncols - 0.6, LEGEND) for lab in labels],
                   loc="outside lower center", ncols=ncols, fontsize=LEGEND, frameon=False)
    fig.suptitle(_wrap(item.get("title", ""), panel * n - 0.4, TITLE), fontsize=TITLE)
    return fig


def _boxes(item: dict):
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    panels = item.get("panels", {})
    n = max(len(panels), 1)
    panel, height = 3.2, 3.9
    fig = Figure(figsize=(panel * n + 0.4, height), layout="constrained")
    axes = fig.subplots(1, n, squeeze=False)[0]
    order = []
    for series in panels.values():
        order += [label for label in series if label not in order]
    colour = _colours(order)
    for ax, (title, series) in zip(axes, panels.items()):
        labels = list(series)
        values = [_floats(series[label]) for label in labels]
        values = [v[np.isfinite(v)] for v in values]
        pos = np.arange(1, len(labels) + 1)
        drawn = [(p, v, lab) for p, v, lab in zip(pos, values, labels) if v.size]
        if drawn:
            bp = ax.boxplot([v for _, v, _ in drawn], positions=[p for p, _, _ in drawn], widths=0.55,
                            patch_artist=True, showfliers=False, whis=(0, 100),
                            medianprops=dict(color="black", lw=1.6))
            for box, (_, _, lab) in zip(bp["boxes"], drawn):
                box.set_facecolor(colour[lab])
                box.set_alpha(0.5)
            for p, v, lab in drawn:  # the values side by side over the box (a fixed spread: no randomness)
                dx = np.zeros(1) if v.size == 1 else np.linspace(-0.14, 0.14, v.size)
                ax.scatter(p + dx, v, s=22 if v.size == 1 else 14, color=colour[lab], zorder=3, edgecolors="#222222",
                           linewidths=0.6)
        for p, v in zip(pos, values):
            if not v.size:
                ax.text(p, 0.5, "no runs", ha="center", va="center", rotation=90, color="gray", fontsize=NOTE,
                        transform=ax.get_xaxis_transform())
        slot = (panel - 0.5) / max(len(labels), 1)  # inches per box
        if max(map(len, labels), default=0) * TICK * CHAR / 72 <= slot:
            ax.set_xticks(pos, labels, fontsize=TICK)
        else:  # slanted, wrapped to a few lines
            ax.set_xticks(pos, [_wrap(lab, 1.0, TICK) for lab in labels], fontsize=TICK, rotation=30, ha="right",
                          rotation_mode="anchor")
        ax.set_xlim(0.4, len(labels) + 0.6)
        if item.get("logy") and _positive(values):
            from matplotlib.ticker import FuncFormatter

            ax.set_yscale("log")
            finite = np.concatenate([v[v > 0] for v in values])
            decades = np.log10(finite.max() / finite.min()) if finite.size else 0.0
            # plain numbers (7, 0.05, 100000: no 7x10^0); within a decade or two the in-between ticks say it too
            keep = "123456789" if decades < 1 else "25" if decades < 2 else ""
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.6g}"))
            ax.yaxis.set_minor_formatter(FuncFormatter(
                lambda v, _: f"{float(f'{v:.2g}'):.6g}" if f"{v:.2g}"[0] in keep else ""))
        ax.set_title(_wrap(title, panel - 0.5, PANEL), fontsize=PANEL)
        ax.tick_params(which="both", labelsize=TICK)
        ax.grid(alpha=0.3, axis="y")
    axes[0].set_ylabel(_wrap(item.get("ylabel", ""), height - 1.3, LABEL), fontsize=LABEL)
    handles = [Line2D([], [], marker="s", ls="", markersize=8, color=colour[lab], alpha=0.6, label=lab)
               for lab in order]
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 4), fontsize=LEGEND,
                   frameon=False, title="box: middle half; line: median; whiskers: lowest to highest; dots: seeds",
                   title_fontsize=LEGEND - 0.5)
    fig.suptitle(_wrap(item.get("title", ""), panel * n - 0.4, TITLE), fontsize=TITLE)
    return fig


def _integer_ticks(axis) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def png(item: dict, dpi: int = 110) -> bytes:
    buf = io.BytesIO()
    figure(item).savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def _cell(v) -> str:
    """A table cell as a person reads it: floats to 4 significant digits (no 16-digit floats), yes/no for a
    truth value (as the report's other tables), a dash for a missing value."""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.4g}"
    return html.escape("—" if v is None else str(v))


def table_html(item: dict) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in item.get("columns", []))
    body = "".join("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>" for row in item.get("rows", []))
    title = html.escape(item.get("title", ""))
    return f"<table class='evidence'><caption>{title}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
