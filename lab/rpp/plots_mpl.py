"""Static figure of the ``rpp`` family (matplotlib) for notebooks and PNG exports: the thesis's Figure 3.2 (Finzi,
chapter 3: test MSE of MLP, EMLP and RPP-EMLP over independent trials, a box plot per model, one panel per level of
symmetry).  Draws what it is given -- a list of ``lab rpp`` summaries (``FAMILY.summary(result)`` or a saved run's
``meta["summary"]``), one per regime; no training, no HoloViews, Bokeh or Panel.

The models keep the lab's colours (``style.MODEL_COLOURS``): MLP red, EMLP green, RPP-EMLP orange (the RPP
strategy's colour in ``lab dynamics``).

>>> s = {"task": "inertia", "symmetry": "exact", "group": "O(3)", "target_symmetry_error": 1e-16,
...      "models": {"mlp": {"test_mse": [9.0, 5.0]}, "emlp": {"test_mse": [1.0, 2.0]}, "rpp": {"test_mse": [1.5]}}}
>>> fig = regimes_figure([s])
>>> fig.axes[0].get_yscale(), [t.get_text() for t in fig.axes[0].get_xticklabels()]
('log', ['MLP', 'EMLP', 'RPP-EMLP'])
"""
from __future__ import annotations

import math
import statistics

from ..errors import LabError
from ..data.titles import task_title
from ..plots.mpl_text import plain_log_labels as _plain_log_labels
from ..plots.mpl_text import words as _words
from ..plots.style import BASELINE_COLOUR, OTHER_COLOURS
from ..plots.style import MODEL_COLOURS, MODEL_LABELS

#: the models in the thesis's order (Figure 3.2: MLP, EMLP, RPP-EMLP); any others follow as given
ORDER = ("mlp", "emlp", "rpp")
#: the levels of symmetry (``lab.rpp.tasks``), in the panels' words
REGIME_TITLES = {"exact": "exact symmetry", "approximate": "approximate symmetry",
                 "misspecified": "misspecified symmetry"}
#: approximate inertia's two modified inertias (``--variant``), in the panels' words
VARIANT_TITLES = {"thesis": "modified inertia: the thesis's formula", "original": "modified inertia: the authors' code"}
SEED_COLOUR = "#222222"
#: what the key calls the trivial baseline's dashed line across a panel (its seeds' median), per task
BASELINE_WORDS = {"pendulum": "predicting no motion", "": "predicting the training targets' mean"}


class RPPPlotError(LabError, ValueError):
    """Input the Figure 3.2 plot cannot draw: no summaries, or a summary that is not one of ``lab rpp``."""


def _check(summaries) -> list[dict]:
    if isinstance(summaries, dict):  # one summary alone: a panel of its own
        summaries = [summaries]
    try:
        summaries = list(summaries)
    except TypeError:
        raise RPPPlotError(f"regimes_figure takes a list of lab rpp summaries, not {type(summaries).__name__}")
    if not summaries:
        raise RPPPlotError("no summaries to draw: pass one lab rpp summary per regime "
                           "(FAMILY.summary(FAMILY.run(config)))")
    for k, s in enumerate(summaries):
        if not isinstance(s, dict) or "symmetry" not in s or not isinstance(s.get("models"), dict):
            what = "an emlp summary (it has sizes)" if isinstance(s, dict) and "sizes" in s else \
                f"keys {sorted(s)[:6]}" if isinstance(s, dict) else type(s).__name__
            raise RPPPlotError(f"summary {k} is not a lab rpp summary ({what}): it needs 'symmetry' and "
                               f"'models' (FAMILY.summary of lab.rpp.family)")
    return summaries


def _values(values) -> list[float]:
    """A model's test MSEs that a log axis can show: finite and above 0 (a missing seed, a NaN: left out)."""
    out = []
    for x in values or []:
        try:
            x = float(x)
        except (TypeError, ValueError):
            continue
        if math.isfinite(x) and x > 0:
            out.append(x)
    return out


def baseline_of(values) -> float | None:
    """The baseline line's height: the median of the seeds' baseline MSEs a log axis can show (``_values``; None:
    none).

    >>> baseline_of([4.0, None, 1.0, float("nan"), 2.0]), baseline_of([None]), baseline_of(None)
    (2.0, None, None)
    """
    v = _values(values)
    return float(statistics.median(v)) if v else None


def summary_baseline(summary: dict) -> float | None:
    """``baseline_of`` a ``lab rpp`` summary's trivial baseline: the pendulum's ``still_mse`` (predicting no
    motion), the other tasks' ``mean_mse`` (predicting the training targets' mean); None in a summary without it."""
    base = summary.get("still_mse") if summary.get("task") == "pendulum" else summary.get("mean_mse")
    return baseline_of(base if isinstance(base, list) else None)


def _ordered(models) -> list[str]:
    return [m for m in ORDER if m in models] + [m for m in models if m not in ORDER]


def panel_title(summary: dict) -> str:
    """The regime in words (approximate inertia: and its variant), the models' group and the targets' own
    equivariance error under it."""
    sym = summary.get("symmetry", "")
    title = REGIME_TITLES.get(sym, _words(sym))
    if summary.get("variant"):  # approximate inertia: which modified inertia (lab.rpp.tasks)
        title += "\n" + VARIANT_TITLES.get(summary["variant"], _words(summary["variant"]))
    group = summary.get("group")
    tse = summary.get("target_symmetry_error")
    words = f"models over {_words(group)}" if group else ""
    if tse is not None and math.isfinite(float(tse)):
        words += ("; " if words else "") + f"targets' error {float(tse):.2g}"
    return f"{title}\n{words}" if words else title


