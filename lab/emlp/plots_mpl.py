"""Static figures of the ``emlp`` family (matplotlib) for notebooks and PNG exports: the data-efficiency figure
of the thesis (Finzi, Figure 2.5: test MSE against the training-set size, log-log, one line per model) and the
train/test curves of a run.  Draws what it is given (the family's summary dict, curve rows); no HoloViews, Bokeh
or Panel, nothing from the experiments layer.

The models keep the colours of their training strategies elsewhere in the lab (``style.MODEL_COLOURS``): MLP is Nom's
red, MLP-Aug Aug's blue, EMLP Equi's green.

>>> summary = {"task": "inertia", "group": "O(3)", "sizes": [30, 100],
...            "models": {"mlp": {"test_mse": [9.0, 5.0]}, "emlp": {"test_mse": [1.0, 0.1]}}}
>>> fig = data_efficiency_figure(summary)
>>> [line.get_ydata().tolist() for line in fig.axes[0].get_lines()]
[[9.0, 5.0], [1.0, 0.1]]
>>> model_label("mlp-aug"), model_label("emlp", "SO(3)")
('MLP-Aug', 'EMLP-SO(3)')
"""
from __future__ import annotations

import math

from ..plots.mpl_text import plain_log_labels as _plain_log_labels
from ..plots.mpl_text import words as _words
from ..plots.style import BASELINE_COLOUR, MEAN_LINE, MODEL_COLOURS, OTHER_COLOURS
from ..data.titles import task_title

#: a model's colour (``style.MODEL_COLOURS``: MLP as Nom, MLP-Aug as Aug, EMLP as Equi) and marker
MODEL_MARKERS = {"mlp": "s", "mlp-aug": "^", "emlp": "o", "rpp": "D"}
OTHER_MARKERS = ("D", "v", "P", "X", "*", "<", ">")
KEY_COLOUR = "#888888"  # the line-style keys (test / train) are grey: colour means model


def model_label(name: str, group: str | None = None) -> str:
    """The thesis's model names: MLP, MLP-Aug, EMLP-G (``group``: the EMLP's group)."""
    if name == "emlp":
        return f"EMLP-{_words(group)}" if group else "EMLP"
    return {"mlp": "MLP", "mlp-aug": "MLP-Aug"}.get(name, _words(name))


def _ordered(names) -> list:
    """Models in the thesis's order (MLP, MLP-Aug, EMLP), any others after them as given."""
    names = list(dict.fromkeys(names))
    known = [m for m in MODEL_COLOURS if m in names]
    return known + [m for m in names if m not in MODEL_COLOURS]


def _styles(names) -> dict:
    """{model: (colour, marker)}: the lab's for mlp, mlp-aug, emlp, others in turn."""
    out, k = {}, 0
    for name in dict.fromkeys(names):
        if name in MODEL_COLOURS:
            base = name.split("-", 1)[1] if name.startswith(("hnn-", "node-")) else name  # hnn-emlp: emlp's
            out[name] = (MODEL_COLOURS[name], MODEL_MARKERS[base])
        else:
            out[name] = (OTHER_COLOURS[k % len(OTHER_COLOURS)], OTHER_MARKERS[k % len(OTHER_MARKERS)])
            k += 1
    return out


def _number(x) -> float:
    """A plotted value: None (a size not run) and non-finite values are gaps."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return math.nan
    return x if math.isfinite(x) else math.nan


def _size_ticks(ax, sizes) -> None:
    """The training-set sizes themselves as the x ticks (plain numbers on the log axis)."""
    from matplotlib.ticker import FixedLocator, NullFormatter

    sizes = sorted(set(int(n) for n in sizes))
    if not sizes:
        return
    ax.xaxis.set_major_locator(FixedLocator(sizes))
    ax.set_xticklabels([f"{n:,}" for n in sizes])
    ax.xaxis.set_minor_formatter(NullFormatter())
    lo, hi = sizes[0], sizes[-1]
    pad = 1.35 if hi > lo else 2.0  # a single size still sits inside a readable range
    ax.set_xlim(lo / pad, hi * pad)


def data_efficiency_figure(summary: dict, title: str | None = None, equivariance: bool = True):
    """Test MSE against the training-set size on log-log axes, one line with markers per model (the thesis's
    Figure 2.5), from the family's summary (``FAMILY.summary(result)`` or a saved run's ``meta["summary"]``).

    ``equivariance``: each model's equivariance error (the worst over sizes and seeds) in its legend entry.
    The summary's ``mean_mse`` (the regression tasks) is a dashed line: the test MSE of predicting the training
    targets' mean.  The legend sits to the right of the axes, over no data."""
    from matplotlib.figure import Figure

    sizes = [int(n) for n in summary.get("sizes", [])]
    models = summary.get("models", {})
    group = summary.get("group")
    fig = Figure(figsize=(6.8, 3.9), layout="constrained")
    ax = fig.subplots()
    styles = _styles(models)
    for name in _ordered(models):
        values = models[name]
        colour, marker = styles[name]
        label = model_label(name, group)
        err = values.get("equivariance_error")
        if equivariance and err is not None and math.isfinite(float(err)):
            label += f"  (equiv. error {float(err):.1g})"
        ys = [_number(v) for v in values.get("test_mse", [])]
        ax.plot(sizes[:len(ys)], ys, color=colour, marker=marker, markersize=7, lw=2, label=label,
                markeredgecolor="white", markeredgewidth=0.8)
    base = [_number(v) for v in (summary.get("mean_mse") or ())]
    if base:  # the trivial baseline (a summary written before it has none)
        ax.plot(sizes[:len(base)], base, color=BASELINE_COLOUR, ls="--", lw=1.6, label=MEAN_LINE)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _size_ticks(ax, sizes)
    _plain_log_labels(ax.yaxis)
    ax.set_xlabel("training-set size N")
    ax.set_ylabel("test MSE")
    ax.grid(alpha=0.3, which="major")
    ax.grid(alpha=0.12, which="minor", axis="y")
    if title is None:
        seeds = summary.get("seeds", 1) or 1
        where = f"EMLP over {_words(group)}" if group else "EMLP"
        title = f"{task_title(summary.get('task', ''))}: {where}"
        if seeds > 1:
            title += f" (mean of {seeds} seeds)"
        if summary.get("status") == "stopped":
            title += " (stopped early)"
    ax.set_title(_words(title), fontsize=11)
    if models:
        fig.legend(loc="outside right upper", fontsize=9, frameon=False)
    else:
        ax.text(0.5, 0.5, "no models", ha="center", va="center", transform=ax.transAxes, color="gray")
    return fig


