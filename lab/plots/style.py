"""Style and layout shared by the interactive (HoloViews/Bokeh) and static (matplotlib) plots.

No imports: the ``*_mpl`` modules import from here, never from the ``*_hv`` modules, so a notebook figure does not
pull in HoloViews, Bokeh or Panel.

>>> COLOURS["nom"], LABELS["aug_penalty"]
('#d62728', 'Aug + penalty')
"""
from __future__ import annotations

#: one colour and one legend label per training strategy of ``lab.dynamics``
COLOURS = {"nom": "#d62728", "aug": "#1f77b4", "equi": "#2ca02c", "aug_penalty": "#9467bd", "rpp": "#ff7f0e"}
LABELS = {"nom": "Nom", "aug": "Aug", "equi": "Equi", "aug_penalty": "Aug + penalty", "rpp": "RPP"}
#: one colour and one legend label per model of the ``emlp`` family (thesis chapter 2), the same in every figure: the
#: models keep the colours of the training strategies they are (MLP as Nom, MLP-Aug as Aug, EMLP as Equi)
MODEL_COLOURS = {"mlp": COLOURS["nom"], "mlp-aug": COLOURS["aug"], "emlp": COLOURS["equi"]}
MODEL_LABELS = {"mlp": "MLP", "mlp-aug": "MLP-Aug", "emlp": "EMLP"}
#: the trivial baseline every regression view shows beside the models' test MSEs (a run's ``mean_mse``: the test
#: MSE of predicting the training targets' mean, on the same data), in a table's column and a plot's legend
MEAN_BASELINE = "predicting the mean: test MSE"
#: the trivial baseline's dashed line in every regression figure (Bokeh and matplotlib): its colour, and the legend's
#: words for it in the data-efficiency figures
BASELINE_COLOUR = "#555555"
MEAN_LINE = "predicting the mean"
#: the pendulum's models (``hnn-emlp``, ``node-mlp``, ...): a Hamiltonian network in its model's colour, a Neural
#: ODE in the light tone of the same hue (tab20's pairs), so one colour still means one network
_LIGHT = {"mlp": "#ff9896", "mlp-aug": "#aec7e8", "emlp": "#98df8a"}
DYNAMICS_LABELS = {"hnn": "HNN", "node": "NODE"}
for _net in list(MODEL_LABELS):
    MODEL_COLOURS[f"hnn-{_net}"], MODEL_COLOURS[f"node-{_net}"] = MODEL_COLOURS[_net], _LIGHT[_net]
    for _kind, _word in DYNAMICS_LABELS.items():
        MODEL_LABELS[f"{_kind}-{_net}"] = f"{_word} {MODEL_LABELS[_net]}"
MODEL_COLOURS["rpp"], MODEL_LABELS["rpp"] = COLOURS["rpp"], "RPP-EMLP"  # lab rpp's model: the RPP strategy's orange
#: the equivariance meter's layer kinds (``lab.meter.cnn.LAYER_KINDS``, tested to agree), one colour each in every
#: figure of the layer-wise split (thesis Figure 4.4): the thesis's culprits, downsampling and nonlinearities, in the
#: loud colours
LAYER_KIND_COLOURS = {"conv": "#1f77b4", "downsampling": "#d62728", "nonlinearity": "#ff7f0e", "pooling": "#9467bd",
                      "linear": "#2ca02c", "other": "#7f7f7f"}
#: the meter's CNN variants (``lab.meter.cnn.MODELS``): strided red (the aliasing one), blurred green
METER_MODEL_COLOURS = {"cnn-stride": "#d62728", "cnn-blur": "#2ca02c", "cnn-smooth": "#ff7f0e",
                       "cnn-blur-smooth": "#1f77b4"}