def regimes_figure(summaries, title: str | None = None, seeds: bool = True):
    """Figure 3.2 of the thesis for one task: a panel per summary (one regime each, in the order given), a box of
    the test MSE over seeds per model (MLP, EMLP, RPP-EMLP, the lab's colours), each seed a point over its box, log
    y axis (each panel its own: the regimes' errors differ by orders of magnitude).  A panel's title names its
    regime, the models' group and the targets' own equivariance error under that group (0: the data have the
    models' symmetry).  ``seeds``: draw the seeds' points.  Raises ``RPPPlotError`` (a ``LabError``) for no
    summaries or one that is not of ``lab rpp``."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    summaries = _check(summaries)
    n = len(summaries)
    fig = Figure(figsize=(3.4 * n + 0.6, 4.3), layout="constrained")
    axes = fig.subplots(1, n, squeeze=False)[0]
    k_other = 0
    colours = {}
    base_words = None
    for ax, s in zip(axes, summaries):
        names = _ordered(s["models"])
        for name in names:
            if name not in colours:
                colours[name] = MODEL_COLOURS.get(name) or OTHER_COLOURS[k_other % len(OTHER_COLOURS)]
                k_other += name not in MODEL_COLOURS
        data = [_values(s["models"][m].get("test_mse")) for m in names]
        positions = list(range(1, len(names) + 1))
        drawn = [(p, d, m) for p, d, m in zip(positions, data, names) if d]
        if drawn:
            bp = ax.boxplot([d for _, d, _ in drawn], positions=[p for p, _, _ in drawn], widths=0.55,
                            patch_artist=True, showfliers=False, whis=(0, 100),
                            medianprops=dict(color="black", lw=1.8), whiskerprops=dict(lw=1.2),
                            capprops=dict(lw=1.2))
            for line in bp["medians"]:
                line.set_gid("median")
            for box, (_, _, m) in zip(bp["boxes"], drawn):
                box.set_facecolor(colours[m])
                box.set_alpha(0.55)
                box.set_edgecolor(colours[m])
            if seeds:
                for p, d, m in drawn:  # the seeds side by side over the box (a fixed spread, no randomness)
                    spread = [0.0] if len(d) == 1 else [-0.14 + 0.28 * i / (len(d) - 1) for i in range(len(d))]
                    ax.scatter([p + dx for dx in spread], d, s=22, color=SEED_COLOUR, zorder=3,
                               edgecolors="white", linewidths=0.6)
        baseline = summary_baseline(s)
        if drawn and baseline is not None:  # the trivial baseline: a dashed line at the seeds' median
            ax.axhline(baseline, color=BASELINE_COLOUR, ls="--", lw=1.4, gid="baseline")
            base_words = BASELINE_WORDS.get(s.get("task"), BASELINE_WORDS[""])
        for p, d in zip(positions, data):
            if not d:
                ax.text(p, 0.5, "no runs", ha="center", va="center", rotation=90, color="gray",
                        transform=ax.get_xaxis_transform())
        ax.set_xticks(positions)
        ax.set_xticklabels([MODEL_LABELS.get(m, _words(m)) for m in names])
        ax.set_xlim(0.4, len(names) + 0.6)
        if drawn:
            ax.set_yscale("log")
            _plain_log_labels(ax.yaxis)
            lo = min(min(d) for _, d, _ in drawn)
            hi = max(max(d) for _, d, _ in drawn)
            if baseline is not None:
                lo, hi = min(lo, baseline), max(hi, baseline)
            if hi / lo < 3:  # a narrow range still spans a readable stretch of the log axis
                mid = math.sqrt(lo * hi)
                ax.set_ylim(mid / 2, mid * 2)
        else:
            ax.set_yscale("log")
        ax.set_title(panel_title(s), fontsize=10)
        ax.grid(alpha=0.3, axis="y", which="major")
        ax.grid(alpha=0.12, axis="y", which="minor")
        ax.tick_params(axis="x", labelsize=9)
    axes[0].set_ylabel("test MSE (log scale)")
    if title is None:
        task = task_title(summaries[0].get("task", ""))
        counts = sorted({len(_values(v.get("test_mse"))) for s in summaries for v in s["models"].values()} - {0})
        over = f"{counts[0]} seeds" if len(counts) == 1 else "seeds"
        title = f"{task}: test MSE over {over} by level of symmetry (lower is better)"
    fig.suptitle(_words(title), fontsize=11)
    key = "box: middle half of the seeds; line: median; whiskers: lowest to highest; each panel has its own y scale"
    handles = [Line2D([], [], marker="s", ls="", markersize=9, color=colours[m], alpha=0.7,
                      label=MODEL_LABELS.get(m, _words(m))) for m in colours]
    if seeds:
        handles.append(Line2D([], [], marker="o", ls="", markersize=5, color=SEED_COLOUR, label="one seed"))
    if base_words:
        handles.append(Line2D([], [], ls="--", lw=1.4, color=BASELINE_COLOUR, label=base_words))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=9, frameon=False,
               title=key, title_fontsize=8.5)
    return fig
