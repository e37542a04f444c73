"""The compression bounds' matplotlib figures (notebook 08; thesis chapter 5, ``lab bound``).

* ``occam_figure(rows, guess_error)`` -- Occam's razor as a number: Catoni's bound against the description length
  l(h) in bits (top axis: KB), one line per training error, the error of guessing dashed;
* ``projector_figure(grams)`` -- P^T P of random subspaces, one panel per projector kind: close to the identity;
* ``quantization_figure(w, levels, initial)`` -- the histogram of the subspace weights w with the quantization
  levels (solid) and where they started (dotted);
* ``dims_figure(summary)`` -- thesis Figure 5.1b for one run: training and test error, compressed size (KB) and the
  bound against the subspace dimension d, the d the bound chooses marked;
* ``bound_curves_figure(summaries)`` -- thesis Figure 5.3: the bound against d, one panel per data set, one line
  per model;
* ``best_bounds_figure(summaries)`` -- the best bound of each (data, model) as bars grouped by data set, the test
  error at that d as a tick, the guessing error dashed (thesis Figures 5.3 and A.5 in one).

The inputs are ``lab bound --json`` summaries (``lab.bounds.family.summary``) and plain rows: numbers are drawn
as given, nothing is computed here but where to put them.  Every model keeps its colour (``style.BOUND_MODEL_COLOURS``,
shared with the dashboard's pane): the MLP red, the CNN blue, the equivariant GCNN green.

>>> fig = occam_figure([{"train_error": 0.0, "bits": b, "bound": v} for b, v in ((10, 0.03), (1000, 0.4))], 0.9)
>>> fig.axes[0].get_lines()[0].get_ydata().tolist()
[0.03, 0.4]
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import MaxNLocator

from ..errors import LabError
from ..text import count
from ..plots.style import BOUND_MODEL_COLOURS, BOUND_MODEL_LABELS

#: bits in a KB, as ``lab bound`` prints sizes
BITS_PER_KB = 8192
#: training errors of ``occam_figure``, smallest to largest: dark to light
ERROR_SHADES = ("#08306b", "#2171b5", "#6baed6", "#9ecae1", "#c6dbef")
GUESS_COLOUR = "#7f7f7f"
#: the quantization levels on the weights' histogram
LEVEL_COLOUR = "#ff7f0e"


class BoundsPlotError(LabError, ValueError):
    """Nothing to draw, or not the rows and summaries of ``lab bound``."""


def model_label(name: str) -> str:
    return BOUND_MODEL_LABELS.get(name, name)


def data_label(summary: dict) -> str:
    """A data set in words: ``rotated digits (c4)``."""
    words = str(summary.get("data", "?")).replace("-", " ")
    return f"{words} ({summary['rotation']})" if summary.get("rotation") else words


def _guess_line(ax, guess_error, label=True):
    if guess_error is not None:
        ax.axhline(guess_error, color=GUESS_COLOUR, ls="--", lw=1.2,
                   label=f"guessing ({guess_error:g}): vacuous above" if label else None)


def occam_figure(rows, guess_error=None, n=None, title: str | None = None):
    """Bound against description length (bits, log axis; KB on top), one line per ``train_error`` of ``rows``
    (dicts with ``train_error``, ``bits`` and ``bound``)."""
    rows = list(rows)
    if not rows:
        raise BoundsPlotError("no (train error, bits, bound) rows to draw")
    errors = sorted({float(r["train_error"]) for r in rows})
    fig, ax = plt.subplots(figsize=(7, 4.3))
    for k, e in enumerate(errors):
        mine = sorted((r for r in rows if float(r["train_error"]) == e), key=lambda r: r["bits"])
        shade = ERROR_SHADES[min(k * (len(ERROR_SHADES) - 1) // max(len(errors) - 1, 1), len(ERROR_SHADES) - 1)]
        ax.plot([r["bits"] for r in mine], [r["bound"] for r in mine], "-", color=shade, lw=2,
                label=f"training error {e:g}")
    _guess_line(ax, guess_error)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("description length l(h) (bits)")
    ax.set_ylabel("bound on the test error (95 %)")
    top = ax.secondary_xaxis("top", functions=(lambda b: np.asarray(b) / BITS_PER_KB,
                                               lambda kb: np.asarray(kb) * BITS_PER_KB))
    top.set_xlabel("KB")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(title or "Occam's razor as a number: fewer bits, tighter bound"
                 + (f" (n = {count(n, 'training point')})" if n else ""), fontsize=10)
    fig.tight_layout()
    return fig


def projector_figure(grams: dict, title: str | None = None):
    """Each projector's P^T P (``{kind: d x d matrix}``) on one colour scale from -1 to 1: the identity is a red
    diagonal on white."""
    if not grams:
        raise BoundsPlotError("no projector to draw")
    fig, axes = plt.subplots(1, len(grams), figsize=(3.3 * len(grams) + 1, 3.4), squeeze=False, layout="constrained")
    image = None
    for ax, (kind, gram) in zip(axes[0], grams.items()):
        gram = np.asarray(gram, dtype=float)
        image = ax.imshow(gram, cmap="RdBu_r", vmin=-1, vmax=1)
        ax.set_title(f"{kind}: PᵀP ({gram.shape[0]} × {gram.shape[1]})", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.colorbar(image, ax=list(axes[0]), shrink=0.8)
    fig.suptitle(title or "Random subspaces are nearly orthonormal: PᵀP ≈ I", fontsize=10)
    return fig


def quantization_figure(w, levels, initial=None, bins: int = 50, title: str | None = None):
    """The histogram of ``w`` with the quantization ``levels`` as solid lines and the ``initial`` ones dotted."""
    w = np.asarray(w, dtype=float).ravel()
    if w.size == 0:
        raise BoundsPlotError("no weights to draw")
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.hist(w, bins=bins, color="#bdbdbd", edgecolor="white", label=f"w ({w.size} weights)")
    for i, c in enumerate(np.asarray(initial if initial is not None else [], dtype=float)):
        ax.axvline(c, color="#333333", ls=":", lw=1.2, zorder=3, label="levels at the start" if i == 0 else None)
    for i, c in enumerate(np.asarray(levels, dtype=float)):
        ax.axvline(c, color=LEVEL_COLOUR, ls="-", lw=2, label="levels" if i == 0 else None)
    ax.set_xlabel("subspace weight")
    ax.set_ylabel("weights")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(title or "The subspace weights and their quantization levels", fontsize=10)
    fig.tight_layout()
    return fig


def _d_axis(ax, dims):
    if min(dims) > 0:
        ax.set_xscale("log", base=2)
    ax.set_xticks(dims, [str(d) for d in dims])
    ax.minorticks_off()
    ax.set_xlabel("subspace dimension d")


def dims_figure(summary: dict, title: str | None = None):
    """Thesis Figure 5.1b from one run's summary: errors (training of the quantized model solid, test dashed, before
    quantization dotted), compressed size (the whole description solid, the arithmetic-coded weights dashed) and
    the bound, against d; the d of the best bound starred."""
    rows = (summary or {}).get("dims") or []
    if not rows:
        raise BoundsPlotError("no subspace dimension to draw (the run computed no bound)")
    colour = BOUND_MODEL_COLOURS.get(summary.get("model"), "#555555")
    d = [r["d"] for r in rows]
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(12, 3.9))
    ax1.plot(d, [r["train_error"] for r in rows], "o-", color=colour, label="training (quantized)")
    ax1.plot(d, [r["test_error"] for r in rows], "s--", color=colour, alpha=0.7, label="test (quantized)")
    ax1.plot(d, [r["train_error_float"] for r in rows], ":", color=colour, label="training (before quantizing)")
    ax1.set_ylabel("error")
    ax1.set_ylim(0, None)
    ax1.set_title("error", fontsize=10)
    ax2.plot(d, [r["compressed_bits"] / BITS_PER_KB for r in rows], "o-", color=colour, label="whole description")
    ax2.plot(d, [r["coded_bits"] / BITS_PER_KB for r in rows], "s--", color=colour, alpha=0.7,
             label="coded weights")
    ax2.set_ylabel("compressed size (KB)")
    ax2.set_ylim(0, None)
    ax2.set_title("compressed size", fontsize=10)
    ax3.plot(d, [r["bound"] for r in rows], "o-", color=colour, label="bound")
    if summary.get("best_dim") is not None:
        ax3.plot([summary["best_dim"]], [summary["best_bound"]], "*", color="black", ms=14, zorder=3,
                 label=f"best: {summary['best_bound']:.3f} at d = {summary['best_dim']}")
    _guess_line(ax3, summary.get("guess_error"))
    ax3.set_ylim(0, 1.02)
    ax3.set_ylabel("bound on the test error (95 %)")
    ax3.set_title("bound", fontsize=10)
    for ax in (ax1, ax2, ax3):
        _d_axis(ax, d)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title or f"{model_label(summary.get('model', '?'))} ({summary.get('parameters')} parameters) on "
                          f"{data_label(summary)}: the bound chooses d", fontsize=11)
    fig.tight_layout()
    return fig


def _groups(summaries) -> dict:
    """Summaries grouped by data set, in order of first appearance."""
    groups = {}
    for s in summaries:
        if s and s.get("dims"):
            groups.setdefault(data_label(s), []).append(s)
    if not groups:
        raise BoundsPlotError("no run with a bound to draw")
    return groups


def bound_curves_figure(summaries, title: str | None = None):
    """Thesis Figure 5.3: the bound against d, one panel per data set, one line per model."""
    groups = _groups(summaries)
    fig, axes = plt.subplots(1, len(groups), figsize=(3.6 * len(groups) + 0.6, 3.8), squeeze=False, sharey=True)
    for ax, (data, runs) in zip(axes[0], groups.items()):
        for s in runs:
            ax.plot([r["d"] for r in s["dims"]], [r["bound"] for r in s["dims"]], "o-",
                    color=BOUND_MODEL_COLOURS.get(s["model"], "#555555"), label=model_label(s["model"]))
        _guess_line(ax, runs[0].get("guess_error"), label=ax is axes[0][0])
        _d_axis(ax, sorted({r["d"] for s in runs for r in s["dims"]}))
        ax.set_ylim(0, 1.02)
        ax.set_title(data, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower left")
    axes[0][0].set_ylabel("bound on the test error (95 %)")
    fig.suptitle(title or "The bound against the subspace dimension: structure in the data, structure in the model",
                 fontsize=11)
    fig.tight_layout()
    return fig


def best_bounds_figure(summaries, title: str | None = None):
    """The best bound of each run as a bar, grouped by data set and coloured by model, its value written on it; the
    test error at the chosen d as a black tick; the guessing error dashed."""
    groups = _groups(summaries)
    fig, ax = plt.subplots(figsize=(max(6.5, 1.9 * len(groups) + 1.5), 4.3))
    width, seen, ticks = 0.38, set(), []
    for g, (data, runs) in enumerate(groups.items()):
        offsets = (np.arange(len(runs)) - (len(runs) - 1) / 2) * width
        for s, dx in zip(runs, offsets):
            model = s["model"]
            ax.bar(g + dx, s["best_bound"], width * 0.92, color=BOUND_MODEL_COLOURS.get(model, "#555555"),
                   label=model_label(model) if model not in seen else None)
            seen.add(model)
            ax.text(g + dx, s["best_bound"] + 0.01, f"{s['best_bound']:.2f}", ha="center", va="bottom",
                    fontsize=8)
            if s.get("best_test_error") is not None:
                ax.plot([g + dx - width * 0.4, g + dx + width * 0.4], [s["best_test_error"]] * 2, "-",
                        color="black", lw=2, label="test error at that d" if "test" not in seen else None)
                seen.add("test")
        ticks.append(data)
    _guess_line(ax, next(iter(groups.values()))[0].get("guess_error"))
    ax.set_xticks(range(len(ticks)), ticks)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("best bound on the test error (95 %)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8, loc="upper left", ncol=2)
    ax.set_title(title or "Best bound per data set and model (over the subspace dimensions searched)", fontsize=10)
    fig.tight_layout()
    return fig