#: the ensembles family's settings (``lab.ensembles.family.SETTINGS``, tested to agree), one colour each in every
#: figure: the theorem's setting green (as Equi), the broken initialisation orange, the broken layer space red
SETTING_COLOURS = {"invariant": "#2ca02c", "noninvariant-init": "#ff7f0e", "noninvariant-space": "#d62728"}
#: the bounds family's models (``lab.bounds.family.MODELS``, tested to agree), one colour each in every figure:
#: the MLP red (as the emlp family's MLP: no symmetry), the CNN blue (translations only), the C4-equivariant GCNN green
#: (as Equi)
BOUND_MODEL_COLOURS = {"mlp": MODEL_COLOURS["mlp"], "cnn": "#1f77b4", "gcnn": COLOURS["equi"]}
BOUND_MODEL_LABELS = {"mlp": "MLP", "cnn": "CNN", "gcnn": "GCNN (C4)"}
#: ensemble sizes drawn against the training step, smallest to largest M: light to dark
SIZE_SHADES = ("#9ecae1", "#4292c6", "#08306b")
#: the training-dynamics axis words, declared once per quantity as (Bokeh text, matplotlib text): Bokeh draws text
#: as it is (plain Unicode: "‖Π⊥A‖", never a literal "Π_E⊥" with its underscore), matplotlib typesets mathtext (a
#: true subscript: Π with E⊥ below it).  ``AXES`` and ``AXES_MPL`` are its two columns.
AXIS_TEXT = {
    "dist_from_init": ("‖A − A₀‖  (distance from the initial weights)",
                       r"$\|A - A_0\|$  (distance from the initial weights)"),
    "dist_from_E": ("‖Π⊥A‖  (distance from E)", r"$\|\Pi_{E^\perp} A\|$  (distance from E)"),
    "aug_over_nom": ("Aug ‖Π⊥A‖ / Nom ‖Π⊥A‖  (relative drift from E)",
                     r"Aug $\|\Pi_{E^\perp} A\|$ / Nom $\|\Pi_{E^\perp} A\|$"),
}
#: Bokeh's (HoloViews, the dashboard) axis words
AXES = {key: text for key, (text, _) in AXIS_TEXT.items()}
#: matplotlib's axis words (notebook figures, PNG exports): the same words, typeset
AXES_MPL = {key: text for key, (_, text) in AXIS_TEXT.items()}
#: compared metrics (``lab.compare``): the y axis' name and the plot's title
METRICS = {
    "drift": (AXES["dist_from_E"], "drift from E: ‖Π⊥A‖"),
    "loss": ("loss", "loss"),
    "partition_distance": ("partition distance", "partition distance to the true sharing"),
    "outer_loss": ("outer loss", "outer (meta-training) loss"),
}
#: how a kind's curves summarise its runs or trials (said in every title)
OVER = {"dynamics": "median over runs", "sharing": "mean over trials"}
#: the metrics a kind's comparison shows, in order
SHOWN = {"dynamics": ("drift", "loss"), "sharing": ("loss", "partition_distance", "outer_loss")}


def metric_title(metric: str, kind: str = "") -> str:
    """A plot's title: the metric and how the curve summarises a run's runs or trials."""
    title = METRICS.get(metric, (metric, metric))[1]
    return f"{title} ({OVER[kind]})" if kind in OVER else title


#: colours for models without one of their own (after ``MODEL_COLOURS``), in order
OTHER_COLOURS = ("#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
#: white (0) to black (1), as the digits print: the image plots' palette
GREYS = [f"#{v:02x}{v:02x}{v:02x}" for v in range(255, -1, -5)]
#: colours of the runs compared in one plot (``lab.compare``): Dark2, none of them a strategy's colour above, so a
#: comparison's colours (runs) are not read as strategies
RUN_COLOURS = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666")
#: line styles of the series within a run (strategies, losses): Bokeh's names and matplotlib's
DASHES = ("solid", "dashed", "dotted", "dashdot")
MPL_DASHES = {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-."}


def run_styles(runs, series) -> tuple[dict, dict]:
    """({run: colour}, {series: dash}) for a comparison: colours and dashes in the order given, cycling."""
    runs, series = list(dict.fromkeys(runs)), list(dict.fromkeys(series))
    return ({r: RUN_COLOURS[i % len(RUN_COLOURS)] for i, r in enumerate(runs)},
            {s: DASHES[i % len(DASHES)] for i, s in enumerate(series)})
