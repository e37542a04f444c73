"""The ensembles' matplotlib figures (notebook 07; the poster's experiment, ``lab ensembles``).

* ``sizes_figure(summaries)`` -- the equivariance error (and the orbit-same-prediction) against the ensemble size M,
  log-log, one line per run in its setting's colour (``SETTING_COLOURS``), with a dashed 1/sqrt(M) guide from each
  run's M = 1: setting (i) follows it, a setting whose ensemble mean is not invariant bends away (levels off);
* ``steps_figure(summary_or_records, sizes)`` -- the error against the training step for a few ensemble sizes (light
  to dark: small to large M);
* ``orbit_figure(example)`` -- one held-out digit in its four rotations, and under each the probability the whole
  ensemble and a single member give its class (an invariant prediction gives four equal bars).

Numbers are drawn as given (the runs' summaries and records): nothing is computed here but where to put them.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..errors import LabError
from ..plots.style import SETTING_COLOURS, SIZE_SHADES

METRIC_WORDS = {"equivariance_error": "equivariance error  mean_g ‖φ̄(gx) − φ̄(x)‖",
                "divergence": "symmetric KL of p(x) and p(gx)",
                "orbit_same_prediction": "orbit inputs with x's class (of 4)"}


class EnsemblePlotError(LabError, ValueError):
    """Nothing to draw, or not the records of ``lab ensembles``."""


def _label(s: dict) -> str:
    extra = [] if s.get("augment", "sampled") == "sampled" else [f"augment {s['augment']}"]
    return " · ".join([s.get("setting", "?"), *extra])


def sizes_figure(summaries, inputs: str = "test", guide: bool = True, title: str | None = None):
    """Error and orbit-same-prediction against M for each run summary (``lab ensembles --json`` objects);
    ``inputs="noise"`` draws their out-of-distribution curves."""
    runs = [s if inputs == "test" else {**s["noise"], "setting": s["setting"], "augment": s.get("augment")}
            for s in summaries if s and (inputs == "test" or s.get("noise"))]
    if not runs or not all(r.get("sizes") for r in runs):
        raise EnsemblePlotError("no run with ensemble sizes to draw")
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for r in runs:
        colour = SETTING_COLOURS.get(r["setting"], "#555555")
        m = np.asarray(r["sizes"], dtype=float)
        e = np.asarray(r["equivariance_error"], dtype=float)
        ax.plot(m, e, "o-", color=colour, label=f"{_label(r)} (slope {r['slope']:.2f})")
        if guide:
            ax.plot(m, e[0] / np.sqrt(m), ":", color=colour, alpha=0.6, lw=1)
        ax2.plot(m, r["orbit_same_prediction"], "o-", color=colour, label=_label(r))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("ensemble size M")
    ax.set_ylabel(METRIC_WORDS["equivariance_error"])
    ax.set_title("error against M (dotted: 1/√M from M = 1)")
    ax2.set_xscale("log", base=2)
    ax2.set_ylim(1, 4.05)
    ax2.set_xlabel("ensemble size M")
    ax2.set_ylabel(METRIC_WORDS["orbit_same_prediction"])
    ax2.set_title("orbit-same prediction (4 = invariant)")
    for a in (ax, ax2):
        a.grid(alpha=0.3, which="both")
        a.set_xticks(runs[0]["sizes"], [str(v) for v in runs[0]["sizes"]])
    ax.legend(fontsize=8, loc="lower left")
    fig.suptitle(title or f"Ensembles under augmentation ({'held-out digits' if inputs == 'test' else 'noise images'})")
    fig.tight_layout()
    return fig


def steps_figure(records, sizes=None, inputs: str = "test", metric: str = "equivariance_error", title: str = ""):
    """``metric`` against the training step for ``sizes`` (default: the smallest, a middle and the largest M) from a
    run's records (rows with step, inputs, size and the metric; a ``SavedEnsembles.records`` frame works too)."""
    rows = records.to_dict("records") if hasattr(records, "to_dict") else list(records)
    rows = [r for r in rows if r.get("inputs") == inputs]
    if not rows:
        raise EnsemblePlotError(f"no {inputs} records to draw")
    if metric not in METRIC_WORDS:
        raise EnsemblePlotError(f"unknown metric {metric!r}: choose one of {', '.join(METRIC_WORDS)}")
    all_sizes = sorted({int(r["size"]) for r in rows})
    if sizes is None:
        sizes = sorted({all_sizes[0], all_sizes[len(all_sizes) // 2], all_sizes[-1]})
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for k, m in enumerate(sizes):
        mine = sorted((r for r in rows if int(r["size"]) == m), key=lambda r: r["step"])
        shade = SIZE_SHADES[min(k * (len(SIZE_SHADES) - 1) // max(len(sizes) - 1, 1), len(SIZE_SHADES) - 1)]
        ax.plot([r["step"] for r in mine], [r[metric] for r in mine], "o-", color=shade, label=f"M = {m}")
    ax.set_xlabel("training step")
    ax.set_ylabel(METRIC_WORDS[metric])
    if metric != "orbit_same_prediction":
        ax.set_yscale("log")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    ax.set_title(title or "through training")
    fig.tight_layout()
    return fig


def orbit_figure(example: dict, classes=None, title: str = ""):
    """One digit in its four rotations and, below each, the probability of its class (the true one when the example
    names it, else the ensemble's top class at 0°) from the whole ensemble and from one member."""
    if not example or not example.get("images"):
        raise EnsemblePlotError("no example to draw (a run measured nothing)")
    images = np.asarray(example["images"], dtype=float)
    ens, one = np.asarray(example["ensemble"], dtype=float), np.asarray(example["member"], dtype=float)
    k = int(example["label"]) if example.get("label") is not None else int(ens[0].argmax())
    name = (classes[k] if classes is not None else f"digit {k}")
    fig = plt.figure(figsize=(8, 4.2))
    grid = fig.add_gridspec(2, len(images), height_ratios=[1, 1.1])
    for i, img in enumerate(images):
        a = fig.add_subplot(grid[0, i])
        a.imshow(img, cmap="gray_r", vmin=min(0.0, img.min()), vmax=max(1.0, img.max()))
        a.set_xticks([])
        a.set_yticks([])
        a.set_title(f"{90 * i}°", fontsize=9)
    ax = fig.add_subplot(grid[1, :])
    x = np.arange(len(images))
    ax.bar(x - 0.18, ens[:, k], 0.34, color="#2ca02c", label=f"ensemble of {example.get('members', '?')}")
    ax.bar(x + 0.18, one[:, k], 0.34, color="#9e9e9e", label="one member")
    ax.set_xticks(x, [f"{90 * i}°" for i in range(len(images))])
    ax.set_ylim(0, 1)
    ax.set_ylabel(f"p({name})")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(alpha=0.3, axis="y")
    fig.suptitle(title or "One held-out digit along its orbit: the probability of its class from the ensemble and "
                          "from one member", fontsize=10)
    fig.tight_layout()
    return fig
