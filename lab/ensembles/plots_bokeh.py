"""The Ensembles tab's figures (Nordenfors & Flinth's poster; ``lab ensembles``), in Bokeh.

* ``size_figure(curves)`` -- a metric against the ensemble size M, log-log, one curve per setting in its colour
  (``SETTING_COLOURS``): the run going on (or loaded) solid, the latest saved run of each other setting dashed, the
  fitted slope in each legend entry, and a dotted reference of slope -1/2 (the 1/sqrt(M) law of an ensemble whose
  mean is equivariant) through the first curve's M = 1 point.
* ``example_figure(example)`` -- one held-out digit along its orbit (the four rotations as small images) over bars
  of the probability the whole ensemble and member 0 give its true class on each rotation, each rotation labelled
  with the class both predict there: an invariant ensemble's bars are level and its predictions the same, a
  member's need not be.

Numbers are drawn as given (the family's summary and records): nothing is computed here but where to put them.
"""
from __future__ import annotations

import math

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, HoverTool, LinearColorMapper
from bokeh.plotting import figure

from ..plots.log_ticks import readable_log_axis
from ..plots.style import GREYS
from ..plots.style import SETTING_COLOURS

#: px: the against-M figure's height, the bars' height, one rotated digit's side
HEIGHT, BARS_HEIGHT, THUMB = 390, 250, 80
#: each metric's axis words (Bokeh draws text as it is: plain Unicode)
METRIC_WORDS = {
    "equivariance_error": "equivariance error  E‖φ̄(gx) − φ̄(x)‖",
    "divergence": "symmetric KL  KL(p(x)‖p(gx)) + KL(p(gx)‖p(x))",
    "orbit_same_prediction": "rotations predicted as the input (1 to 4)",
}
#: each metric's short name (titles)
METRIC_NAMES = {"equivariance_error": "equivariance error", "divergence": "symmetric KL",
                "orbit_same_prediction": "orbit-same-prediction"}
#: each metric's short axis words (a plot a quarter of the page high)
METRIC_AXES = {"equivariance_error": "equivariance error", "divergence": "symmetric KL",
               "orbit_same_prediction": "rotations, same class (of 4)"}
REFERENCE_COLOUR, MEMBER_COLOUR = "#555555", "#9e9e9e"
ROTATIONS = ("0°", "90°", "180°", "270°")


def curve_label(setting: str, source: str, slope) -> str:
    """A curve's legend entry: its setting, where it comes from, its fitted slope."""
    s = f"slope {slope:+.2f}" if slope is not None and math.isfinite(slope) else "slope –"
    return f"{setting} ({source}) · {s}"


def size_figure(curves: list[dict], metric: str = "equivariance_error", title: str = "", inputs: str = "digits"):
    """``curves``: dicts with ``setting``, ``source`` (words: "this run", "saved 14:02"), ``sizes``, ``values`` (the
    metric per size), ``slope`` and ``live`` (drawn solid; else dashed).  Empty: an empty figure that says so.
    ``inputs``: what the held-out inputs are, for the title (digits, graphs, vectors)."""
    fig = figure(height=HEIGHT, sizing_mode="stretch_width", min_width=320, x_axis_type="log", y_axis_type="log",
                 name="ens-size", toolbar_location="right", tools="pan,wheel_zoom,box_zoom,reset,save",
                 title=title or (f"{METRIC_NAMES[metric]} against M (held-out {inputs})" if curves
                                 else f"{METRIC_NAMES[metric]} against M: press Start"))
    fig.toolbar.logo = None
    fig.xaxis.axis_label = "ensemble size M"
    fig.yaxis.axis_label = METRIC_WORDS[metric]
    readable_log_axis(fig.yaxis)
    drawn = [c for c in curves if c.get("sizes")]
    sizes = sorted({int(m) for c in drawn for m in c["sizes"]})
    if sizes:
        fig.xaxis.ticker = sizes
        fig.xaxis.major_label_overrides = {m: str(m) for m in sizes}
    dots = []
    for c in drawn:
        colour = SETTING_COLOURS.get(c["setting"], "#333333")
        src = ColumnDataSource({"M": [int(m) for m in c["sizes"]], "y": [float(v) for v in c["values"]],
                                "setting": [c["setting"]] * len(c["sizes"])})
        label = curve_label(c["setting"], c["source"], c.get("slope"))
        fig.line("M", "y", source=src, color=colour, line_width=3 if c.get("live") else 2,
                 line_dash="solid" if c.get("live") else "dashed", legend_label=label)
        dots.append(fig.scatter("M", "y", source=src, color=colour, size=9 if c.get("live") else 7,
                                line_color="white", legend_label=label,
                                name=f"ens-size-{c['setting']}{'' if c.get('live') else '-saved'}"))
    if dots:
        fig.add_tools(HoverTool(renderers=dots, tooltips=[("", "@setting"), ("M", "@M"), ("value", "@y{%.4g}")],
                                formatters={"@y": "printf"}))
    first = drawn[0] if drawn else None
    if metric != "orbit_same_prediction" and first is not None and len(sizes) > 1 and first["values"][0] > 0:
        m0, y0 = float(first["sizes"][0]), float(first["values"][0])
        ms = np.array([sizes[0], sizes[-1]], dtype=float)
        fig.line(ms, y0 * (ms / m0) ** -0.5, color=REFERENCE_COLOUR, line_dash="dotted", line_width=2,
                 legend_label="slope −1/2 (1/√M: an equivariant mean)", name="ens-reference")
    if fig.legend:  # above the plot: inside, it would cover some curve's points (they fall from top left)
        legend = fig.legend[0]
        fig.center.remove(legend)
        legend.label_text_font_size, legend.spacing, legend.padding, legend.margin = "9pt", 0, 2, 2
        fig.add_layout(legend, "above")
    return fig


