"""Static figures of the equivariance meter (matplotlib) for notebooks and PNG exports (Finzi's thesis, chapter 4;
``lab.meter``, ``lab lie-derivative``):

* ``example_figure(example)`` -- one input along its flow (``lab.meter.example.transformed_example``): the
  transformed versions ``T_t(x)`` as small images, ``t`` in the transformation's unit, over the model's output
  ``f(T_t x)`` against ``t`` (the other classes faint, the class ``f(x)`` ranks first bold) with its tangent at
  ``t = 0``, ``f(x) + t L_X f(x)``, dashed: the Lie derivative *is* that slope (thesis section 4.4).
* ``cumulative_figure(models)`` -- thesis Figure 4.4: each layer's contribution ``E|C_i|`` summed in layer order
  (``lab.meter.example.cumulative_contributions``), one line per model, a dot per layer coloured by its kind
  (``style.LAYER_KIND_COLOURS``: downsampling and nonlinearities, the thesis's culprits, in the loud ones), so a
  step up is a layer that adds equivariance error.
* ``aliasing_figure(result)`` -- the aliasing study (``lab.meter.aliasing``): the LEE of each CNN variant with its
  standard error over inputs, log axis (thesis Figure 4.6's comparison), and the equivariance gap, LEE on
  training, test, a held-out class and noise inputs, nearest the training data first (thesis Figure 4.7).

Draws what it is given (plain rows and dicts): nothing is computed here but where to put the numbers; no HoloViews,
Bokeh or Panel.  ``study_layers`` picks one model's layer rows out of a study's rows, renamed as ``lee_report`` names
them, for ``cumulative_contributions``.

>>> rows = [{"name": "conv1", "kind": "conv", "contribution": 0.0}, {"name": "act1", "kind": "nonlinearity",
...          "contribution": 0.5}, {"name": "fc", "kind": "linear", "contribution": 0.25}]
>>> fig = cumulative_figure({"cnn-stride": rows})
>>> fig.axes[0].get_lines()[0].get_ydata().tolist()
[0.0, 0.5, 0.75]
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import LabError
from ..plots.mpl_text import plain_log_labels as _plain_log_labels
from ..plots.mpl_text import words as _words
from ..plots.style import OTHER_COLOURS
from ..plots.style import LAYER_KIND_COLOURS, METER_MODEL_COLOURS

#: the CNN variants in words (legends)
MODEL_LABELS = {"cnn-stride": "strided conv + ReLU", "cnn-blur": "BlurPool + ReLU", "cnn-smooth": "strided conv + SiLU",
                "cnn-blur-smooth": "BlurPool + SiLU"}
#: the input sets in words, nearest the training data first (``lab.meter.aliasing.INPUTS``, Figure 4.7's order)
INPUT_LABELS = {"train": "train", "test": "test", "heldout": "held-out class\n(OOD, near)",
                "noise": "pixel noise\n(OOD, far)"}
INPUT_ORDER = tuple(INPUT_LABELS)
#: the short words of ``t``'s unit on the images' titles
T_WORDS = {"pixel": "px", "radian": "rad"}
TOP_COLOUR, OTHER_COLOUR, TANGENT_COLOUR = "#1f77b4", "#c7c7c7", "#333333"
MODEL_MARKERS = ("o", "s", "D", "^", "v", "P", "X")
#: the aliasing figure's rows: the LEE per model, and the equivariance gap over the input sets
PANELS = ("lee", "gap")


class MeterPlotError(LabError, ValueError):
    """Input the meter's figures cannot draw: no rows, or rows that are not the meter's."""


def model_label(name: str) -> str:
    """A CNN variant's name and, for the lab's variants, what it is (``cnn-blur (BlurPool + ReLU)``)."""
    return f"{name} ({MODEL_LABELS[name]})" if name in MODEL_LABELS else _words(name)


def _model_colours(names) -> dict:
    out, k = {}, 0
    for n in dict.fromkeys(names):
        if n in METER_MODEL_COLOURS:
            out[n] = METER_MODEL_COLOURS[n]
        else:
            out[n] = OTHER_COLOURS[k % len(OTHER_COLOURS)]
            k += 1
    return out


def _unit(transform: str | None, unit: str | None) -> str:
    """The unit of ``t`` (``lab.equivariance.transforms.UNITS``) for ``transform`` unless given."""
    if unit:
        return unit
    if transform:
        from ..equivariance.transforms import UNITS

        return UNITS.get(transform, "unit")
    return "unit"


def _rows_of(result_or_rows) -> list[dict]:
    rows = getattr(result_or_rows, "rows", result_or_rows)
    if isinstance(rows, dict) or not isinstance(rows, (list, tuple)):
        raise MeterPlotError(f"the aliasing study's rows are needed (AliasingResult or its .rows), "
                             f"not {type(result_or_rows).__name__}")
    return list(rows)


# ---------------------------------------------------------------------------------------------- Figure 4.4
def study_layers(result_or_rows, model: str, transform: str, seed: int | None = None) -> list[dict]:
    """One model's ``"layer"`` rows of an aliasing study (``AliasingResult`` or its rows) for ``transform`` and
    ``seed`` (default: the first seed), in layer order, with ``lee_report``'s keys (``name``, ``module``,
    ``kind``, ``contribution`` = ``E|C_i|``, ``share``): what ``cumulative_contributions`` takes."""
    rows = [r for r in _rows_of(result_or_rows) if r.get("kind") == "layer" and r.get("model") == model
            and r.get("transform") == transform]
    if not rows:
        raise MeterPlotError(f"no layer rows for {model} under {transform}: run the study with layerwise=True and "
                             f"this model and transformation")
    if seed is None:
        seed = rows[0]["seed"]
    rows = [r for r in rows if r["seed"] == seed]
    if not rows:
        raise MeterPlotError(f"no layer rows for {model} under {transform} at seed {seed}")
    return [{"name": r["layer"], "module": r.get("module", ""), "kind": r["layer_kind"], "contribution": r["norm"],
             "share": r.get("share", math.nan)} for r in rows]


def _merged_order(lists) -> list[str]:
    """The layer names of all models in one order that keeps each model's own order (a blurred model's
    ``down2`` lands between ``act2`` and ``conv3``, where it runs)."""
    merged: list[str] = []
    for names in lists:
        prev = None
        for n in names:
            if n not in merged:
                merged.insert(merged.index(prev) + 1 if prev is not None else 0, n)
            prev = n
    return merged


def cumulative_figure(models, transform: str | None = None, unit: str | None = None, fraction: bool = False,
                      title: str | None = None):
    """Thesis Figure 4.4: the per-layer contributions ``E|C_i|`` summed in the order the layers run, one line per
    model (``models``: ``{name: rows}``, or one model's rows alone), a dot per layer in the colour of its kind.

    ``rows``: ``cumulative_contributions`` rows (``name``, ``kind``, ``cumulative``, ``fraction``), or
    ``lee_report(..., layerwise=True)["layers"]`` / ``study_layers`` rows, which are passed through
    ``lab.meter.example.cumulative_contributions`` first.  ``fraction``: the running sum as a fraction of the
    model's total (the thesis's "percentage" panel) instead of its value.  ``transform`` / ``unit``: the y axis'
    unit (per pixel, per radian).  The x axis holds every model's layers in one order that keeps each model's own
    (layers a model lacks are skipped by its line).  The norms need not add up to ``E|L_X f|`` (only
    ``|L_X f| <= sum |C_i|``): the last value bounds it."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    if isinstance(models, (list, tuple)):
        models = {"model": models}
    if not isinstance(models, dict) or not models:
        raise MeterPlotError("cumulative_figure takes {model name: layer rows} (lee_report(..., layerwise=True)"
                             "['layers'] or cumulative_contributions of them), with at least one model")
    series = {}
    for name, rows in models.items():
        rows = list(rows)
        if rows and not all(isinstance(r, dict) and "name" in r and "kind" in r for r in rows):
            raise MeterPlotError(f"{name}: layer rows need 'name' and 'kind' (lee_report's layers)")
        if rows and "cumulative" not in rows[0]:
            from .example import cumulative_contributions

            rows = cumulative_contributions(rows)
        series[name] = rows
    order = _merged_order([[str(r["name"]) for r in rows] for rows in series.values()])
    where = {n: i for i, n in enumerate(order)}
    colours = _model_colours(series)
    u = _unit(transform, unit)
    fig = Figure(figsize=(max(6.5, 0.55 * len(order) + 3.5), 4.4), layout="constrained")
    ax = fig.subplots()
    key = "fraction" if fraction else "cumulative"
    kinds_seen = []
    for k, (name, rows) in enumerate(series.items()):
        if not rows:
            continue
        x = [where[str(r["name"])] for r in rows]
        y = [float(r[key]) for r in rows]
        ax.plot(x, y, color=colours[name], lw=2, alpha=0.85, zorder=2, label=model_label(name), gid=f"model:{name}")
        kind_colours = [LAYER_KIND_COLOURS.get(r["kind"], LAYER_KIND_COLOURS["other"]) for r in rows]
        ax.scatter(x, y, s=46, c=kind_colours, marker=MODEL_MARKERS[k % len(MODEL_MARKERS)], edgecolors="white",
                   linewidths=0.8, zorder=3, gid=f"layers:{name}")
        kinds_seen += [r["kind"] for r in rows]
    ax.set_xticks(range(len(order)))
    ax.set_xticklabels(order, rotation=45, ha="right", fontsize=9)
    ax.set_xlabel("layer, in the order the layers run")
    ax.set_ylabel(r"cumulative fraction of the summed $E\,\|C_i\|$" if fraction else
                  rf"cumulative $E\,\|C_i\|$  (per {u})")
    ax.set_ylim(bottom=0, top=1.05 if fraction else None)
    ax.grid(alpha=0.3)
    what = f" under {transform}" if transform else ""
    sub = ("a step up is a layer that adds error; 1 = the model's summed layer norms" if fraction else
           r"a step up is a layer that adds error; the last value bounds $E\,\|\mathcal{L}_X f\|$")
    ax.set_title(title or f"Where the equivariance error enters, layer by layer{what} (thesis Fig. 4.4)\n{sub}",
                 fontsize=10)
    model_handles = [Line2D([], [], color=colours[n], lw=2, marker=MODEL_MARKERS[k % len(MODEL_MARKERS)],
                            markerfacecolor="white", markeredgecolor=colours[n], label=model_label(n))
                     for k, n in enumerate(series) if series[n]]
    kind_handles = [Line2D([], [], ls="", marker="o", markersize=8, color=LAYER_KIND_COLOURS.get(kd, "#7f7f7f"),
                           label=kd) for kd in LAYER_KIND_COLOURS if kd in kinds_seen]
    fig.legend(handles=model_handles, title="model (line)", loc="outside right upper", fontsize=9, title_fontsize=9,
               frameon=False)
    fig.legend(handles=kind_handles, title="dot colour: layer kind", loc="outside right lower", fontsize=9,
               title_fontsize=9, frameon=False)
    return fig


