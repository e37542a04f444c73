"""Saved runs overlaid (matplotlib): the same picture as ``compare_hv`` from the same ``lab.compare`` table, for
the dashboard's PNG download, ``lab runs compare --png`` and notebooks.  No HoloViews, Bokeh or Panel here."""
from __future__ import annotations

import io

from .style import METRICS, MPL_DASHES, SHOWN, metric_title, run_styles

KEY_COLOUR = "#888888"  # the line-style keys are grey: colour means run


def compare_figure(frame, metrics=None, logy: bool = False, title: str = "", kind: str = ""):
    """One axes per metric (default: those in ``frame``, in the order the comparisons show them), a colour per
    run and a line style per series, each axes with its legend below it."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    if metrics is None:
        have = list(dict.fromkeys(frame.metric)) if not frame.empty else []
        order = [m for kind in SHOWN.values() for m in kind]
        metrics = sorted(have, key=lambda m: order.index(m) if m in order else len(order)) or ["loss"]
    metrics = list(metrics)
    n_labels = max(frame.run.nunique() + frame.series.nunique() if not frame.empty else 1, 1)
    fig = Figure(figsize=(5.2 * len(metrics), 3.4 + 0.22 * n_labels), layout="constrained")
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    colours, _ = run_styles(frame.run if not frame.empty else [], [])
    for ax, metric in zip(axes, metrics):
        rows = frame[frame.metric == metric] if not frame.empty else frame
        _, dashes = run_styles([], rows.series if not rows.empty else [])
        handles = {}
        for run, colour in colours.items():
            for series, dash in dashes.items():
                g = rows[(rows.run == run) & (rows.series == series)].sort_values("step")
                if g.empty:
                    continue
                ax.plot(g.step, g.value.astype(float), color=colour, linestyle=MPL_DASHES[dash], lw=1.8)
                handles.setdefault(run, Line2D([], [], color=colour, lw=1.8))
        if handles and len(dashes) > 1:  # grey keys of the line styles: colour means run
            handles.update({series: Line2D([], [], color=KEY_COLOUR, linestyle=MPL_DASHES[dash], lw=1.8)
                            for series, dash in dashes.items()})
        ylabel, heading = METRICS.get(metric, (metric, metric))[0], metric_title(metric, kind)
        ax.set_xlabel("step")
        ax.set_ylabel(ylabel)
        ax.set_title(heading, fontsize=10)
        if logy:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
        if handles:
            ax.legend(list(handles.values()), list(handles), fontsize=8, loc="upper center",
                      bbox_to_anchor=(0.5, -0.2), frameon=False)
        else:
            ax.text(0.5, 0.5, "no curves", ha="center", va="center", transform=ax.transAxes, color="gray")
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def compare_png(frame, metrics=None, logy: bool = False, title: str = "", kind: str = "", dpi: int = 120) -> bytes:
    """PNG bytes of ``compare_figure`` (the dashboard's download and ``--png``)."""
    buf = io.BytesIO()
    compare_figure(frame, metrics, logy=logy, title=title, kind=kind).savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()
