"""The dashboard's Figure 3.2 (Finzi's thesis, chapter 3; ``lab rpp``): for one task, a panel per level of symmetry
(exact | approximate | misspecified), in each a box per model (MLP, EMLP, RPP-EMLP) of the per-seed test MSE, log y.

As the thesis's caption says, a box spans the interquartile range and its whiskers the rest of the distribution
(lowest to highest seed); the line in the box is the median; every seed is a dot over its box, spread sideways by a
fixed amount (no randomness: a redraw never moves a point).  The figure is built once per task
(``regimes_figure``) and each panel is filled (``show_regime``) from the per-seed numbers it is given -- a live run
as each (model, seed) finishes, or a saved run's summary; a regime with nothing to show says so in its panel.  The
statistics are computed here (numpy), never in the pane; ``box_stats`` uses numpy's linear percentiles, as
matplotlib's ``boxplot`` (``rpp_mpl``) does, so the two figures draw the same boxes.

>>> box_stats([1.0, 2.0, 3.0, 4.0])["median"], box_stats([float("nan"), -1.0]) is None
(2.5, True)
"""
from __future__ import annotations

import math

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, Div, FixedTicker, HoverTool, Label, Range1d, Span, Title
from bokeh.plotting import figure

from ..plots.log_ticks import readable_log_axis
from .plots_mpl import BASELINE_WORDS, ORDER, REGIME_TITLES, SEED_COLOUR, _ordered, _values
from ..plots.style import BASELINE_COLOUR, MODEL_COLOURS, MODEL_LABELS

#: the panels, left to right (``lab.rpp.tasks.SYMMETRIES``; the plots never import the experiments layer)
REGIMES = tuple(REGIME_TITLES)
#: the tasks in the figure's words
TASK_WORDS = {"inertia": "Inertia", "pendulum": "Double pendulum"}
#: approximate inertia's modified inertia (``--variant``), short enough for a panel's title
VARIANT_WORDS = {"thesis": "thesis's formula", "original": "authors' code"}
BOX_WIDTH = 0.55
#: how far sideways the seeds' dots spread over a box (in model slots; the box is ``BOX_WIDTH`` wide)
SPREAD = 0.3
CAP = 0.12
NO_RUN = "no run of this regime yet"
KEY = ("box: middle half of the seeds (interquartile range); line: median; whiskers: lowest to highest seed; "
       "dot: one seed. Each panel has its own log scale; lower is better.")
OTHER_COLOUR = "#7f7f7f"
#: room left of every panel's plot for its axis (px): the three plots line up whatever their tick labels
MIN_BORDER_LEFT = 80


def box_stats(values) -> dict | None:
    """``{"n", "lo", "q1", "median", "q3", "hi"}`` of the values a log axis can show (finite, above 0; a NaN, a
    missing seed: left out), quartiles by numpy's linear interpolation; None when none is left."""
    v = np.asarray(_values(values), dtype=float)
    if v.size == 0:
        return None
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    return {"n": int(v.size), "lo": float(v.min()), "q1": float(q1), "median": float(med), "q3": float(q3),
            "hi": float(v.max())}


def spread(n: int) -> np.ndarray:
    """Sideways offsets of ``n`` seeds' dots over their box: evenly over ``SPREAD``, centred (one seed: 0)."""
    if n <= 1:
        return np.zeros(n)
    return np.linspace(-SPREAD / 2, SPREAD / 2, n)


def y_limits(values) -> tuple[float, float]:
    """The panel's log y range for all its values: a margin of a fifth of the span (in decades) each side, and at
    least a factor 4 in all, so a narrow range still reads on a log axis."""
    v = np.asarray(_values(values), dtype=float)
    if v.size == 0:
        return 0.1, 10.0
    lo, hi = np.log10(v.min()), np.log10(v.max())
    pad = max(0.2 * (hi - lo), (math.log10(4) - (hi - lo)) / 2, 0.05)
    return float(10 ** (lo - pad)), float(10 ** (hi + pad))


