"""The Generalization-bounds tab's figures (thesis chapter 5; ``lab bound``), in Bokeh.

* ``dims_figure(runs, quantity)`` -- one quantity against the subspace dimension d, one line with markers per model
  in its colour (``BOUND_MODEL_COLOURS``): ``train_error`` (the quantized model's, what the bound uses; its test error
  dashed beside it), ``size_kb`` (the compressed description, in KB) or ``bound`` (with a dashed reference at the
  guessing error: a bound above it says nothing, "vacuous above");
* ``best_figure(bests)`` -- the best bound of each model as bars, each labelled with its value and its d, under the
  same reference line.

``runs`` are summaries of the ``bounds`` family (``lab.bounds.family.summary``: ``model`` and ``dims``, one entry
per d), or the rows of a run going on in the same shape.  Numbers are drawn as given: nothing is computed here but a
unit (bits to KB) and where to put them.
"""
from __future__ import annotations

import math

from bokeh.models import ColumnDataSource, FactorRange, HoverTool, Label, LabelSet, Span
from bokeh.plotting import figure

from ..plots.style import BOUND_MODEL_COLOURS, BOUND_MODEL_LABELS

#: px: the figures' heights
HEIGHT = 300
#: bits in a kilobyte (the compressed size is drawn in KB: bits / 8192)
BITS_PER_KB = 8 * 1024
#: each quantity's title and axis words
QUANTITIES = {
    "train_error": ("train error, quantized (dashed: test)", "error"),
    "size_kb": ("compressed size", "KB"),
    "bound": ("error bound (95 % confidence)", "bound on the error"),
}
REFERENCE_COLOUR = "#555555"
#: the words on the reference line at the guessing error
VACUOUS = "vacuous above"


def kilobytes(bits) -> float:
    """A size in bits as KB (8 192 bits)."""
    return float(bits) / BITS_PER_KB


def model_label(model: str) -> str:
    return BOUND_MODEL_LABELS.get(model, str(model))


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _values(rows, quantity: str) -> list:
    key = "compressed_bits" if quantity == "size_kb" else quantity
    out = [r.get(key) for r in rows]
    return [kilobytes(v) if quantity == "size_kb" and _number(v) else v for v in out]


def _legend_above(fig) -> None:
    """The legend in one row above the plot, where it covers no point."""
    if not fig.legend:
        return
    legend = fig.legend[0]
    fig.center.remove(legend)
    legend.orientation, legend.label_text_font_size = "horizontal", "9pt"
    legend.spacing, legend.padding, legend.margin = 10, 2, 2
    legend.click_policy = "hide"
    fig.add_layout(legend, "above")


def _reference(fig, guess: float, legend: bool = False) -> None:
    """The guessing error: a dashed line across, "vacuous above" over its left end (``legend``: in the legend
    instead, where no bar covers the words)."""
    if legend:
        fig.hspan(y=[guess], line_color=REFERENCE_COLOUR, line_dash="dashed", line_width=1.5, name="bnd-vacuous",
                  legend_label=f"guessing error {guess:g}: a bound above it is {VACUOUS.split()[0]}")
        return
    fig.add_layout(Span(location=guess, dimension="width", line_color=REFERENCE_COLOUR, line_dash="dashed",
                        line_width=1.5, name="bnd-vacuous"))
    fig.add_layout(Label(x=4, y=guess, x_units="screen", y_units="data", y_offset=2, text=f"{VACUOUS} ({guess:g})",
                         text_font_size="8pt", text_color=REFERENCE_COLOUR, name="bnd-vacuous-label"))


