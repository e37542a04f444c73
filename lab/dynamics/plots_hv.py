"""Interactive training-dynamics plots (HoloViews/Bokeh) from the records of ``lab.dynamics``.

The drift plot is the paper's figure 1: x = ‖A − A0‖, y = ‖Π_{E⊥}A‖, one colour per strategy, every run a
faint line (all runs of a strategy are one multi-line glyph) and the median over runs bold.
"""
from __future__ import annotations

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the Bokeh backend the options below are for)
import numpy as np

from .metrics import frame, medians, view_limits
from ..plots.style import AXES, COLOURS, LABELS


def _runs_path(df, strategy, x, y):
    """Every run of a strategy as ONE path, runs separated by NaN rows (Bokeh breaks the line there): one
    glyph item instead of one per run, which is what makes a live frame cheap."""
    g = df[df.strategy == strategy].sort_values(["run", "step"])
    breaks = np.flatnonzero(np.diff(g.run.to_numpy())) + 1
    xs = np.insert(g[x].to_numpy(dtype=float), breaks, np.nan)
    ys = np.insert(g[y].to_numpy(dtype=float), breaks, np.nan)
    return hv.Path([np.column_stack([xs, ys])], kdims=[x, y]).opts(color=COLOURS.get(strategy, "gray"), alpha=0.25,
                                                                   line_width=1)


def _strategies(df, strategies):
    return list(strategies) if strategies is not None else (list(dict.fromkeys(df.strategy)) if not df.empty else [])


def _size(width: int | None, height: int) -> dict:
    """Fixed ``width`` × ``height``, or with ``width=None`` as wide as the plot's container (Panel's
    ``stretch_width``) at ``height``, never narrower than MIN_WIDTH."""
    if width is None:
        return dict(responsive=True, height=height, min_width=MIN_WIDTH)
    return dict(width=width, height=height)


#: the narrowest a responsive curve plot gets (its axis labels and legend still fit)
MIN_WIDTH = 320


def drift_plot(records, view: str = "nom", logy: bool = False, strategies=None, width: int | None = 460,
               height: int = 340):
    """‖Π_{E⊥}A‖ against ‖A − A0‖; ``view`` = "nom" (scaled to Nom) or "aug" (zoomed to Aug).

    With ``strategies`` given, every strategy gets its two elements even before it has data, so the
    overlay keeps one structure while it streams (a DynamicMap then updates it in place)."""
    df = frame(records)
    x, y = "dist_from_init", "dist_from_E"
    elements = []
    total = df[(df.layer == "total") & ~df.diverged.astype(bool)] if not df.empty else df
    med = medians(df)
    for s in _strategies(df, strategies):
        elements.append((_runs_path(total, s, x, y) if not df.empty else
                         hv.Path([], kdims=[x, y]).opts(color=COLOURS.get(s, "gray"), alpha=0.25)).opts(framewise=True))
        m = med[med.strategy == s].sort_values("step")
        elements.append(hv.Curve((m[x], m[y]), x, y, label=LABELS.get(s, s)).opts(
            color=COLOURS.get(s, "gray"), line_width=3, framewise=True))
    xmax, ymax = view_limits(df, view, med=med)
    title = "drift from E — scaled to Nom" if view == "nom" else "drift from E — zoomed to Aug"
    opts = dict(**_size(width, height), xlabel=AXES["dist_from_init"], ylabel=AXES["dist_from_E"], title=title,
                legend_position="top_left", show_grid=True, xlim=(0, xmax), logy=logy, tools=["hover"],
                framewise=True)
    if not logy:
        opts["ylim"] = (0, ymax)
    if not elements:
        elements = [hv.Curve([], x, y)]
    return hv.Overlay(elements).opts(**opts)


def curves_plot(records, metric: str = "loss", strategies=None, width: int | None = 460, height: int = 260):
    """Median ``metric`` (loss, accuracy, dist_from_E, ...) over runs against the step, per strategy
    (colours as in the drift plot, whose legend names them)."""
    df = frame(records)
    med = medians(df)
    curves = [hv.Curve((m.step, m[metric]), "step", metric, label=LABELS.get(s, s)).opts(
        color=COLOURS.get(s, "gray"), line_width=2, framewise=True)
        for s, m in ((s, med[med.strategy == s]) for s in _strategies(df, strategies))]
    if not curves:
        curves = [hv.Curve([], "step", metric)]
    return hv.Overlay(curves).opts(**_size(width, height), title=f"{metric} (median over runs)",
                                   show_grid=True, show_legend=False, tools=["hover"], framewise=True)
