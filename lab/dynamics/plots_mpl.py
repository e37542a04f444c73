"""Static training-dynamics figures (matplotlib) for notebooks: the same views as the dashboard."""
from __future__ import annotations

from .metrics import frame, medians, view_limits
from ..plots.style import AXES_MPL, COLOURS, LABELS


def _drift(ax, df, view, logy):
    total = df[(df.layer == "total") & ~df.diverged.astype(bool)]
    med = medians(df)
    for s in dict.fromkeys(total.strategy):
        colour = COLOURS.get(s, "gray")
        for _, g in total[total.strategy == s].groupby("run"):
            g = g.sort_values("step")
            ax.plot(g.dist_from_init, g.dist_from_E, color=colour, alpha=0.2, lw=0.8)
        m = med[med.strategy == s].sort_values("step")
        ax.plot(m.dist_from_init, m.dist_from_E, color=colour, lw=2.5, label=LABELS.get(s, s))
    xmax, ymax = view_limits(df, view)
    ax.set_xlim(0, xmax)
    if logy:
        ax.set_yscale("log")
    else:
        ax.set_ylim(0, ymax)
    ax.set_xlabel(AXES_MPL["dist_from_init"], fontsize=9)
    ax.set_ylabel(AXES_MPL["dist_from_E"], fontsize=9)
    ax.set_title("scaled to Nom" if view == "nom" else "zoomed to Aug", fontsize=10)
    ax.grid(alpha=0.3)


def drift_figure(records, logy: bool = False, curves: bool = True, title: str = ""):
    """The paper's figure: both drift views, plus median loss and accuracy curves when ``curves``."""
    from matplotlib.figure import Figure

    df = frame(records)
    cols = 4 if curves else 2
    fig = Figure(figsize=(3.4 * cols, 3.2), layout="constrained")
    axes = fig.subplots(1, cols)
    _drift(axes[0], df, "nom", logy)
    _drift(axes[1], df, "aug", logy)
    axes[0].legend(fontsize=8, loc="upper left")
    if curves:
        med = medians(df)
        for ax, metric in zip(axes[2:], ("loss", "accuracy")):
            for s in dict.fromkeys(med.strategy):
                m = med[med.strategy == s]
                ax.plot(m.step, m[metric], color=COLOURS.get(s, "gray"), lw=1.8, label=LABELS.get(s, s))
            ax.set_xlabel("step")
            ax.set_title(f"{metric} (median)", fontsize=10)
            ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def reldim_figure(table):
    """Appendix E.2: Aug's drift from E relative to Nom's against dim E / dim L, one point per group."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4.6, 3.4), layout="constrained")
    ax = fig.subplots()
    ax.scatter(table.dim_E_over_dim_L, table.aug_over_nom, color=COLOURS["aug"], zorder=3)
    for _, row in table.iterrows():
        ax.annotate(row.setting, (row.dim_E_over_dim_L, row.aug_over_nom), textcoords="offset points",
                    xytext=(5, 4), fontsize=9)
    ax.set_xscale("log")
    ax.set_xlabel("dim E / dim L")
    ax.set_ylabel(AXES_MPL["aug_over_nom"])
    ax.set_title("relative drift of Aug vs relative dimension", fontsize=10)
    ax.grid(alpha=0.3)
    return fig
