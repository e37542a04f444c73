"""The Sweeps tab's figure (issue 32; ``lab sweep``), in Bokeh.

* ``aggregate_figure(table, x, y, group)`` -- a summary number against one swept option, one series per value of
  another, over every other axis (the seeds), as ``lab.sweeps.aggregate.aggregate`` computed it: the **median** as a
  line with markers, the **quartiles** (q25 .. q75) as a shaded band, the **extremes** (min .. max) as thin
  whiskers, each series in its own colour (a model's or a strategy's colour when the values are known ones).  The x
  axis is categorical when the option's values are texts (or booleans), numeric otherwise; ``logx`` / ``logy`` draw
  logarithmic axes (``spans_decades`` says when the values call for one).

Numbers are drawn as given: nothing is computed here but where to put them and in which colour.
"""
from __future__ import annotations

import math
import numbers

import numpy as np
from bokeh.models import ColumnDataSource, FactorRange, HoverTool, Title
from bokeh.plotting import figure
from bokeh.transform import dodge

from ..plots.log_ticks import readable_log_axis
from ..plots.style import BOUND_MODEL_COLOURS, COLOURS, METER_MODEL_COLOURS, MODEL_COLOURS, RUN_COLOURS, SETTING_COLOURS

#: px: the figure's height
HEIGHT = 420
#: the quartile band's opacity
BAND_ALPHA = 0.2
#: known colours of a series' values (models, strategies, settings), tried in order: the first map with a colour for
#: every value is used, else ``RUN_COLOURS`` in order (cycling)
KNOWN_COLOURS = (BOUND_MODEL_COLOURS, MODEL_COLOURS, COLOURS, SETTING_COLOURS, METER_MODEL_COLOURS)
#: at most this many ticks are put at the x values themselves (more: Bokeh's own ticks)
VALUE_TICKS = 12
#: how far apart (in categories) the series' points of one category are drawn, so whiskers do not hide each other
DODGE = 0.12
#: the line under the title saying what is drawn
HOW = "the median over the other options (the seeds) · shaded: quartiles · whiskers: min – max"
#: legend entries per row above the plot
LEGEND_PER_ROW = 4


def _number(v) -> bool:
    """A finite real number (not a boolean): drawn on a numeric axis."""
    return (isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and math.isfinite(float(v)))


def categorical(values) -> bool:
    """True when some value is not a number (a text, a boolean): the axis is then one of categories."""
    return any(not _number(v) for v in values if v is not None)


def spans_decades(values, decades: float = 2.0) -> bool:
    """Whether ``values`` are positive numbers spanning at least ``decades`` powers of ten (a log axis helps)."""
    vals = [v for v in values if v is not None]
    if not vals or categorical(vals):
        return False
    vals = [float(v) for v in vals]
    if min(vals) <= 0:
        return False
    return max(vals) / min(vals) >= 10 ** decades


def series_colours(values) -> dict:
    """{value: colour} for the series' values: a known map's colours when one has them all, else ``RUN_COLOURS``."""
    values = list(dict.fromkeys(values))
    for known in KNOWN_COLOURS:
        if values and all(isinstance(v, str) and v in known for v in values):
            return {v: known[v] for v in values}
    return {v: RUN_COLOURS[i % len(RUN_COLOURS)] for i, v in enumerate(values)}


def value_text(v) -> str:
    """An axis value as the figure writes it (a whole float without its ``.0``)."""
    if isinstance(v, (float, np.floating)) and float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return str(v)


def series_label(group: str | None, value, y: str) -> str:
    return f"{group} = {value_text(value)}" if group else y


def _legend_above(fig, entries: int) -> None:
    """The legend above the plot, where it covers no point, in rows of ``LEGEND_PER_ROW`` entries."""
    if not fig.legend:
        return
    legend = fig.legend[0]
    fig.center.remove(legend)
    legend.orientation, legend.label_text_font_size = "horizontal", "9pt"
    legend.spacing, legend.padding, legend.margin = 10, 2, 2
    legend.click_policy = "hide"
    if entries > LEGEND_PER_ROW:
        legend.ncols = LEGEND_PER_ROW  # (horizontal: the columns decide, the rows follow)
    fig.add_layout(legend, "above")


