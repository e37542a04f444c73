"""The Symmetry-discovery tab's figures (``lab discover-lie``, issue 33), in Bokeh.

* ``generators_figure(generators, losses, threshold)`` -- one small heatmap per generator (its input matrix A),
  diverging colours symmetric about 0, its symmetry loss relative to chance in its title, the kept ones (loss below
  the threshold) marked ✓ with a dark frame;
* ``angle_figure(history)`` -- the largest principal angle to the true algebra (degrees) against the gradient
  method's step, one line per restart;
* ``singular_figure(values, tol, gap)`` -- the solve's singular values relative to the largest, descending on a log
  axis, the cut at ``tol`` drawn across, the kept ones (at most tol: they span the basis) coloured; without the
  values (a loaded run saves only the gap) the two values around the cut;
* ``mse_figure(test_mse)`` -- the relative test MSE of the MLP, the EMLP on the true group and the EMLP on the learned
  group as bars, with the family's ``why`` as a note where the EMLPs were not trained.

Numbers are drawn as given (the family's records and summary): nothing is computed here but where to put them.
"""
from __future__ import annotations

import math

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, HoverTool, Label, LinearColorMapper, Span
from bokeh.palettes import RdBu11
from bokeh.plotting import figure

from ..plots.log_ticks import readable_log_axis

#: px: a heatmap's side, the other figures' height
CELL, HEIGHT = 104, 260
#: blue below 0, white at 0, red above (RdBu runs red to blue)
DIVERGING = tuple(reversed(RdBu11))
KEPT_COLOUR, CUT_COLOUR, REFERENCE_COLOUR = "#d62728", "#9e9e9e", "#555555"
RESTART_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
#: the three models of the comparison, in the order drawn, and their words
#: the bars' labels, on two lines (side by side on one line they ran into each other in a narrow plot)
MODELS = {"mlp": "MLP", "emlp_true": "EMLP\ntrue group", "emlp_learned": "EMLP\nlearned group"}
MODEL_COLOURS = {"mlp": "#7f7f7f", "emlp_true": "#2ca02c", "emlp_learned": "#d62728"}
#: heatmaps drawn at most (the rest are named in the title)
MAX_SHOWN = 12


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _empty(name: str, title: str, height: int = HEIGHT):
    fig = figure(height=height, sizing_mode="stretch_width", min_width=240, toolbar_location=None, title=title,
                 name=name)
    fig.xaxis.visible = fig.yaxis.visible = False
    return fig


def generators_figure(generators, losses=(), threshold: float | None = None, title: str = "generators",
                      empty: str = "press Start"):
    """``generators``: k square input matrices A (nested lists); ``losses``: each one's loss relative to chance (as
    many, or fewer: the missing are not named); ``threshold``: below it a generator is kept (marked).  None or
    empty: a figure that says ``empty``."""
    mats = [np.asarray(a, dtype=float) for a in (generators or [])]
    if not mats:
        return column(_empty("disc-generators-empty", f"{title}: {empty}", height=CELL + 30),
                      sizing_mode="stretch_width", name="disc-generators")
    losses = list(losses or [])
    shown = mats[:MAX_SHOWN]
    bound = max(float(np.abs(m).max()) for m in shown) or 1.0
    mapper = LinearColorMapper(palette=DIVERGING, low=-bound, high=bound)
    figs = []
    for i, a in enumerate(shown):
        h, w = a.shape
        loss = losses[i] if i < len(losses) and _number(losses[i]) else None
        kept = loss is not None and threshold is not None and loss < threshold
        words = f"A{i + 1}" + (f" · {loss:.2g}" if loss is not None else "") + (" ✓" if kept else "")
        f = figure(width=CELL, height=CELL + 22, x_range=(0, w), y_range=(0, h), toolbar_location=None,
                   title=words, name=f"disc-generator-{i}")
        f.image(image=[a[::-1]], x=0, y=0, dw=w, dh=h, color_mapper=mapper, name=f"disc-generator-{i}-image")
        f.axis.visible = f.grid.visible = False
        f.title.text_font_size = "9pt"
        if kept:
            f.title.text_color = KEPT_COLOUR
            f.outline_line_color, f.outline_line_width = "#222222", 3
        f.min_border = 2
        figs.append(f)
    more = f" (the first {MAX_SHOWN} of {len(mats)})" if len(mats) > MAX_SHOWN else ""
    head = _empty("disc-generators-title", f"{title}{more}: symmetry loss relative to chance, ✓ kept"
                  + (f" (below {threshold:g})" if threshold is not None else ""), height=30)
    head.outline_line_color = None
    rows = [row(*figs[j:j + 6]) for j in range(0, len(figs), 6)]
    return column(head, *rows, sizing_mode="stretch_width", name="disc-generators")