def regime_columns(models, test_mse: dict, seeds: dict | None = None) -> tuple[dict, dict]:
    """(box columns, seed columns) of one panel: a box row per model that has a value (x = its slot, 1 for the
    first of ``models``), a dot row per value; ``test_mse``: {model: per-seed test MSE}; ``seeds``: {model: the
    seeds' numbers} (default 0, 1, ...)."""
    box = {k: [] for k in ("x", "left", "right", "cap_left", "cap_right", "model", "colour", "n", "lo", "q1",
                           "median", "q3", "hi")}
    dots = {k: [] for k in ("x", "y", "seed", "model", "colour")}
    for slot, m in enumerate(models, start=1):
        raw = list(test_mse.get(m) or [])
        numbers = list((seeds or {}).get(m) or range(len(raw)))
        kept = [(s, float(y)) for s, y in zip(numbers, raw) if _values([y])]
        stats = box_stats([y for _, y in kept])
        if stats is None:
            continue
        colour = MODEL_COLOURS.get(m, OTHER_COLOUR)
        label = MODEL_LABELS.get(m, m)
        for k, v in stats.items():
            box[k].append(v)
        box["x"].append(slot)
        box["left"].append(slot - BOX_WIDTH / 2)
        box["right"].append(slot + BOX_WIDTH / 2)
        box["cap_left"].append(slot - CAP)
        box["cap_right"].append(slot + CAP)
        box["model"].append(label)
        box["colour"].append(colour)
        for dx, (s, y) in zip(spread(len(kept)), kept):
            dots["x"].append(slot + float(dx))
            dots["y"].append(y)
            dots["seed"].append(int(s))
            dots["model"].append(label)
            dots["colour"].append(colour)
    return box, dots


class RegimePanel:
    """One level of symmetry's panel: its figure, its two sources (``box``: a row per model; ``seeds``: a row per
    seed), its words (``title``, ``subtitle``, the ``note`` shown while it has nothing to draw) and the trivial
    baseline's dashed line (``baseline``, a ``Span``, hidden while there is none)."""

    def __init__(self, fig, box, seeds, title, subtitle, note, models, symmetry, baseline):
        self.figure, self.box, self.seeds = fig, box, seeds
        self.title, self.subtitle, self.note = title, subtitle, note
        self.models, self.symmetry = list(models), symmetry
        self.baseline = baseline

    def values(self) -> dict:
        """{model label: the test MSEs drawn} (what a reader sees as dots)."""
        out: dict = {}
        for m, y in zip(self.seeds.data["model"], self.seeds.data["y"]):
            out.setdefault(m, []).append(y)
        return out


def panel_words(symmetry: str, group: str | None = None, target_error: float | None = None,
                variant: str | None = None) -> tuple[str, str]:
    """(title, subtitle) of a panel: the regime; then two lines, the models' group (approximate inertia: and which
    modified inertia), and the targets' own equivariance error under that group (0: the data have the models'
    symmetry).  Always two lines, so that the three panels' plots line up."""
    title = REGIME_TITLES.get(symmetry, str(symmetry))
    first = f"models over {group}" if group else "models' group: from the run"
    if variant:
        first += f" · {VARIANT_WORDS.get(variant, variant)}"
    second = " "
    if target_error is not None and math.isfinite(float(target_error)):
        second = f"targets' symmetry error {float(target_error):.2g}"
    return title, f"{first}\n{second}"


def subtitle_group(subtitle: str) -> str | None:
    """The group a panel's subtitle names (None: none yet)."""
    first = subtitle.split("\n")[0].split(" · ")[0]
    return first.removeprefix("models over ") if first.startswith("models over ") else None


