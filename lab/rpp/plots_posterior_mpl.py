"""Static figure of the posterior levels of equivariance (thesis section 3.5.2, matplotlib): the thesis's equivariance
error (eq. 3.3) of every member of a deep ensemble of RPP-EMLPs through training, one ensemble on data with an exact
symmetry (inertia), one on data with an approximate one (modified inertia).  Draws what it is given -- the dict of
``lab.rpp.posterior.posterior_levels`` (or its ``rows``); no training, no HoloViews, Bokeh or Panel.

One thin line per member, the median over members at each record bold, one colour per dataset, log y axis (the
exact ensemble's errors can be orders of magnitude below the approximate one's).

>>> rows = [{"symmetry": s, "member": k, "epoch": e, "equivariance_error": v * (k + 1) / e}
...         for s, v in (("exact", 1e-3), ("approximate", 0.2)) for k in range(2) for e in (5, 10)]
>>> fig = posterior_figure(rows)
>>> ax = fig.axes[0]
>>> ax.get_yscale(), len([l for l in ax.get_lines() if l.get_gid() == "median"])
('log', 2)
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import LabError
from ..plots.mpl_text import plain_log_labels as _plain_log_labels
from ..plots.mpl_text import words as _words

#: the two ensembles' colours and words (blue: the exact symmetry, orange-red: the approximate one)
COLOURS = {"exact": "#1f77b4", "approximate": "#d95f02"}
LABELS = {"exact": "inertia (exact O(3) symmetry)", "approximate": "modified inertia (approximate symmetry)"}
VARIANT_WORDS = {"thesis": "the thesis's formula", "original": "the authors' code"}
#: RPP-EMLP's objectives (``lab.rpp.train.PRIOR_NAMES``) in the title's words
PRIOR_WORDS = {"thesis": "the thesis's prior (variances 1e5 / 1)",
               "runner-inertia": "the authors' weight decays (inertia runner)",
               "runner-pendulum": "the authors' weight decays (pendulum runner)"}


class PosteriorPlotError(LabError, ValueError):
    """Input the posterior-levels figure cannot draw: no rows, or rows without the keys it needs."""


_KEYS = ("symmetry", "member", "epoch", "equivariance_error")


def _rows(result) -> list[dict]:
    rows = result.get("rows") if isinstance(result, dict) else result
    try:
        rows = list(rows)
    except TypeError:
        raise PosteriorPlotError(f"posterior_figure takes posterior_levels' result or its rows, not "
                                 f"{type(result).__name__}") from None
    if not rows:
        raise PosteriorPlotError("no rows to draw: run lab.rpp.posterior.posterior_levels first")
    for k, r in enumerate(rows):
        if not isinstance(r, dict) or any(key not in r for key in _KEYS):
            raise PosteriorPlotError(f"row {k} is not a posterior-levels row: it needs {', '.join(_KEYS)}")
    return rows


def _positive(v) -> float:
    """A value a log axis can show (NaN otherwise: a gap in the line)."""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return math.nan
    return v if math.isfinite(v) and v > 0 else math.nan


def posterior_figure(result, title: str | None = None):
    """The equivariance error (eq. 3.3 under O(3), on held-out inputs) of each ensemble member through training:
    thin lines per member, the median over the members bold, exact and approximate in two colours, log y axis.
    ``result``: ``posterior_levels``' dict (its settings name the training in the title) or a list of its rows.
    Raises ``PosteriorPlotError`` (a ``LabError``) for no rows or rows of another kind."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter, LogLocator

    rows = _rows(result)
    settings = result.get("settings", {}) if isinstance(result, dict) else {}
    fig = Figure(figsize=(7.2, 5.4), layout="constrained")
    ax = fig.subplots()
    symmetries = [s for s in COLOURS if any(r["symmetry"] == s for r in rows)]
    symmetries += sorted({r["symmetry"] for r in rows} - set(symmetries))
    handles, drawn = [], []
    for i, sym in enumerate(symmetries):
        colour = COLOURS.get(sym, f"C{i + 2}")
        mine = [r for r in rows if r["symmetry"] == sym]
        members = sorted({r["member"] for r in mine})
        for m in members:
            curve = sorted((r["epoch"], _positive(r["equivariance_error"])) for r in mine if r["member"] == m)
            ax.plot([e for e, _ in curve], [v for _, v in curve], color=colour, lw=0.8, alpha=0.45)
            drawn += [v for _, v in curve if v == v]
        epochs = sorted({r["epoch"] for r in mine})
        median = [float(np.nanmedian([_positive(r["equivariance_error"]) for r in mine if r["epoch"] == e] or
                                     [math.nan])) for e in epochs]
        line, = ax.plot(epochs, median, color=colour, lw=2.6, gid="median")
        handles.append(Line2D([], [], color=colour, lw=2.6,
                              label=f"{LABELS.get(sym, _words(sym))}: median of {len(members)} members"))
    ax.set_yscale("log")
    if drawn:
        _plain_log_labels(ax.yaxis)
        lo, hi = min(drawn), max(drawn)
        if hi / lo < 3:  # a narrow range still spans a readable stretch of the log axis
            mid = math.sqrt(lo * hi)
            ax.set_ylim(mid / 2, mid * 2)
        if hi / lo < 10:  # less than a decade: ticks of our own, each named (matplotlib's pick can be one number)
            subs = (1.5, 2, 3, 4, 6) if hi / lo >= 4 else (1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8)
            ax.yaxis.set_minor_locator(LogLocator(subs=subs))
            ax.yaxis.set_minor_formatter(FuncFormatter(lambda x, pos=None: f"{x:g}"))
    ax.set_xlabel("training epoch")
    ax.set_ylabel("equivariance error under O(3)\n(0: equivariant; 1: at most)")
    ax.grid(alpha=0.3, which="major")
    ax.grid(alpha=0.12, which="minor", axis="y")
    handles.append(Line2D([], [], color="gray", lw=0.8, alpha=0.6, label="one member (its own random start)"))
    fig.legend(handles=handles, fontsize=8.5, loc="outside lower center", ncols=1, frameon=False)
    if title is None:
        title = "How equivariant do RPP-EMLPs become? A deep ensemble on each dataset"
        if settings:
            variant = VARIANT_WORDS.get(settings.get("variant"), settings.get("variant"))
            prior = PRIOR_WORDS.get(settings.get("prior"), settings.get("prior"))
            if settings.get("prior_free") is not None or settings.get("prior_equivariant") is not None:
                prior = f"{settings.get('prior')} prior, variances overridden"
            title += (f"\n{settings.get('size')} training points, {settings.get('epochs')} epochs, modified inertia as "
                      f"{variant};\ntrained on {prior}")
    fig.suptitle(title, fontsize=10.5)
    ax.set_title("the thesis's relative error |ρ(g)f(x) − f(ρ(g)x)| / (|ρ(g)f(x)| + |f(ρ(g)x)|), "
                 "mean over held-out inputs", fontsize=8.5, color="#444444")
    return fig