def angle_figure(history, empty: str = "press Start"):
    """``history``: (restart, step, degrees) triples (degrees None: no truth).  Empty: a figure saying ``empty``."""
    points = [(int(r), int(s), float(d)) for r, s, d in (history or []) if _number(d)]
    if not points:
        return _empty("disc-angle", f"angle to the truth: {empty}")
    fig = figure(height=HEIGHT, sizing_mode="stretch_width", min_width=240, name="disc-angle",
                 toolbar_location=None, tools="pan,wheel_zoom,box_zoom,reset,save", title="angle to the truth")
    fig.xaxis.axis_label = "step of the gradient method"
    fig.yaxis.axis_label = "degrees"
    for r in sorted({p[0] for p in points}):
        xs = [s for q, s, _ in points if q == r]
        ys = [d for q, _, d in points if q == r]
        colour = RESTART_COLOURS[r % len(RESTART_COLOURS)]
        src = ColumnDataSource({"step": xs, "angle": ys})
        fig.line("step", "angle", source=src, color=colour, line_width=2, legend_label=f"restart {r + 1}",
                 name=f"disc-angle-{r}")
        fig.scatter("step", "angle", source=src, color=colour, size=4)
    fig.y_range.start = 0
    _legend_above(fig)
    return fig


def _legend_above(fig) -> None:
    """The legend in one row above the plot, where it covers no point."""
    legend = fig.legend[0]
    fig.center.remove(legend)
    legend.orientation, legend.label_text_font_size = "horizontal", "8pt"
    legend.spacing, legend.padding, legend.margin = 6, 2, 2
    fig.add_layout(legend, "above")


def singular_figure(values, tol: float, gap: dict | None = None, rank: int | None = None,
                    empty: str = "press Start"):
    """``values``: the solve's singular values relative to the largest, descending (None: a loaded run's, not
    saved; the gap's two values are drawn instead).  ``tol``: the cut, a line across; values at most tol are kept
    (the basis)."""
    vals = [float(v) for v in (values or []) if _number(v)]
    if not vals and gap:
        vals = [float(gap[k]) for k in ("above", "below") if _number(gap.get(k))]
        what = "the two values at the cut (all are not saved)"
    else:
        what = "index, descending (red: kept, at most tol)"
    if not vals:
        return _empty("disc-singular", f"singular values: {empty}")
    positive = [v for v in vals if v > 0]
    floor = min(min(positive) if positive else tol, tol) / 10
    shown = [max(v, floor) for v in vals]
    kept = [v <= tol for v in vals]
    fig = figure(height=HEIGHT, sizing_mode="stretch_width", min_width=240, y_axis_type="log", name="disc-singular",
                 toolbar_location=None, tools="pan,wheel_zoom,box_zoom,reset,save",
                 title="singular values" + (f" · rank {rank}" if rank is not None else ""))
    idx = list(range(1, len(vals) + 1))
    src = ColumnDataSource({"i": idx, "s": shown, "value": vals,
                            "colour": [KEPT_COLOUR if k else CUT_COLOUR for k in kept],
                            "kept": ["kept (in the basis)" if k else "cut (a constraint)" for k in kept]})
    dots = fig.scatter("i", "s", source=src, color="colour", size=8, legend_field="kept", name="disc-singular-values")
    fig.add_tools(HoverTool(renderers=[dots], tooltips=[("#", "@i"), ("σ/σ₁", "@value{%.3g}"), ("", "@kept")],
                            formatters={"@value": "printf"}))
    fig.add_layout(Span(location=tol, dimension="width", line_color=REFERENCE_COLOUR, line_dash="dashed",
                        line_width=1.5, name="disc-cut"))
    # under the line (the cut values, above it, sit at 1 on the left where a label above would cover them)
    fig.add_layout(Label(x=4, y=tol, x_units="screen", y_units="data", y_offset=-3, text=f"cut at tol {tol:g}",
                         text_baseline="top", text_font_size="8pt", text_color=REFERENCE_COLOUR,
                         name="disc-cut-label"))
    readable_log_axis(fig.yaxis)
    fig.yaxis.axis_label = "σ / σ₁"
    if len(idx) <= 20:
        fig.xaxis.ticker = idx
    fig.xaxis.axis_label = what
    fig.xaxis.axis_label_text_font_size = "8pt"
    _legend_above(fig)
    return fig


