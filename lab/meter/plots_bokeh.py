"""The Equivariance meter tab's figures (Finzi's thesis, chapter 4; ``lab lie-derivative``), in Bokeh.

* ``cumulative_figure(rows)`` -- thesis Figure 4.4 for one model: each layer's contribution ``E|C_i|`` summed in
  layer order (``lab.meter.example.cumulative_contributions`` adds the running sum), a dot per layer in the colour
  of its kind (``LAYER_KIND_COLOURS``: downsampling and nonlinearities, the thesis's culprits, in the loud ones),
  so a step up the curve is a layer that adds error.  The norms need not add up to ``E|L_X f|`` (only
  ``|L_X f| <= sum |C_i|`` holds), which the caption says.
* ``example_figures(example)`` -- one input along its flow (``lab.meter.example.transformed_example``): the
  transformed versions as small images, then the model's output ``f(T_t x)`` against ``t`` (every class faint, the
  class ``f(x)`` ranks first bold) with its tangent at ``t = 0``, ``f(x) + t L_X f(x)``, dashed: the Lie derivative
  is that slope.

Numbers are drawn as given: nothing is computed here but where to put them.
"""
from __future__ import annotations

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, HoverTool, LinearColorMapper, Range1d, Span
from bokeh.plotting import figure

from ..plots.style import GREYS, LAYER_KIND_COLOURS

#: px: the cumulative plot's and the output plot's heights; one transformed version's side
HEIGHT, THUMB = 300, 74
#: the words of each transformation's parameter (``lab.equivariance.transforms.UNITS``'s units, short)
T_WORDS = {"pixel": "px", "radian": "rad"}
TOP_COLOUR, OTHER_COLOUR = "#1f77b4", "#c7c7c7"
CAPTION = ("Each dot: one layer, in the order the layers run; height: the contributions E‖Cᵢ‖ of every layer up to "
           "it, summed. A step up is a layer that adds equivariance error. The vectors Cᵢ add up to the model's Lie "
           "derivative exactly; their norms need not (only ‖L_X f‖ ≤ Σ‖Cᵢ‖), so the last value bounds E‖L_X f‖.")


def _t_unit(unit: str) -> str:
    return T_WORDS.get(unit, unit)


def cumulative_figure(rows: list[dict], unit: str = "pixel", title: str = "", width: int | None = None):
    """Figure 4.4 for one model from ``cumulative_contributions`` rows (``name``, ``kind``, ``contribution``,
    ``cumulative``, ``share``); an empty list gives an empty figure that says so in its title."""
    names = [str(r["name"]) for r in rows]
    fig = figure(height=HEIGHT, x_range=names or ["(no layers)"], sizing_mode="stretch_width" if width is None else
                 "fixed", width=width or 450, toolbar_location=None, name="meter-cumulative",
                 title=title or ("where the error enters, layer by layer (Fig. 4.4)" if rows
                                 else "layer-wise contributions: tick “Layer-wise” and Start"))
    fig.xaxis.major_label_orientation = 0.9
    fig.yaxis.axis_label = f"cumulative E‖Cᵢ‖ (per {unit})"
    fig.xaxis.axis_label = "layer (in the order the layers run)"
    fig.y_range.start = 0
    if not rows:
        return fig
    src = ColumnDataSource({
        "name": names, "kind": [r["kind"] for r in rows], "module": [r.get("module", "") for r in rows],
        "cumulative": [float(r["cumulative"]) for r in rows], "contribution": [float(r["contribution"]) for r in rows],
        "share": [float(r.get("share", np.nan)) for r in rows],
        "colour": [LAYER_KIND_COLOURS.get(r["kind"], LAYER_KIND_COLOURS["other"]) for r in rows]})
    fig.line("name", "cumulative", source=src, color="#555555", line_width=2)
    dots = fig.scatter("name", "cumulative", source=src, size=11, color="colour", line_color="white",
                       legend_group="kind")
    fig.add_tools(HoverTool(renderers=[dots], tooltips=[("layer", "@name (@module)"), ("kind", "@kind"),
                                                        ("E‖Cᵢ‖", "@contribution{0.000e}"),
                                                        ("cumulative", "@cumulative{0.000e}"),
                                                        ("share of E‖L‖²", "@share{0.000}")]))
    legend = fig.legend[0]  # above the plot, in rows of three: inside, it would cover some layer's dot
    fig.center.remove(legend)
    legend.orientation, legend.ncols = "horizontal", 3
    legend.label_text_font_size, legend.padding, legend.margin = "9pt", 2, 2
    fig.add_layout(legend, "above")
    fig.y_range = Range1d(0, 1.1 * max(src.data["cumulative"]) or 1.0)
    return fig