def _curve_rows(curves) -> list[dict]:
    """Curve rows from ``curves.csv`` (a DataFrame or its records) or from the result's rows (each with its
    ``"curve"``: flattened, the row's seed kept)."""
    if hasattr(curves, "to_dict"):
        curves = curves.to_dict("records")
    rows = []
    for row in curves:
        if "curve" in row:
            rows += [dict(c, seed=row.get("seed", c.get("seed", 0))) for c in row["curve"]]
        else:
            rows.append(row)
    return rows


def _floor(rows, decades: float = 2.0):
    """The bottom of a log MSE axis: ``decades`` below the lowest test MSE, or the lowest value when that is higher.
    A memorising model's train MSE can fall to 1e-12; drawn to the end, it would squash every test curve into the
    top of the panel, so it leaves the axes at the bottom instead."""
    test = [v for v in (_number(r["test_mse"]) for r in rows) if v > 0]
    every = test + [v for v in (_number(r["train_mse"]) for r in rows) if v > 0]
    if not test:
        return None
    return max(min(every), min(test) / 10 ** decades) / 1.25


def curves_figure(curves, group: str | None = None, title: str = "", logy: bool = True):
    """Train (dashed) and test (solid) MSE against the epoch, one panel per training-set size (one y axis for all,
    so that sizes compare), a colour per model; several seeds are averaged epoch by epoch.  On the log axis a train
    curve more than two decades below every test value runs out of the bottom (``_floor``).

    ``curves``: the rows of a run's ``curves.csv`` (keys model, size, epoch, train_mse, test_mse; a DataFrame or a
    list of dicts) or the result's rows with their ``"curve"``.  ``group`` names the EMLP in the legend."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    rows = _curve_rows(curves)
    sizes = sorted({int(r["size"]) for r in rows})
    names = _ordered(r["model"] for r in rows)
    styles = _styles(names)
    nrows = max(1, math.ceil(len(sizes) / 4))  # at most 4 panels a row, the rows as even as they go
    cols = max(1, math.ceil(len(sizes) / nrows))
    fig = Figure(figsize=(3.3 * cols + 1.6, 2.9 * nrows + 0.4), layout="constrained")
    axes = fig.subplots(nrows, cols, squeeze=False, sharey=True)
    for ax in axes.flat[len(sizes):]:
        ax.set_visible(False)
    short = False
    for ax, n in zip(axes.flat, sizes):
        for name in names:
            colour, marker = styles[name]
            mean: dict[int, list] = {}
            for r in rows:
                if r["model"] == name and int(r["size"]) == n:
                    mean.setdefault(int(r["epoch"]), []).append((_number(r["train_mse"]), _number(r["test_mse"])))
            if not mean:
                continue
            epochs = sorted(mean)
            train = [sum(v[0] for v in mean[e]) / len(mean[e]) for e in epochs]
            test = [sum(v[1] for v in mean[e]) / len(mean[e]) for e in epochs]
            few = len(epochs) <= 12  # a short curve shows its points: filled for test, hollow for train
            short = short or few
            kw = dict(marker=marker if few else None, markersize=6)
            ax.plot(epochs, test, color=colour, lw=1.8, **kw)
            ax.plot(epochs, train, color=colour, lw=1.4, linestyle="--", alpha=0.8, markerfacecolor="white", **kw)
        seen = sorted({int(r["epoch"]) for r in rows if int(r["size"]) == n})
        if len(seen) <= 6:  # few recorded epochs: exactly those as ticks (one epoch still gets a range)
            ax.set_xticks(seen)
            if len(seen) == 1:
                ax.set_xlim(seen[0] - 1, seen[0] + 1)
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if logy:
            ax.set_yscale("log")
            _plain_log_labels(ax.yaxis)
        ax.set_title(f"N = {n:,}", fontsize=10)
        ax.set_xlabel("epoch")
        ax.grid(alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel("MSE")
    floor = _floor(rows) if logy else None
    if floor is not None:
        axes[0, 0].set_ylim(bottom=floor)
    if not sizes:
        axes[0, 0].set_visible(True)
        axes[0, 0].text(0.5, 0.5, "no curves", ha="center", va="center", transform=axes[0, 0].transAxes,
                        color="gray")
    else:
        handles = [Line2D([], [], color=styles[m][0], marker=styles[m][1], lw=1.8, label=model_label(m, group))
                   for m in names]
        key = "o" if short else None
        handles += [Line2D([], [], color=KEY_COLOUR, lw=1.8, marker=key, label="test"),
                    Line2D([], [], color=KEY_COLOUR, lw=1.4, linestyle="--", marker=key, markerfacecolor="white",
                           label="train")]
        fig.legend(handles=handles, loc="outside right upper", fontsize=9, frameon=False)
    if title:
        fig.suptitle(_words(title), fontsize=11)
    return fig


#: the pendulum's state layout (``lab.data.pendulum``: q1, q2, p1, p2): the rollout drawn is the outer bob's
OUTER_BOB = slice(3, 6)


def rollout_figure(rows, group: str | None = None, title: str = ""):
    """The pendulum (thesis Figure 2.6): one held-out rollout of every model against the true one -- the outer bob
    from above (x, y) and from the side (x, z), and the angular momentum about z along it (a model that conserves it
    draws a flat line).  ``rows``: the ``emlp`` family's pendulum rows (``result.rows``, each with its
    ``"rollout"``); the largest size's first seed is drawn.  The truth is dashed black."""
    import numpy as np
    from matplotlib.figure import Figure

    rows = [r for r in rows if r.get("rollout") is not None]
    fig = Figure(figsize=(11.5, 3.6), layout="constrained")
    axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 1.5]})
    if not rows:
        axes[1].text(0.5, 0.5, "no pendulum rollouts", ha="center", va="center", transform=axes[1].transAxes,
                     color="gray")
        return fig
    n = max(int(r["size"]) for r in rows)
    seed = min(int(r["seed"]) for r in rows if int(r["size"]) == n)
    shown = [r for r in rows if int(r["size"]) == n and int(r["seed"]) == seed]
    times = np.asarray(shown[0]["times"], dtype=float)
    true = np.asarray(shown[0]["rollout"]["true"], dtype=float)[:, OUTER_BOB]
    styles = _styles(r["model"] for r in shown)

    def draw(q, lz, **kw):
        axes[0].plot(q[:, 0], q[:, 1], **kw)
        axes[1].plot(q[:, 0], q[:, 2], **kw)
        axes[2].plot(times, lz, **kw)

    # the truth underneath (grey, dashed), the models over it: a model on the true curve, or on its flat L_z, stays
    # visible; the start (the same held-out state for every model) is a black dot
    draw(true, shown[0]["rollout"]["true_lz"], color="0.45", ls="--", lw=2.2, label="true", zorder=1)
    for r in shown:
        q = np.asarray(r["rollout"]["pred"], dtype=float)[:, OUTER_BOB]
        name = r["model"]
        kind, net = name.split("-", 1)
        label = f"{kind.upper()} {model_label(net, group)}  (rollout error {r['rollout_error']:.2g})"
        draw(q, r["rollout"]["pred_lz"], color=styles[name][0], lw=1.5, alpha=0.9, label=label, zorder=3)
    axes[0].plot(true[0, 0], true[0, 1], "ko", ms=5, zorder=4, label="start")
    axes[1].plot(true[0, 0], true[0, 2], "ko", ms=5, zorder=4)
    for ax, (x, y, t) in zip(axes, (("x", "y", "outer bob from above"), ("x", "z", "outer bob from the side"),
                                    ("time (s)", "$L_z$", "angular momentum about z"))):
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        ax.set_title(t, fontsize=10)
        ax.grid(alpha=0.3)
    for ax in axes[:2]:
        ax.set_aspect("equal", adjustable="datalim")
    handles, labels = axes[2].get_legend_handles_labels()
    start = axes[0].get_legend_handles_labels()
    fig.legend(handles + start[0][-1:], labels + start[1][-1:], loc="outside right upper", fontsize=8,
               frameon=False)
    fig.suptitle(_words(title or f"double spring pendulum: one held-out {times[-1]:.0f} s rollout (N = {n:,} "
                                  f"trajectories, seed {seed})"), fontsize=11)
    return fig