# ---------------------------------------------------------------------------------------------- one input
def example_figure(example: dict, classes=None, label: str | None = None, all_classes: bool = True):
    """One input along its flow (``transformed_example``'s dict): the transformed versions as small images (``t``
    in the transformation's unit above each, the middle one the input itself), and below them the output of the
    class ``f(x)`` ranks first against ``t`` (bold; the other classes faint when ``all_classes``) with the tangent
    ``f(x) + t L_X f(x)`` dashed.  A curve that bends away from its tangent within a fraction of a pixel is the
    aliasing of section 4.4.  ``classes``: the output entries' names (default "class k"); ``label``: what the input
    is (titles)."""
    from matplotlib.figure import Figure

    need = ("images", "t_versions", "t", "outputs", "output0", "lie", "top", "unit", "transform")
    missing = [k for k in need if k not in example] if isinstance(example, dict) else list(need)
    if missing:
        raise MeterPlotError(f"example_figure takes lab.meter.transformed_example's dict; missing {missing[:4]}")
    images = np.asarray(example["images"], dtype=float)
    tv = np.asarray(example["t_versions"], dtype=float)
    t = np.asarray(example["t"], dtype=float)
    outputs = np.asarray(example["outputs"], dtype=float)
    top = int(example["top"])
    unit = example["unit"]
    short = T_WORDS.get(unit, unit)
    names = list(classes) if classes is not None else [f"class {k}" for k in range(outputs.shape[1])]
    word = "probability" if example.get("output", "probs") == "probs" else "logit"
    n = len(images)
    fig = Figure(figsize=(max(6.5, 1.35 * n + 1.5), 5.6), layout="constrained")
    top_fig, bottom_fig = fig.subfigures(2, 1, height_ratios=[1.0, 2.3])
    thumbs = top_fig.subplots(1, n, squeeze=False)[0]
    lo, hi = float(images.min()), float(images.max())
    vmin, vmax = min(lo, 0.0), max(hi, 1.0)  # the digits lie in [0, 1]: 0 white, 1 black, as printed
    for ax, img, tk in zip(thumbs, images, tv):
        ax.imshow(img, cmap="gray_r", vmin=vmin, vmax=vmax, interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title("t = 0 (the input)" if abs(tk) < 1e-12 else f"t = {tk:+.2g} {short}", fontsize=9)
        ax.set_gid("version")
    top_fig.suptitle(f"{label or 'the input'} moved by {example['transform']} "
                     f"({example.get('interpolation', 'bicubic')} resampling, {example.get('padding', 'circular')} "
                     f"padding)", fontsize=10)
    ax = bottom_fig.subplots()
    if all_classes:
        for k in range(outputs.shape[1]):
            if k != top:
                ax.plot(t, outputs[:, k], color=OTHER_COLOUR, lw=1, zorder=1,
                        label="the other classes" if k == (0 if top != 0 else 1) else None)
    ax.plot(t, outputs[:, top], color=TOP_COLOUR, lw=2.6, zorder=3, label=f"{names[top]} (ranked first at t = 0)",
            gid="top")
    y0, slope = float(example["output0"][top]), float(example["lie"][top])
    ax.axline((0.0, y0), slope=slope, color=TANGENT_COLOUR, ls="--", lw=1.4, zorder=4, gid="tangent",
              label=rf"tangent at t = 0: slope $\mathcal{{L}}_X f$ = {slope:.3g} per {unit}")
    ax.plot([0.0], [y0], "o", color=TANGENT_COLOUR, ms=5, zorder=5)
    ax.axvline(0.0, color="#999999", ls=":", lw=1, zorder=0)
    span = (float(t.min()), float(t.max()))
    ax.set_xlim(*span)
    shown = outputs if all_classes else outputs[:, [top]]
    ymin, ymax = float(shown.min()), float(shown.max())
    pad = 0.08 * (ymax - ymin) if ymax > ymin else 0.05 * max(abs(ymax), 1.0)
    ax.set_ylim(ymin - pad, ymax + pad)  # the tangent may leave the frame: the curves set the scale
    ax.set_xlabel(f"t  ({unit}s of {example['transform']})")
    ax.set_ylabel(word)
    ax.grid(alpha=0.3)
    lee = example.get("lee")
    ax.set_title(r"the output along the flow, and its tangent $f(x) + t\,\mathcal{L}_X f(x)$ (dashed)"
                 + (f"\nthis input's term of the LEE: {lee:.3g} (per {unit})²" if lee is not None else ""),
                 fontsize=10)
    bottom_fig.legend(loc="outside lower center", ncols=3, fontsize=9, frameon=False)
    return fig


# ---------------------------------------------------------------------------------------------- the study
def _lee_rows(rows) -> list[dict]:
    out = [r for r in rows if r.get("kind") == "lee"]
    if not out:
        raise MeterPlotError("no LEE rows (kind 'lee') to draw: pass lab.meter.aliasing_study's result or its rows")
    return out


def _positive(x) -> float:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return math.nan
    return x if math.isfinite(x) and x > 0 else math.nan


def aliasing_figure(result_or_rows, inputs: str = "test", transforms=None, panels=PANELS, title: str | None = None):
    """The aliasing study drawn, a column per transformation and a row per panel (``panels``, default both):
    ``"lee"``, the LEE of every model on the ``inputs`` set (each seed a point with its standard error over inputs,
    log axis; thesis Figure 4.6's comparison), and ``"gap"``, the equivariance gap: LEE on the train, test,
    held-out-class and noise inputs, nearest the training data first, a line per model and seed (thesis Figure
    4.7).  LEE is ``E|L_X f|^2 / dim`` of the
    outputs the study measured (probabilities by default), so its unit is the square of the Lie derivative's
    (per pixel, per radian).  ``result_or_rows``: ``aliasing_study``'s result or its ``rows``."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    panels = tuple(panels)
    if not panels or any(p not in PANELS for p in panels):
        raise MeterPlotError(f"panels must be a non-empty selection of {', '.join(PANELS)}, got {panels!r}")
    rows = _lee_rows(_rows_of(result_or_rows))
    output = getattr(getattr(result_or_rows, "config", None), "output", None)
    models = list(dict.fromkeys(r["model"] for r in rows))
    present = list(dict.fromkeys(r["transform"] for r in rows))
    transforms = list(transforms) if transforms is not None else present
    bad = [t for t in transforms if t not in present]
    if bad:
        raise MeterPlotError(f"no LEE rows for {bad[0]}: the study measured {', '.join(present)}")
    seeds = sorted({r["seed"] for r in rows})
    sets = [i for i in INPUT_ORDER if any(r["inputs"] == i for r in rows)]
    if inputs not in sets:
        raise MeterPlotError(f"no LEE rows on the {inputs!r} inputs: the study measured {', '.join(sets)}")
    colours = _model_colours(models)
    lee = {(r["model"], r["seed"], r["transform"], r["inputs"]): r for r in rows}
    fig = Figure(figsize=(3.9 * len(transforms) + 2.6, 3.6 * len(panels) + 0.5), layout="constrained")
    grid = fig.subplots(len(panels), len(transforms), squeeze=False)
    axes = {p: grid[k] for k, p in enumerate(panels)}
    what = "probabilities" if output in (None, "probs") else "logits"
    for j, tr in enumerate(transforms):
        u = _unit(tr, None)
        if "lee" in panels:
            _lee_panel(axes["lee"][j], tr, u, models, seeds, lee, inputs, colours)
        if "gap" in panels:
            _gap_panel(axes["gap"][j], tr, u, models, seeds, lee, sets, colours)
    handles = [Line2D([], [], color=colours[m], marker=MODEL_MARKERS[i % len(MODEL_MARKERS)], lw=1.6,
                      label=model_label(m)) for i, m in enumerate(models)]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(models) if len(models) <= 3 else 2, fontsize=9,
               frameon=False)
    n_seeds = f"{len(seeds)} seed" + ("s" if len(seeds) != 1 else "")
    fig.suptitle(title or f"Local equivariance error of the digits CNNs ({what}; {n_seeds}; lower is more "
                          f"equivariant)", fontsize=11)
    return fig


def _lee_panel(ax, tr, u, models, seeds, lee, inputs, colours):
    """Figure 4.6's comparison: each model's LEE on one input set, a point per seed with +-1 standard error."""
    spread = [0.0] if len(seeds) == 1 else list(np.linspace(-0.18, 0.18, len(seeds)))
    for i, m in enumerate(models):
        for dx, s in zip(spread, seeds):
            r = lee.get((m, s, tr, inputs))
            if r is None:
                continue
            y, e = _positive(r["lee"]), float(r.get("stderr", math.nan))
            if not math.isfinite(y):
                continue
            lower = min(e, 0.95 * y) if math.isfinite(e) else 0.0  # a bar longer than the value: to near 0
            ax.errorbar([i + dx], [y], yerr=[[lower], [e if math.isfinite(e) else 0.0]], fmt="o",
                        color=colours[m], ms=7, capsize=3, lw=1.4, gid=f"lee:{m}:{s}")
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels([m.replace("cnn-", "") for m in models], fontsize=9)
    ax.set_xlim(-0.5, len(models) - 0.5)
    ax.set_yscale("log")
    _plain_log_labels(ax.yaxis)
    ax.set_xlabel("model (cnn-…)")
    ax.set_ylabel(f"LEE on {inputs} inputs\n((per {u})², log scale)", fontsize=9)
    ax.set_title(f"{tr}: LEE per model\n(a dot per seed, bar: ±1 s.e. over inputs)", fontsize=10)
    ax.grid(alpha=0.3, axis="y", which="major")
    ax.grid(alpha=0.12, axis="y", which="minor")


def _gap_panel(ax, tr, u, models, seeds, lee, sets, colours):
    """Figure 4.7: LEE over the input sets (nearest the training data first), a line per model and seed."""
    for i, m in enumerate(models):
        for s in seeds:
            got = [(k, lee.get((m, s, tr, name))) for k, name in enumerate(sets)]
            got = [(k, r) for k, r in got if r is not None and math.isfinite(_positive(r["lee"]))]
            if not got:
                continue
            ax.plot([k for k, _ in got], [r["lee"] for _, r in got], color=colours[m], lw=1.6,
                    marker=MODEL_MARKERS[i % len(MODEL_MARKERS)], ms=6, alpha=0.9 if len(seeds) == 1 else 0.6,
                    gid=f"gap:{m}:{s}")
    ax.set_xticks(range(len(sets)))
    ax.set_xticklabels([INPUT_LABELS[s] for s in sets], fontsize=8)
    ax.set_xlim(-0.3, len(sets) - 0.7)
    ax.set_yscale("log")
    _plain_log_labels(ax.yaxis)
    ax.set_xlabel("inputs, nearest the training data first")
    ax.set_ylabel(f"LEE ((per {u})², log scale)", fontsize=9)
    ax.set_title(f"{tr}: the equivariance gap (thesis Fig. 4.7)", fontsize=10)
    ax.grid(alpha=0.3, axis="y", which="major")
    ax.grid(alpha=0.12, axis="y", which="minor")
