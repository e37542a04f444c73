"""Static sharing-discovery figures (matplotlib) for notebooks: the same views as the dashboard."""
from __future__ import annotations

import numpy as np

from .partition import canonical
from .partition import block_order as order


def sharing_figure(A: np.ndarray, gt: np.ndarray, labels: np.ndarray, shape: tuple[int, int], history=None,
                   title: str = ""):
    """The relaxed A (ordered by the true blocks), the snapped 0/1 matrix of ``labels`` in the same rows and
    columns (the matrix the partition distance is computed from: pass the result's ``labels``, merged when the
    merge pass ran), A_gt, the implied weight pattern, and the learning curves.  The snapped panel's title states
    the partition distance of the very matrix it shows (``read_snapshot``), and W is coloured by that partition."""
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure

    from .partition import read_snapshot, snapped_matrix
    from ..plots.palette import PALETTE

    cols = 5 if history else 4
    fig = Figure(figsize=(3.3 * cols, 3.1), layout="constrained")
    axes = fig.subplots(1, cols)
    rows, columns = order(A, gt)
    axes[0].imshow(A[np.ix_(rows, columns)], cmap="Blues", vmin=0, vmax=1)
    axes[0].set_title("A relaxed (softmax)", fontsize=10)
    reading = read_snapshot(A, gt, snapped_matrix(A, labels))
    axes[1].imshow(reading.snapped[np.ix_(rows, columns)], cmap="Blues", vmin=0, vmax=1)
    axes[1].set_title(f"A snapped: partition distance {reading.distance}", fontsize=10)
    G = np.zeros((gt.size, gt.max() + 1))
    G[np.arange(gt.size), gt] = 1
    axes[2].imshow(G[rows], cmap="Blues", vmin=0, vmax=1)
    axes[2].set_title("A_gt", fontsize=10)
    for ax in axes[:3]:
        ax.set_xlabel("shared parameter")
        ax.set_ylabel("weight entry")
    lab = canonical(reading.labels).reshape(shape)
    n = int(lab.max()) + 1
    axes[3].imshow(lab, cmap=ListedColormap(PALETTE[:max(n, 1)]), vmin=-0.5, vmax=n - 0.5)
    axes[3].set_title(f"implied W: {n} shared parameters", fontsize=10)
    axes[3].set_xticks(range(shape[1]))
    axes[3].set_yticks(range(shape[0]))
    if history:
        steps = [h["step"] for h in history]
        ax = axes[4]
        for key, colour in (("upper", "#d62728"), ("lower", "#1f77b4"), ("partition_distance", "#ff7f0e")):
            ax.plot(steps, [h[key] for h in history], color=colour, label=key.replace("_", " "))
        ax.set_xlabel("outer step")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def gap_figure(table):
    """MSE gap against the poster's bound as the split r and |D| vary."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5, 3.4), layout="constrained")
    ax = fig.subplots()
    for (n, grp), colour in zip(table.groupby("samples"), ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")):
        ax.plot(grp.split, grp.mse_gap, "o-", color=colour, label=f"gap, |D| = {n}")
        ax.plot(grp.split, grp.bound, "--", color=colour, alpha=0.7, label=f"bound, |D| = {n}")
    ax.set_xlabel("split r = |T| / |D|")
    ax.set_ylabel("MSE(θ̂_val) − MSE(θ̂_gt)")
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return fig


def msr_figure(results, n_out: int | None = None, n_in: int | None = None):
    """max_k |U| pictures (the report's Fig. 2) and |U| histograms (Fig. 3), one column per setting.

    ``results``: {name: result with ``.U`` and ``.test_loss``}, or a run of the msr experiment (its learned U
    per setting and the last trial's test losses; the layer shape comes with it)."""
    from types import SimpleNamespace

    from matplotlib.figure import Figure

    if hasattr(results, "rows"):  # lab.sharing.family_msr.MSRRunResult
        n_out, n_in = results.shape
        losses = results.rows[-1]
        results = {name: SimpleNamespace(U=U, test_loss=losses[name]) for name, U in results.U.items()}

    fig = Figure(figsize=(3.6 * len(results), 5.2), layout="constrained")
    axes = fig.subplots(2, len(results), squeeze=False)
    for k, (name, res) in enumerate(results.items()):
        pic = np.abs(res.U).reshape(n_out, n_in, -1).max(-1)
        axes[0, k].imshow(pic, cmap="viridis")
        axes[0, k].set_title(f"{name}\ntest loss {res.test_loss:.3f}", fontsize=9)
        axes[0, k].set_xlabel("input")
        axes[0, k].set_ylabel("output")
        axes[1, k].hist(np.abs(res.U).ravel(), bins=40, color="#1f77b4")
        axes[1, k].set_xlabel("|U|")
        axes[1, k].set_yscale("log")
    return fig
