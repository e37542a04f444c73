"""Saved runs overlaid (HoloViews/Bokeh): one plot per metric of a ``lab.compare`` table, a colour per run and a
line style per series (strategy, which loss, which model), the legend naming each curve by its run's label.

The plot only draws the table: ``lab.compare`` reads the runs, labels them and computes the medians or means.
"""
from __future__ import annotations

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the Bokeh backend the options below are for)
import numpy as np
import pandas as pd

from .style import METRICS, metric_title, run_styles


KEY_COLOUR = "#888888"  # the legend's line-style keys (strategy, loss, model) are grey: colour means run


def compare_plot(frame: pd.DataFrame, metric: str, logy: bool = False, height: int = 300, kind: str = ""):
    """The curves of ``metric`` of every run in ``frame`` (a ``lab.compare`` table) against the step.

    Colours follow the runs' order in the whole table, so one run has one colour in every plot; line styles
    follow the series of this metric.  The legend has one entry per run (its label: clicking it mutes all its
    curves) and, when the metric has several series, one grey key per line style.  The hover names the run and
    the series.  The plot stretches to its container's width."""
    ylabel, title = METRICS.get(metric, (metric, metric))[0], metric_title(metric, kind)
    rows = frame[frame.metric == metric] if not frame.empty else frame
    colours, dashes = run_styles(frame.run if not frame.empty else [], rows.series if not rows.empty else [])
    several = len(dashes) > 1
    curves = []
    for run in colours:
        for series, dash in dashes.items():
            g = rows[(rows.run == run) & (rows.series == series)].sort_values("step")
            if g.empty:
                continue
            data = pd.DataFrame({"step": g.step.to_numpy(), "value": g.value.to_numpy(dtype=float),
                                 "curve": f"{run} · {series}" if series else run})
            curves.append(hv.Curve(data, "step", ["value", "curve"], label=run).opts(
                color=colours[run], line_dash=dash, line_width=2))
    if curves and several:
        # one NaN point: Bokeh draws no legend glyph for an empty line, and NaN moves no axis range
        curves += [hv.Curve([(np.nan, np.nan)], "step", ["value"], label=series).opts(color=KEY_COLOUR, line_dash=dash,
                                                                     line_width=2)
                   for series, dash in dashes.items()]
    if not curves:
        curves = [hv.Curve([], "step", "value")]
        title = f"{title}: choose saved runs to compare"
    return hv.Overlay(curves).opts(
        title=title, xlabel="step", ylabel=ylabel, logy=logy, show_grid=True, legend_position="right",
        responsive=True, height=height, min_width=320, tools=["hover"], framewise=True)


def legend_labels(plot) -> list[str]:
    """The legend's entries of a ``compare_plot`` as Bokeh draws them (what a reader sees), in order."""
    fig = hv.render(plot, backend="bokeh")
    return [str(item.label.value if hasattr(item.label, "value") else item.label.get("value"))
            for legend in fig.legend for item in legend.items]


def compare_plots(frame: pd.DataFrame, metrics, logy: bool = False, height: int = 300, kind: str = "") -> list:
    """``compare_plot`` for each of ``metrics`` (``kind``: the runs' kind, for the titles)."""
    return [compare_plot(frame, m, logy=logy, height=height, kind=kind) for m in metrics]