def example_figure(example: dict | None, setting: str = "invariant", empty: str = "press Start"):
    """The digit's four rotations over bars of the ensemble's and member 0's probability of its true class
    (``example["label"]``; without one, the class the ensemble ranks first on the unrotated digit).  None: an
    empty figure whose title ends with ``empty``."""
    if not example:
        fig = figure(height=BARS_HEIGHT, sizing_mode="stretch_width", min_width=300, toolbar_location=None,
                     title=f"one held-out digit along its orbit: {empty}", name="ens-bars")
        fig.xaxis.visible = fig.yaxis.visible = False
        return fig
    images = np.asarray(example["images"], dtype=float)
    ens, one = np.asarray(example["ensemble"], dtype=float), np.asarray(example["member"], dtype=float)
    true = example.get("label")
    cls = int(true) if true is not None else int(ens[0].argmax())
    lo, hi = float(images.min()), float(images.max())
    mapper = LinearColorMapper(palette=GREYS, low=lo, high=max(hi, lo + 1e-12))
    thumbs = []
    for k, img in enumerate(images):
        h, w = img.shape
        f = figure(width=THUMB, height=THUMB + 22, x_range=(0, w), y_range=(0, h), toolbar_location=None,
                   title=ROTATIONS[k % 4], name="ens-thumb")
        f.image(image=[img[::-1]], x=0, y=0, dw=w, dh=h, color_mapper=mapper)  # Bokeh's row 0 is the bottom one
        f.axis.visible = f.grid.visible = False
        f.title.text_font_size = "9pt"
        f.min_border = 2
        thumbs.append(f)
    what = f"its true class {cls}" if true is not None else f"class {cls} (the ensemble's top class)"
    fig = figure(height=BARS_HEIGHT, sizing_mode="stretch_width", min_width=300, toolbar_location=None,
                 y_range=(0, 1.05), x_range=(-0.6, len(images) - 0.4), name="ens-bars",
                 title=f"probability of {what} on each rotation")
    x = np.arange(len(images), dtype=float)
    fig.vbar(x=x - 0.19, top=ens[:, cls], width=0.36, color=SETTING_COLOURS.get(setting, "#1f77b4"),
             legend_label=f"ensemble of {example.get('members', '?')}", name="ens-bars-ensemble")
    fig.vbar(x=x + 0.19, top=one[:, cls], width=0.36, color=MEMBER_COLOUR, legend_label="member 0 alone",
             name="ens-bars-member")
    fig.xaxis.ticker = list(range(len(images)))
    # under each rotation: the class the ensemble and member 0 predict there
    fig.xaxis.major_label_overrides = {k: f"{ROTATIONS[k % 4]}\n{int(ens[k].argmax())} / {int(one[k].argmax())}"
                                       for k in range(len(images))}
    fig.xaxis.axis_label = "rotation; under it, the class predicted: ensemble / member 0"
    fig.xaxis.axis_label_text_font_size = "10pt"
    fig.yaxis.axis_label = "probability"
    legend = fig.legend[0]  # above the bars, where it covers none
    fig.center.remove(legend)
    legend.orientation, legend.label_text_font_size, legend.padding, legend.margin = "horizontal", "8pt", 2, 2
    fig.add_layout(legend, "above")
    return column(row(*thumbs), fig, sizing_mode="stretch_width", name="ens-example")