def example_figures(example: dict, label: str = "input", classes=None):
    """The input's transformed versions (a row of thumbnails, ``t`` in the transformation's unit) over the output's
    change along the flow with its tangent at ``t = 0``.  ``classes``: names of the output's entries (default
    "class k")."""
    unit = _t_unit(example["unit"])
    images = np.asarray(example["images"], dtype=float)
    lo, hi = float(images.min()), float(images.max())
    mapper = LinearColorMapper(palette=GREYS, low=min(lo, 0.0), high=max(hi, lo + 1e-12, 1.0 if hi <= 1 else hi))
    thumbs = []
    for t, img in zip(example["t_versions"], images):
        h, w = img.shape
        f = figure(width=THUMB, height=THUMB + 20, x_range=(0, w), y_range=(0, h), toolbar_location=None,
                   title=f"t = {t:+.2g} {unit}" if abs(t) > 1e-12 else "t = 0 (input)",
                   name="meter-thumb")
        f.image(image=[img[::-1]], x=0, y=0, dw=w, dh=h, color_mapper=mapper)  # Bokeh's row 0 is the bottom one
        f.axis.visible = False
        f.grid.visible = False
        f.title.text_font_size = "9pt"
        f.min_border = 2
        thumbs.append(f)
    outputs = np.asarray(example["outputs"], dtype=float)
    t = np.asarray(example["t"], dtype=float)
    top = int(example["top"])
    names = list(classes) if classes is not None else [f"class {k}" for k in range(outputs.shape[1])]
    word = "probability" if example.get("output") == "probs" else "logit"
    fig = figure(height=HEIGHT - 60, sizing_mode="stretch_width", toolbar_location=None, name="meter-output",
                 title=f"the output along the flow ({word})")
    others = [k for k in range(outputs.shape[1]) if k != top]
    for i, k in enumerate(others):
        fig.line(t, outputs[:, k], color=OTHER_COLOUR, line_width=1,
                 **({"legend_label": "the other classes"} if i == 0 else {}))
    fig.line(t, outputs[:, top], color=TOP_COLOUR, line_width=3, legend_label=f"{names[top]} (the top class)")
    y0, slope = float(example["output0"][top]), float(example["lie"][top])
    fig.line(t, y0 + slope * t, color="#333333", line_dash="dashed", line_width=1.5,
             legend_label=f"tangent f(x) + t·L_X f(x), slope {slope:.3g} per {unit}")
    fig.add_layout(Span(location=0, dimension="height", line_color="#999999", line_dash="dotted"))
    fig.xaxis.axis_label = f"t ({example['unit']}s of {example['transform']})"
    fig.yaxis.axis_label = word
    legend = fig.legend[0]  # above the plot: inside, it covered the curves it names
    fig.center.remove(legend)
    legend.orientation, legend.ncols, legend.label_text_font_size = "horizontal", 2, "8pt"
    legend.padding, legend.margin = 2, 2
    fig.add_layout(legend, "above")
    return column(row(*thumbs), fig, sizing_mode="stretch_width", name="meter-example")