def cut_of(fig) -> float | None:
    """The tolerance a singular-value figure cuts at (its ``disc-cut`` line)."""
    for item in fig.center:
        if isinstance(item, Span) and item.name == "disc-cut":
            return item.location
    return None


def mse_figure(test_mse: dict | None, empty: str = "press Start"):
    """Bars of the relative test MSE of the three models (``test_mse``: {mlp, emlp_true, emlp_learned, why}); a
    missing one is named "not trained" on the axis, ``why`` a note over the bars."""
    test_mse = test_mse or {}
    if not any(_number(test_mse.get(k)) for k in MODELS):
        return _empty("disc-mse", f"relative test MSE: {empty}")
    names = list(MODELS)
    vals = [float(test_mse[k]) if _number(test_mse.get(k)) else 0.0 for k in names]
    labels = [MODELS[k] if _number(test_mse.get(k)) else f"{MODELS[k]} (not trained)" for k in names]
    spread = test_mse.get("spread") or {}
    title = "relative test MSE" + (f" (mean of {test_mse.get('seeds')} seeds, range in brackets)" if spread else "")
    fig = figure(height=HEIGHT, sizing_mode="stretch_width", min_width=240, x_range=labels, name="disc-mse",
                 toolbar_location=None, title=title)

    def words(k, v):
        if not _number(test_mse.get(k)):
            return "–"
        return f"{v:.3g}" + (f" ({spread[k][0]:.3g}–{spread[k][1]:.3g})" if k in spread else "")

    src = ColumnDataSource({"model": labels, "mse": vals, "colour": [MODEL_COLOURS[k] for k in names],
                            "text": [words(k, v) for k, v in zip(names, vals)]})
    fig.vbar(x="model", top="mse", width=0.6, color="colour", source=src, name="disc-mse-bars")
    fig.text(x="model", y="mse", text="text", source=src, text_align="center", text_baseline="bottom",
             text_font_size="9pt", y_offset=-2)
    fig.y_range.start = 0
    fig.y_range.range_padding = 0.25
    fig.yaxis.axis_label = "MSE / E[y²]"
    fig.xaxis.major_label_text_font_size = "8pt"
    why = test_mse.get("why")
    if why:
        fig.add_layout(Label(x=4, y=4, x_units="screen", y_units="screen", text=f"EMLPs: {why}"[:110],
                             text_font_size="8pt", text_color=REFERENCE_COLOUR, name="disc-mse-why"))
    elif test_mse.get("noise"):  # one seed's numbers: say they are within seed noise (the summary has the numbers)
        fig.add_layout(Label(x=4, y=4, x_units="screen", y_units="screen", text=NOISE_LABEL,
                             text_font_size="8pt", text_color=REFERENCE_COLOUR, name="disc-mse-noise"))
    return fig


#: the bars' note for one seed's loop (``lab.discovery.loop.SEED_NOISE`` in full in the summary)
NOISE_LABEL = "one seed: within seed noise (an EMLP's error varies 2-5x between seeds); Loop seeds 3: the spread"