def _panel(symmetry: str, models, group: str | None, height: int, first: bool) -> RegimePanel:
    n = len(models)
    fig = figure(height=height, sizing_mode="stretch_width", min_width=220, y_axis_type="log",
                 x_range=Range1d(0.4, n + 0.6), y_range=Range1d(0.1, 10.0), title=None,
                 tools="pan,wheel_zoom,box_zoom,reset,save", toolbar_location="right", name=f"rpp-box-{symmetry}",
                 y_axis_label="test MSE (log scale)" if first else "test MSE", min_border_left=MIN_BORDER_LEFT)
    fig.toolbar.logo = None
    fig.toolbar.autohide = True
    readable_log_axis(fig.yaxis)
    fig.xaxis.ticker = FixedTicker(ticks=list(range(1, n + 1)))
    fig.xaxis.major_label_overrides = {i: MODEL_LABELS.get(m, m) for i, m in enumerate(models, start=1)}
    fig.xaxis.major_label_text_font_size = "9pt"
    fig.xgrid.visible = False
    fig.ygrid.minor_grid_line_color = "#e8e8e8"
    title, sub = panel_words(symmetry, group)
    subtitle = Title(text=sub, text_font_size="8.5pt", text_font_style="normal", text_color="#555555")
    main = Title(text=title, text_font_size="10.5pt")
    fig.add_layout(subtitle, "above")  # added first: it sits under the title
    fig.add_layout(main, "above")
    box, dots = regime_columns(models, {})
    box_src = ColumnDataSource(box, name=f"rpp-box-{symmetry}-boxes")
    seed_src = ColumnDataSource(dots, name=f"rpp-box-{symmetry}-seeds")
    fig.segment("x", "lo", "x", "q1", source=box_src, color="#444444", line_width=1.2)
    fig.segment("x", "q3", "x", "hi", source=box_src, color="#444444", line_width=1.2)
    fig.segment("cap_left", "lo", "cap_right", "lo", source=box_src, color="#444444", line_width=1.2)
    fig.segment("cap_left", "hi", "cap_right", "hi", source=box_src, color="#444444", line_width=1.2)
    fig.quad(left="left", right="right", bottom="q1", top="q3", source=box_src, fill_color="colour",
             fill_alpha=0.55, line_color="colour", line_width=1.5)
    fig.segment("left", "median", "right", "median", source=box_src, color="black", line_width=2.2)
    dots_r = fig.scatter("x", "y", source=seed_src, size=7, color=SEED_COLOUR, line_color="white", line_width=0.8)
    fig.add_tools(HoverTool(renderers=[dots_r], tooltips=[("model", "@model"), ("seed", "@seed"),
                                                          ("test MSE", "@y{0.000e}")]))
    note = Label(x=(n + 1) / 2, y=height / 2 - 60, x_units="data", y_units="screen", text=NO_RUN,
                 text_align="center", text_color="#888888", text_font_size="10pt")
    fig.add_layout(note)
    baseline = Span(location=1.0, dimension="width", line_color=BASELINE_COLOUR, line_dash="dashed", line_width=1.5,
                    visible=False, name=f"rpp-box-{symmetry}-baseline")
    fig.add_layout(baseline)
    return RegimePanel(fig, box_src, seed_src, main, subtitle, note, models, symmetry, baseline)


def legend_html(models, task: str = "") -> str:
    """The figure's key: each model's colour and label, the trivial baseline's dashed line, and what a box, its
    line, whiskers and dots are."""
    swatches = " ".join(f'<span style="white-space:nowrap"><span style="display:inline-block;width:11px;height:11px;'
                        f'background:{MODEL_COLOURS.get(m, OTHER_COLOUR)};opacity:0.75;margin-right:3px"></span>'
                        f'{MODEL_LABELS.get(m, m)}</span>' for m in models)
    words = BASELINE_WORDS.get(task, BASELINE_WORDS[""])
    dashed = (f'<span style="white-space:nowrap"><span style="display:inline-block;width:18px;vertical-align:middle;'
              f'border-top:2px dashed {BASELINE_COLOUR};margin-right:3px"></span>{words} (the trivial baseline; '
              f'median over seeds)</span>')
    return (f'<div style="font-size:12px;line-height:1.35">{swatches} {dashed}<br>'
            f'<span style="color:#555">{KEY}</span></div>')


