"""Symmetry discovery's matplotlib figures (notebook 09; issue 33, ``lab discover-lie``).

* ``flow_figure(X, y, fields)`` -- a symmetry as a vector field: the data coloured by its target with each
  generator's flow A x drawn at the points, and per generator the fitted model's Lie derivative along it at every
  point (a relative loss per point, log colour scale): near zero along a symmetry, of order one along an arbitrary
  direction;
* ``spectrum_figure(spectra, threshold)`` -- the symmetry loss's spectrum (relative to chance, log scale), one line
  per task, the threshold dashed and, optionally, the count where a gap should open;
* ``generators_figure(matrices)`` -- generators as heatmaps, each on its own symmetric colour scale (a generator is
  learned up to a scale and a sign), one panel each with its note;
* ``singular_values_figure(values, tol)`` -- the stacked constraint's singular values (relative, log scale) with the
  cut at ``tol``: those at or below it span the basis;
* ``loop_figure(test_mse)`` -- ``lab.discovery.loop.compare``'s relative test MSEs as bars (a model that was not
  built is named, with no bar).

Numbers are drawn as given; nothing is computed here but where to put them (a generator's arrows A x at the points).

>>> fig = spectrum_figure({"plane": [0.003, 0.9, 1.0, 1.1]}, 0.005)
>>> fig.axes[0].get_lines()[0].get_ydata().tolist()
[0.003, 0.9, 1.0, 1.1]
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.ticker import MaxNLocator

from ..errors import LabError
from ..plots.style import MODEL_COLOURS

#: the threshold and the cut, dashed
CUT_COLOUR = "#7f7f7f"
#: each spectrum's line, in order
SPECTRUM_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")
#: the loop's three models: the MLP red, EMLP over the true group green, over the learned one light green
TEST_COLOURS = {"mlp": MODEL_COLOURS["mlp"], "emlp_true": MODEL_COLOURS["emlp"], "emlp_learned": "#98df8a"}
TEST_LABELS = {"mlp": "MLP", "emlp_true": "EMLP (true group)", "emlp_learned": "EMLP (learned group)"}


class DiscoveryPlotError(LabError, ValueError):
    """Nothing to draw, or arrays of the wrong shapes."""


def flow_figure(X, y, fields: dict, title: str | None = None):
    """``X`` (n, 2) points, ``y`` (n,) targets, ``fields`` ``{name: (A (2 x 2), per-point losses (n,))}``: the data
    with every generator's flow A x, then one panel per generator with the points coloured by their loss."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    if X.ndim != 2 or X.shape[1] != 2 or len(X) == 0 or len(y) != len(X):
        raise DiscoveryPlotError("the flow figure draws points of the plane: X (n, 2) and y (n,)")
    if not fields:
        raise DiscoveryPlotError("no generator to draw")
    fig, axes = plt.subplots(1, 1 + len(fields), figsize=(4.2 * (1 + len(fields)), 4.0), squeeze=False,
                             layout="constrained")
    axes = axes[0]
    points = axes[0].scatter(X[:, 0], X[:, 1], c=y, s=8, cmap="viridis")
    fig.colorbar(points, ax=axes[0], shrink=0.8, label="target y")
    for (name, (A, _)), colour in zip(fields.items(), SPECTRUM_COLOURS):
        flow = X @ np.asarray(A, dtype=float).T
        axes[0].quiver(X[:, 0], X[:, 1], flow[:, 0], flow[:, 1], color=colour, angles="xy", width=0.004,
                       alpha=0.8, label=f"{name}: A x")
    axes[0].legend(fontsize=8, loc="upper right")
    axes[0].set_title("the data and the generators' flows", fontsize=10)
    values = [np.asarray(v, dtype=float).ravel() for _, v in fields.values()]
    for name, v in zip(fields, values):
        if len(v) != len(X):
            raise DiscoveryPlotError(f"{name}: {len(v)} losses for {len(X)} points")
    positive = np.concatenate([v[v > 0] for v in values])
    norm = LogNorm(vmin=positive.min(), vmax=positive.max()) if positive.size else None
    for ax, name, v in zip(axes[1:], fields, values):
        image = ax.scatter(X[:, 0], X[:, 1], c=v, s=8, cmap="magma", norm=norm)
        ax.set_title(f"{name}: the Lie derivative at each point", fontsize=10)
    fig.colorbar(image, ax=list(axes[1:]), shrink=0.8, label="relative symmetry loss (log)")
    for ax in axes:
        ax.set_aspect("equal")
        ax.set_xlabel("x₁")
        ax.set_ylabel("x₂")
    fig.suptitle(title or "A symmetry is a direction the fitted model does not change along", fontsize=11)
    return fig


