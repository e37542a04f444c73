"""The data-efficiency plot of the Equivariant models pane (thesis Figure 2.5): test MSE against the training-set
size, log-log, one line per model, built once per run and streamed a point at a time as each model finishes a size.
"""
from __future__ import annotations

from bokeh.models import ColumnDataSource, HoverTool, Legend
from bokeh.plotting import figure

from .style import MODEL_COLOURS, MODEL_LABELS


def data_efficiency_figure(models, title: str = "test MSE against training-set size", height: int = 300):
    """(figure, {model: ColumnDataSource with x = size, y = test MSE}); the pane streams points into the sources."""
    fig = figure(height=height, sizing_mode="stretch_width", x_axis_type="log", y_axis_type="log", title=title,
                 x_axis_label="training-set size N", y_axis_label="test MSE", toolbar_location="right",
                 name="emlp-efficiency")
    sources, items = {}, []
    for m in models:
        src = ColumnDataSource({"x": [], "y": []}, name=f"emlp-efficiency-{m}")
        colour = MODEL_COLOURS.get(m, "#333333")
        line = fig.line("x", "y", source=src, line_width=2.5, color=colour)
        dots = fig.scatter("x", "y", source=src, size=8, color=colour)
        sources[m] = src
        items.append((MODEL_LABELS.get(m, m), [line, dots]))
    fig.add_layout(Legend(items=items, orientation="horizontal", location="center"), "above")
    fig.add_tools(HoverTool(tooltips=[("N", "@x"), ("test MSE", "@y{0.000e}")]))
    return fig, sources