def regimes_figure(task: str, models=ORDER, groups: dict | None = None, height: int = 300):
    """(Bokeh layout, {symmetry: ``RegimePanel``}) for ``task``: a heading, the three regimes' panels side by side
    (each its own log y axis: the regimes' errors differ by orders of magnitude), the key below.  ``groups``:
    {symmetry: the models' group} for the panels' subtitles before any run (a run's own replaces it).  Every panel
    starts empty, saying so; ``show_regime`` fills one."""
    models = _ordered(list(models))
    groups = groups or {}
    panels = {s: _panel(s, models, groups.get(s), height, first=(k == 0)) for k, s in enumerate(REGIMES)}
    words = TASK_WORDS.get(task, str(task))
    head = Div(text=f"<b>{words}: test MSE of each seed, by level of symmetry</b> (thesis Figure 3.2)",
               sizing_mode="stretch_width", styles={"font-size": "13px"}, name="rpp-box-head")
    key = Div(text=legend_html(models, task), sizing_mode="stretch_width", name="rpp-box-key")
    layout = column(head, row(*[p.figure for p in panels.values()], sizing_mode="stretch_width"), key,
                    sizing_mode="stretch_width", name="rpp-regimes-figure")
    return layout, panels


def show_regime(panel: RegimePanel, test_mse: dict, seeds: dict | None = None, group: str | None = None,
                target_error: float | None = None, variant: str | None = None, note: str | None = None,
                baseline: float | None = None) -> None:
    """Fill ``panel`` with per-seed test MSEs ({model: [...]}, ``seeds``: {model: the seeds' numbers}): a box per
    model with a value, a dot per seed, the y range around them; with nothing to draw it is emptied and says
    ``note`` (default: no run yet).  ``group``, ``target_error``, ``variant``: the run's, for the titles (None
    keeps the group shown).  ``baseline``: the trivial baseline's test MSE (``baseline_of`` the seeds'), a dashed
    line inside the y range (None: no line)."""
    box, dots = regime_columns(panel.models, test_mse, seeds)
    panel.box.data, panel.seeds.data = box, dots
    group = group or subtitle_group(panel.subtitle.text)
    panel.title.text, panel.subtitle.text = panel_words(panel.symmetry, group, target_error, variant)
    empty = not dots["y"]
    panel.note.text = note or NO_RUN
    panel.note.visible = empty
    shown = not empty and baseline is not None and math.isfinite(baseline) and baseline > 0
    panel.baseline.visible = shown
    if shown:
        panel.baseline.location = float(baseline)
    lo, hi = y_limits(dots["y"] + ([float(baseline)] if shown else []))
    panel.figure.y_range.start, panel.figure.y_range.end = lo, hi


def summary_values(summary: dict) -> tuple[dict, dict]:
    """({model: per-seed test MSE}, {model: seeds}) of a ``lab rpp`` summary (a run's ``meta["summary"]``); what is
    not of a summary's shape (a hand-edited file) is left out, never raised on."""
    seed_list = summary.get("seed_list")
    if not isinstance(seed_list, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in seed_list):
        seed_list = []
    models = summary.get("models")
    mse, seeds = {}, {}
    for m, v in (models.items() if isinstance(models, dict) else ()):
        vals = v.get("test_mse") if isinstance(v, dict) else None
        vals = list(vals) if isinstance(vals, list) else []
        mse[m] = vals
        seeds[m] = seed_list[:len(vals)] if len(seed_list) >= len(vals) else list(range(len(vals)))
    return mse, seeds