def aggregate_figure(table, x: str | None, y: str | None, group: str | None = None, logx: bool = False,
                     logy: bool = False, empty: str = "open a sweep store"):
    """``table``: ``lab.sweeps.aggregate.aggregate``'s frame (columns ``x``, ``group``, ``median``, ``q25``,
    ``q75``, ``min``, ``max``, ``n``; None or no rows: an empty figure whose title ends with ``empty``); ``x``,
    ``y``, ``group``: the names of the axis, the summary number and the grouping axis (labels and legend)."""
    rows = [] if table is None else table.to_dict("records")
    xname, yname = x or "a swept option", y or "a summary number"
    what = f"{yname} against {xname}" + (f", one line per {group}" if group else "")
    xs = list(dict.fromkeys(r["x"] for r in rows))
    cat = categorical(xs)
    kw = {}
    if cat:
        kw["x_range"] = FactorRange(*[value_text(v) for v in xs])
    elif logx:
        kw["x_axis_type"] = "log"
    if logy:
        kw["y_axis_type"] = "log"
    title = what if rows else f"{what}: {empty}"
    fig = figure(height=HEIGHT, sizing_mode="stretch_width", min_width=320, name="swp-aggregate", title=title,
                 tools="pan,wheel_zoom,box_zoom,reset,save", toolbar_location="right", **kw)
    fig.toolbar.logo = None
    fig.title.text_font_size = "10pt"
    fig.xaxis.axis_label, fig.yaxis.axis_label = xname, yname
    if logy:
        readable_log_axis(fig.yaxis)
    if not cat:
        if logx:
            readable_log_axis(fig.xaxis)
        elif 0 < len(xs) <= VALUE_TICKS:
            fig.xaxis.ticker = [float(v) for v in sorted(xs)]
            fig.xaxis.major_label_overrides = {float(v): value_text(v) for v in xs}
    else:
        fig.xgrid.grid_line_color = None
    values = list(dict.fromkeys(r["group"] for r in rows))
    colours = series_colours(values)
    dots = []
    for i, value in enumerate(values):
        sub = [r for r in rows if r["group"] == value or (value is None and r["group"] is None)]
        label = series_label(group, value, yname)
        colour = colours[value]
        src = ColumnDataSource({
            "x": [value_text(r["x"]) if cat else float(r["x"]) for r in sub],
            "xtext": [value_text(r["x"]) for r in sub],
            **{k: [float(r[k]) for r in sub] for k in ("median", "q25", "q75", "min", "max")},
            "n": [int(r["n"]) for r in sub], "series": [label] * len(sub)})
        xs_field = dodge("x", (i - (len(values) - 1) / 2) * DODGE, range=fig.x_range) if cat else "x"
        fig.varea(x=xs_field, y1="q25", y2="q75", source=src, fill_color=colour, fill_alpha=BAND_ALPHA,
                  legend_label=label, name=f"swp-band-{i}")
        fig.segment(x0=xs_field, y0="min", x1=xs_field, y1="max", source=src, line_color=colour, line_width=1,
                    line_alpha=0.7, legend_label=label, name=f"swp-whiskers-{i}")
        fig.line(x=xs_field, y="median", source=src, line_color=colour, line_width=2, legend_label=label,
                 name=f"swp-median-{i}")
        dots.append(fig.scatter(x=xs_field, y="median", source=src, color=colour, size=8, line_color="white",
                                legend_label=label, name=f"swp-median-{i}-dots"))
    if dots:
        fig.add_tools(HoverTool(renderers=dots, tooltips=[
            ("", "@series"), (xname, "@xtext"), (f"median {yname}", "@median{%.4g}"),
            ("quartiles", "@q25{%.4g} – @q75{%.4g}"), ("min – max", "@min{%.4g} – @max{%.4g}"), ("points", "@n")],
            formatters={"@median": "printf", "@q25": "printf", "@q75": "printf", "@min": "printf",
                        "@max": "printf"}))
    _legend_above(fig, len(values))
    if rows:  # what a marker, the band and a whisker are: a line of its own under the title (a long title is cut),
        # added after the legend, so above it
        fig.add_layout(Title(text=HOW, text_font_size="9pt", text_font_style="normal", name="swp-how"), "above")
    return fig