def spectrum_figure(spectra: dict, threshold: float, mark: int | None = None, title: str | None = None):
    """``spectra`` ``{label: relative eigenvalues, ascending}`` on a log axis against their index (1, 2, ...), the
    ``threshold`` dashed, ``mark`` (a count: the gap expected between eigenvalue ``mark`` and ``mark + 1``)
    dotted."""
    if not spectra or not any(len(v) for v in spectra.values()):
        raise DiscoveryPlotError("no spectrum to draw")
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for (label, values), colour in zip(spectra.items(), SPECTRUM_COLOURS):
        values = np.asarray(values, dtype=float)
        ax.plot(np.arange(1, len(values) + 1), values, "o-", color=colour, ms=4, lw=1.5, label=label)
    ax.axhline(threshold, color=CUT_COLOUR, ls="--", lw=1.2, label=f"threshold {threshold:g}: kept below")
    if mark is not None:
        ax.axvline(mark + 0.5, color="#333333", ls=":", lw=1.2, label=f"the gap expected after {mark}")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("eigenvalue (smallest first)")
    ax.set_ylabel("symmetry loss / an arbitrary direction's")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(title or "The symmetry loss's spectrum: a symmetry is an eigenvalue far below the rest", fontsize=10)
    fig.tight_layout()
    return fig


def generators_figure(matrices: dict, notes: dict | None = None, title: str | None = None):
    """``matrices`` ``{label: matrix}`` as heatmaps, each on its own symmetric colour scale (-max|.| to max|.|),
    with the entries written in; ``notes`` ``{label: text}`` under the titles."""
    if not matrices:
        raise DiscoveryPlotError("no generator to draw")
    notes = notes or {}
    fig, axes = plt.subplots(1, len(matrices), figsize=(3.2 * len(matrices) + 0.5, 3.6), squeeze=False,
                             layout="constrained")
    for ax, (label, M) in zip(axes[0], matrices.items()):
        M = np.atleast_2d(np.asarray(M, dtype=float))
        top = float(np.abs(M).max()) or 1.0
        ax.imshow(M, cmap="RdBu_r", vmin=-top, vmax=top)
        if M.size <= 16:
            for (i, j), v in np.ndenumerate(M):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=9,
                        color="white" if abs(v) > 0.6 * top else "black")
        ax.set_title(label + (f"\n{notes[label]}" if label in notes else ""), fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(title or "Generators (each on its own scale: learned up to a scale and a sign)", fontsize=10)
    return fig


def singular_values_figure(values, tol: float, title: str | None = None):
    """The relative singular values (descending) against their index on a log axis, those at or below ``tol`` (the
    basis) filled, the rest open, the cut dashed; exact zeros cannot be drawn on the log axis and are counted in the
    legend."""
    values = np.asarray(values, dtype=float).ravel()
    if values.size == 0:
        raise DiscoveryPlotError("no singular values to draw")
    index = np.arange(1, len(values) + 1)
    kept = values <= tol
    fig, ax = plt.subplots(figsize=(6.5, 4))
    zeros = int(np.sum(values == 0))
    ax.plot(index[~kept], values[~kept], "o", mfc="white", color="#1f77b4", label="constraints (cut)")
    ax.plot(index[kept], values[kept], "o", color="#2ca02c",
            label=f"the basis: {int(kept.sum())} at or below the cut" + (f" ({zeros} exactly 0)" if zeros else ""))
    ax.axhline(tol, color=CUT_COLOUR, ls="--", lw=1.2, label=f"cut: tol = {tol:g} × the largest")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("singular value (largest first)")
    ax.set_ylabel("relative to the largest")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title(title or "The tolerant solve: the gap at the cut is what makes the rank mean something",
                 fontsize=10)
    fig.tight_layout()
    return fig


def loop_figure(test_mse: dict, title: str | None = None):
    """Bars of ``test_mse`` ``{"mlp", "emlp_true", "emlp_learned"}`` (relative test MSEs; a None is named with no
    bar; ``"why"``, when given, in the title)."""
    keys = [k for k in TEST_LABELS if k in test_mse]
    if not keys:
        raise DiscoveryPlotError("no test MSE to draw")
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for i, k in enumerate(keys):
        v = test_mse[k]
        if v is None:
            ax.text(i, 0, "not built", ha="center", va="bottom", fontsize=8, color=CUT_COLOUR)
        else:
            ax.bar(i, v, color=TEST_COLOURS[k], width=0.6)
            ax.text(i, v, f"{v:.3g}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(keys)), [TEST_LABELS[k] for k in keys])
    ax.set_ylabel("test MSE / mean squared target")
    ax.grid(alpha=0.3, axis="y")
    why = test_mse.get("why")
    ax.set_title((title or "The same data, trained alike") + (f"\n{why}" if why else ""), fontsize=10)
    fig.tight_layout()
    return fig