def dims_figure(runs: list[dict], quantity: str, guess: float | None = None, empty: str = "press Start"):
    """``quantity`` (``train_error``, ``size_kb`` or ``bound``) against d, one line with markers per run of
    ``runs`` (dicts with ``model`` and ``dims``: rows with ``d``, ``train_error``, ``test_error``, ``compressed_bits``,
    ``bound``).  ``guess``: the guessing error, drawn on the bound's figure.  No rows: an empty figure whose title
    ends with ``empty``."""
    title, axis = QUANTITIES[quantity]
    drawn = [r for r in runs if r.get("dims")]
    kw = {"y_range": (0, 1.05)} if quantity == "bound" else {}
    fig = figure(height=HEIGHT, sizing_mode="stretch_width", min_width=260, name=f"bnd-{quantity}",
                 title=title if drawn else f"{title}: {empty}", tools="pan,wheel_zoom,box_zoom,reset,save",
                 toolbar_location="right", **kw)
    fig.toolbar.logo = None
    fig.title.text_font_size = "10pt"
    fig.xaxis.axis_label, fig.yaxis.axis_label = "subspace dimension d", axis
    dims = sorted({int(row["d"]) for r in drawn for row in r["dims"]})
    if dims:
        fig.xaxis.ticker = dims
        fig.xaxis.major_label_overrides = {d: str(d) for d in dims}
    if quantity != "bound":
        fig.y_range.start = 0
    dots = []
    for r in drawn:
        model, rows = r["model"], r["dims"]
        colour = BOUND_MODEL_COLOURS.get(model, "#333333")
        src = ColumnDataSource({"d": [int(row["d"]) for row in rows], "y": [float(v) for v in _values(rows, quantity)],
                                "model": [model_label(model)] * len(rows)})
        label = model_label(model)
        fig.line("d", "y", source=src, color=colour, line_width=2, legend_label=label,
                 name=f"bnd-{quantity}-{model}-line")
        dots.append(fig.scatter("d", "y", source=src, color=colour, size=8, line_color="white", legend_label=label,
                                name=f"bnd-{quantity}-{model}"))
        test = [row.get("test_error") for row in rows]
        if quantity == "train_error" and all(_number(v) for v in test):
            tsrc = ColumnDataSource({"d": [int(row["d"]) for row in rows], "y": [float(v) for v in test],
                                     "model": [f"{label}, test"] * len(rows)})
            fig.line("d", "y", source=tsrc, color=colour, line_width=1.5, line_dash="dashed", alpha=0.8,
                     name=f"bnd-test_error-{model}")
            dots.append(fig.scatter("d", "y", source=tsrc, color=colour, size=5, marker="square", alpha=0.8,
                                    name=f"bnd-test_error-{model}-dots"))
    if dots:
        fig.add_tools(HoverTool(renderers=dots, tooltips=[("", "@model"), ("d", "@d"), (axis, "@y{%.4g}")],
                                formatters={"@y": "printf"}))
    if quantity == "bound" and guess is not None:
        _reference(fig, guess)
    _legend_above(fig)
    return fig


def best_figure(bests: list[dict], guess: float | None = None, empty: str = "press Start"):
    """The best bound of each model as bars: ``bests``, dicts with ``model``, ``best_bound`` and ``best_dim`` (a model
    with no bound yet is left out), each bar in its model's colour, labelled with its bound and its d."""
    drawn = [b for b in bests if _number(b.get("best_bound"))]
    models = [model_label(b["model"]) for b in drawn]
    fig = figure(height=HEIGHT, sizing_mode="stretch_width", min_width=260, name="bnd-best", x_range=FactorRange(
        *models) if models else FactorRange(), y_range=(0, 1.12), toolbar_location=None,
                 title="best bound of each model" if drawn else f"best bound of each model: {empty}")
    fig.title.text_font_size = "10pt"
    fig.yaxis.axis_label = "bound on the error"
    fig.xgrid.grid_line_color = None
    src = ColumnDataSource({"model": models, "bound": [float(b["best_bound"]) for b in drawn],
                            "d": [int(b["best_dim"]) for b in drawn],
                            "colour": [BOUND_MODEL_COLOURS.get(b["model"], "#333333") for b in drawn],
                            "label": [f"{float(b['best_bound']):.3f} at d = {int(b['best_dim'])}" for b in drawn]})
    bars = fig.vbar(x="model", top="bound", width=0.6, color="colour", source=src, name="bnd-best-bars")
    fig.add_layout(LabelSet(x="model", y="bound", text="label", source=src, text_align="center", y_offset=3,
                            text_font_size="9pt", name="bnd-best-labels"))
    fig.add_tools(HoverTool(renderers=[bars], tooltips=[("", "@model"), ("best bound", "@bound{%.4g}"), ("d", "@d")],
                            formatters={"@bound": "printf"}))
    if guess is not None:
        _reference(fig, guess, legend=True)
    _legend_above(fig)
    return fig
