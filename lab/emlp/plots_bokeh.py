"""The Equivariant models pane's figures: the data-efficiency plot (thesis Figure 2.5: test MSE against the
training-set size, log-log, one line per model, built once per run and streamed a point at a time as each model
finishes a size) and, for the pendulum (Figure 2.6), one held-out rollout drawn against the true trajectory in two
projections with the angular momentum about z along it.
"""
from __future__ import annotations

from bokeh.models import ColumnDataSource, HoverTool, Legend
from bokeh.plotting import figure

from ..plots.log_ticks import readable_log_axis
from ..plots.style import BASELINE_COLOUR, MODEL_COLOURS, MODEL_LABELS


#: the trivial baseline's series in the data-efficiency figure (its source's key and its line's style)
BASELINE = "baseline"
BASELINE_STYLE = {"color": BASELINE_COLOUR, "line_dash": "dashed", "line_width": 1.8}


def data_efficiency_figure(models, title: str = "test MSE against training-set size", height: int = 300,
                           xlabel: str = "training-set size N", ylabel: str = "test MSE", baseline: str | None = None):
    """(figure, {model: ColumnDataSource with x = size, y = test MSE}); the pane streams points into the sources.
    ``baseline``: the legend's words for a trivial baseline's dashed line, then in the sources under ``BASELINE``
    (the regression tasks: predicting the training targets' mean)."""
    fig = figure(height=height, sizing_mode="stretch_width", x_axis_type="log", y_axis_type="log", title=title,
                 x_axis_label=xlabel, y_axis_label=ylabel, toolbar_location="right",
                 name="emlp-efficiency")
    readable_log_axis(fig.xaxis)  # Bokeh's own ticks go linear (and crowd) under two decades
    readable_log_axis(fig.yaxis)
    sources, items = {}, []
    for m in models:
        src = ColumnDataSource({"x": [], "y": []}, name=f"emlp-efficiency-{m}")
        colour = MODEL_COLOURS.get(m, "#333333")
        line = fig.line("x", "y", source=src, line_width=2.5, color=colour)
        dots = fig.scatter("x", "y", source=src, size=8, color=colour)
        sources[m] = src
        items.append((MODEL_LABELS.get(m, m), [line, dots]))
    if baseline:
        src = ColumnDataSource({"x": [], "y": []}, name=f"emlp-efficiency-{BASELINE}")
        sources[BASELINE] = src
        items.append((baseline, [fig.line("x", "y", source=src, **BASELINE_STYLE)]))
    # one row above the plot; more than four models (the pendulum's six) in rows of three, so that the legend never
    # runs past a half-width plot
    fig.add_layout(Legend(items=items, orientation="horizontal", location="center",
                          ncols=3 if len(items) > 4 else len(items) or 1), "above")
    fig.add_tools(HoverTool(tooltips=[("N", "@x"), (ylabel, "@y{0.000e}")]))
    return fig, sources


#: the pendulum's state layout (``lab.data.pendulum``): q1, q2, p1, p2; the rollout drawn is the outer bob's
BOB = slice(3, 6)
TRUE_STYLE = {"color": "black", "line_dash": "dashed", "line_width": 2}


def rollout_figures(models, height: int = 280):
    """(Bokeh layout, {name: ColumnDataSource}) for one held-out pendulum rollout: the outer bob seen from above
    (x, y) and from the side (x, z) side by side, and L_z against time below them at full width with the legend,
    the truth dashed black and each model in its colour (``"true"`` and each model's source: columns t, x, y, z,
    lz; ``rollout_data`` fills them)."""
    from bokeh.layouts import column, row

    views = (("emlp-rollout-xy", "outer bob from above", "x", "y", "x", "y"),
             ("emlp-rollout-xz", "outer bob from the side", "x", "z", "x", "z"),
             ("emlp-rollout-lz", "angular momentum about z along the rollout", "t", "lz", "time (s)", "L_z"))
    sources = {name: ColumnDataSource({k: [] for k in ("t", "x", "y", "z", "lz")}, name=f"emlp-rollout-{name}")
               for name in ("true", *models)}
    figs = []
    for fname, title, xc, yc, xl, yl in views:
        fig = figure(height=height if xc != "t" else 220, sizing_mode="stretch_width", min_width=240, title=title,
                     x_axis_label=xl, y_axis_label=yl, name=fname, toolbar_location="right",
                     tools="pan,wheel_zoom,box_zoom,reset,save", match_aspect=xc != "t")
        fig.toolbar.logo = None
        fig.toolbar.autohide = True
        items = [("true", [fig.line(xc, yc, source=sources["true"], **TRUE_STYLE)])]
        for m in models:
            items.append((MODEL_LABELS.get(m, m), [fig.line(xc, yc, source=sources[m], line_width=2, alpha=0.85,
                                                            color=MODEL_COLOURS.get(m, "#333333"))]))
        if xc == "t":
            fig.add_layout(Legend(items=items, location="top_left", label_text_font_size="9pt"), "right")
        figs.append(fig)
    layout = column(row(figs[0], figs[1], sizing_mode="stretch_width"), figs[2], sizing_mode="stretch_width")
    return layout, sources


def rollout_data(states, lz, times) -> dict:
    """A source's columns from a rollout's states (T, 12) and L_z (T,) at ``times`` (T,)."""
    import numpy as np

    q = np.asarray(states, dtype=float)[:, BOB]
    return {"t": list(map(float, times)), "x": q[:, 0].tolist(), "y": q[:, 1].tolist(), "z": q[:, 2].tolist(),
            "lz": list(map(float, lz))}
