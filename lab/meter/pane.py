"""Equivariance meter pane: how equivariant is a model, and which layer breaks it (``lab lie-derivative``, Finzi's
thesis chapter 4).

Start runs the ``meter`` experiment family (``lab.meter.family``) as a ``lab.jobs.Job`` through the pane's
``JobRunner`` (a worker process by default); every control is built from ``MeterConfig``'s declarations.  The model
is one of three kinds, in one list: a CNN variant trained here on the digits (strided, blurred, smooth), a
matrix-group preset (EMLP or MLP over O(3), SO(2), S(4)), or a saved run (PATH) -- the models this pane trained in
this session first, then the older ones -- which is measured again without training (another transformation,
other inputs).  Controls that do not apply to the chosen kind are hidden and never reach the config.

While a CNN trains, its training loss streams (the live-pane base, ``lab.dashboard.live``).  Every run is saved and
then drawn from its files by the same loading job that Load uses (``lab.meter.family.saved_view``, off the
event loop), so a run just measured and one loaded later look the same:

* the **total LEE** (eq. 4.4) with its standard error, unit and inputs;
* the **layers' contributions, cumulatively** in layer order (thesis Figure 4.4, ``lab.meter.plots_bokeh``), and
  their table (``E|C_i|`` and the signed share ``E<C_i, L>/E|L|^2``, which adds up to 1);
* **one input with its transformed versions** and the output's change along the flow with its tangent, whose slope
  is the Lie derivative (four inputs of the set to pick from);
* for a preset, the Lie derivative along each generator and the discrete check, as a table.
"""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import panel as pn
import param

from ..device import DEVICES
from ..errors import LabError
from . import family as meter_family
from .family import CNN_MODELS, GENERATORS, PRESETS, VIEW_EXAMPLES, MeterConfig
from ..jobs import Job
from .plots_bokeh import CAPTION, cumulative_figure, example_figures
from ..dashboard.config_params import add_config_params, config_values
from ..dashboard.guard import guard, guarded
from ..dashboard.job_pane import JobPane, open_saved, worker_param
from ..dashboard.layout import titled
from ..dashboard.live import LivePlot, LiveView

#: the config fields the pane shows (every declared one meant for the dashboard)
CONFIG_NAMES = [o.name for o in MeterConfig.declarations() if o.ui]
#: settings of the image models only (hidden, and kept out of the config, for a matrix-group preset)
CNN_ONLY = ("layerwise", "inputs", "epochs", "output", "interpolation", "padding")
#: settings a saved model brings with it (hidden, kept out of the config, for a saved run)
SAVED_OWN = ("seed", "epochs")
#: the pane's own start values where they differ from the command's: the tab draws Figure 4.4, so it measures
#: layer-wise unless that is unticked (``lab lie-derivative`` measures the total only unless ``--layerwise``)
PANE_DEFAULTS = {"layerwise": True}
PLOTS = (LivePlot("meter-loss", y="loss", x="step", title="training loss of the CNN, per epoch",
                  xlabel="epoch", ylabel="cross-entropy (training set)", logy=True, height=220),)
LAYER_COLUMNS = {"name": "layer", "module": "module", "kind": "kind", "contribution": "E‖Cᵢ‖",
                 "share": "share of E‖L‖²", "cumulative": "cumulative"}
GENERATOR_COLUMNS = {"name": "generator", "kind": "kind", "lee": "LEE", "relative": "relative to E|f|²/dim",
                     "error": "relative error"}


def run_label(name: str, today: bool = False) -> str:
    """A saved run's name as the model list shows it: what it measured, then when (``runstore``'s names are
    ``YYYYMMDD-HHMMSS-<label>-<hash>``; any other name is shown as it is)."""
    m = re.fullmatch(r"(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-(.+)-[0-9a-f]{6}", name)
    if m is None:
        return name
    y, mo, d, hh, mm, ss, label = m.groups()
    return f"{label} ({hh}:{mm}:{ss})" if today else f"{label} ({y}-{mo}-{d} {hh}:{mm})"


def model_options(saved: list[tuple[str, str]], session: set) -> dict:
    """The model list's {label: value}: the CNN variants, the presets, then ``saved`` runs ((name, path), newest
    first), the ones trained in this session (``session``: their paths) marked so."""
    out = {f"{m} (train here on the digits)": m for m in CNN_MODELS}
    out |= {f"{m} ({p.description.split(' (')[0]})": m for m, p in PRESETS.items()}
    mine = [(n, p) for n, p in saved if p in session]
    older = [(n, p) for n, p in saved if p not in session]
    out |= {f"this session: {run_label(n, today=True)}": p for n, p in mine}
    out |= {f"saved: {run_label(n)}": p for n, p in older}
    return out


class EquivarianceMeter(JobPane):
    family, css, config_names = "meter", "meter", CONFIG_NAMES
    idle = "Press **Start** to measure a model, or **Load** a saved run."
    saved_listed = 30  # the model list offers as many
    runner_options = {"verb": "measuring"}
    worker = worker_param("the model trains and is measured")
    example = param.Integer(default=0, bounds=(0, VIEW_EXAMPLES - 1), doc="which input of the set is drawn")

    def __init__(self, results: str | None = None, **params):
        self._session: set = set()  # paths of the runs this pane saved
        self._kinds: dict = {}  # saved run path -> its model kind (config() and every setting change ask)
        self._view: dict | None = None  # what the last loading job prepared (``saved_view``)
        self._just_measured: str | None = None  # the run a measuring job saved, until its loading job shows it
        self._info: dict = {}
        self._model_w = pn.widgets.Select(label="Model", options={}, sizing_mode="stretch_width",
                                          css_classes=["meter-model"])  # the saved runs are listed into it too
        super().__init__(results, **params)
        self._ready()
        self.param.watch(guarded(self, "choosing the model")(lambda *e: self._on_model()), ["model"])
        self.param.watch(guarded(self, "drawing the input")(lambda *e: self._show_example()), ["example"])
        self._on_model()
        self._show_view(None)

    # ------------------------------------------------------------------ layout
    def _widgets(self):
        p = self.param
        self._model_w.param.watch(lambda e: e.new is not None and setattr(self, "model", e.new), "value")
        self._cnn_w = pn.Column(
            pn.widgets.Checkbox.from_param(p.layerwise, label="Layer-wise: each layer's contribution (Fig. 4.4)",
                                           css_classes=["meter-layerwise"]),
            titled(pn.widgets.RadioButtonGroup.from_param(p.inputs, css_classes=["meter-inputs"]),
                   "Inputs measured"),
            titled(pn.widgets.RadioButtonGroup.from_param(p.output, options={"probabilities": "probs",
                                                                             "logits": "logits"}),
                   "Lie derivative of"),
            pn.Row(pn.widgets.Select.from_param(p.interpolation, label="Interpolation", width=135),
                   pn.widgets.Select.from_param(p.padding, label="Padding", width=135)),
            sizing_mode="stretch_width")
        self._epochs_w = self._number("epochs", "Epochs", width=90,
                                                        css_classes=["meter-epochs"])
        self._seed_w = self._number("seed", "Seed", width=90)
        self._controls = pn.Column(
            self._model_w,
            pn.widgets.Select.from_param(p.transform, label="Transformation", css_classes=["meter-transform"]),
            self._cnn_w,
            pn.Row(self._number("samples", "Inputs (N)", width=90,
                                                  css_classes=["meter-samples"]),
                   self._seed_w, self._epochs_w),
            pn.widgets.Select.from_param(p.device, label="Device", options=list(DEVICES)),
            titled(pn.widgets.RadioButtonGroup.from_param(p.worker), "Run in"),
            sizing_mode="stretch_width", min_width=300)
        self.live = LiveView(PLOTS, group="model", run="seed")
        self._headline = pn.pane.Markdown("", css_classes=["meter-headline"], sizing_mode="stretch_width",
                                          styles={"font-size": "1.1em"})
        self._cumulative = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=300,
                                         css_classes=["meter-cumulative"])
        self._caption = pn.pane.Markdown(f"*{CAPTION}*", sizing_mode="stretch_width", margin=(0, 10),
                                         styles={"font-size": "0.85em"})
        self._example_pane = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=360,
                                           css_classes=["meter-example"])
        self._example_w = titled(pn.widgets.RadioButtonGroup.from_param(
            p.example, options={f"input {k + 1}": k for k in range(VIEW_EXAMPLES)}, css_classes=["meter-pick"]),
            "Input drawn (the first of the set measured)")
        # shown and hidden as wholes: a Bokeh pane takes its ``visible`` from the Bokeh model it is given
        self._example_box = pn.Column(self._example_pane, self._example_w, sizing_mode="stretch_width")
        self._cumulative_box = pn.Column(self._cumulative, self._caption, sizing_mode="stretch_width")
        self._loss_box = pn.Column(self.live.panes["meter-loss"], sizing_mode="stretch_width")
        self._table = pn.pane.DataFrame(pd.DataFrame(), index=False, sizing_mode="stretch_width",
                                        css_classes=["meter-table"])
        self._table_title = pn.pane.Markdown("", margin=(0, 10))

    def _main(self):
        return pn.Column(
            self._error, self._progress, self._status, self._headline,
            pn.Row(self._cumulative_box,
                   self._example_box,
                   sizing_mode="stretch_width"),
            self._loss_box, self._table_title, self._table, sizing_mode="stretch_width")

    # ------------------------------------------------------------------ the model's kind decides the controls
    def _kind(self) -> str:
        """cnn, emlp or mlp, for the model chosen (a saved run: its own, from its files)."""
        if self.model in CNN_MODELS:
            return "cnn"
        if self.model in PRESETS:
            return PRESETS[self.model].kind
        if self.model not in self._kinds:  # a saved run never changes (runstore writes it whole): read it once
            self._kinds[self.model] = meter_family.saved_kind(self.model)
        return self._kinds[self.model]

    def _on_model(self) -> None:
        """Show the controls that apply to the chosen model; move the transformation to one that applies (a preset
        is measured along its generators, a CNN under an image flow)."""
        if self._model_w.value != self.model and self.model in self._model_w.options.values():
            self._model_w.value = self.model
        try:
            kind = self._kind()
        except LabError:
            kind = "cnn"  # a saved run that cannot be read: Start says why
        image = kind == "cnn"
        self._cnn_w.visible = image
        saved = self.model not in meter_family.MODELS
        self._epochs_w.visible = image and not saved
        self._seed_w.visible = not saved
        if getattr(self, "_restoring", False):
            return
        if not image and self.transform != GENERATORS:
            self.transform = GENERATORS
        elif image and self.transform == GENERATORS:
            self.transform = MeterConfig.option_named("transform").default

    def _plan_text(self) -> str:
        """What Start would do, in the config's exact counts (before any work)."""
        cfg = self.config()
        costs = cfg.validate().costs()
        train = (f"trains {cfg.model} for {costs['train_steps']:,} Adam steps, then " if costs["train_steps"] else "")
        what = (f"along every generator of {cfg.preset().group}" if cfg.transform == GENERATORS
                else f"under {cfg.transform}")
        return (f"Start {train}measures the Lie derivative {what} on {costs['inputs']:,} inputs "
                             f"({costs['measurements']} measurement{'s' * (costs['measurements'] != 1)})")

    # ------------------------------------------------------------------ control
    def config(self) -> MeterConfig:
        """The settings as a config: a preset's without the image settings, a saved model's without its own seed
        and epochs (hidden controls keep their values; they must not reach the config)."""
        values = config_values(self, CONFIG_NAMES)
        try:
            kind = self._kind()
        except LabError:
            kind = "cnn"
        if kind != "cnn":
            for n in CNN_ONLY:
                values.pop(n)
        if values["model"] not in meter_family.MODELS:
            for n in SAVED_OWN:
                values.pop(n, None)
        return MeterConfig(**values)

    def _job(self, config) -> Job:
        """Train (a CNN) and measure."""
        return self._family_job(config)

    def _on_start(self, job, config) -> None:
        self._info = {}
        self.live.reset([config.preset_name()])

    # ------------------------------------------------------------------ messages (event loop)
    def _on_record(self, msg: dict):
        kind = msg["kind"]
        if kind == "started":
            self._info = {k: msg.get(k) for k in ("model", "preset", "model_kind", "transform", "inputs",
                                                   "train_steps")}
        elif kind == "epoch":
            self.live.add([{"model": self._info.get("preset", msg.get("model")), "seed": msg.get("seed", 0),
                            "step": msg["epoch"], "loss": msg["loss"]}])
            self._dirty = True
        elif kind in ("done", "failed"):
            if msg.get("saved"):
                self._session.add(str(Path(msg["saved"])))
                self._info["saved"] = str(Path(msg["saved"]))
            self._refresh_saved()

    def _run_detail(self) -> str:
        i = self._info
        if not i.get("preset"):
            return ""
        steps = f", {i['train_steps']:,} training steps" if i.get("train_steps") else ""
        return f"**{i['preset']}** under {i['transform']}{steps}"

    # ------------------------------------------------------------------ saved runs
    @guard("listing the saved runs")
    def _refresh_saved(self):
        """The Saved runs, and the model list: the CNNs, the presets and the saved runs (a saved model is measured
        again)."""
        paths = self._saved_paths()
        self._list_runs(paths)
        options = model_options([(p.name, str(p)) for p in paths], self._session)
        keep = self.model
        self._model_w.options = options
        self._model_w.value = keep if keep in options.values() else MeterConfig.option_named("model").default

    def _prepare_saved(self):
        return prepare_saved_run

    def _after_end(self, job) -> None:
        """A measuring job saved its run: draw it from its files (the loading job).  A loading job: show what it
        prepared and put its settings back into the controls."""
        if job.name != "load":
            saved = self._info.get("saved")
            if saved and job.state not in ("failed",) and saved in self._saved.options.values():
                self._saved.value = saved
                self._just_measured = saved
                self.load(saved)
            return
        view, self._loaded = self._loaded, None
        fresh, self._just_measured = view is not None and view["path"] == self._just_measured, None
        if view is None:
            return
        self._restore(view)
        self._show_view(view, fresh)
        self._loaded_ok = True

    def _restore(self, view: dict) -> None:
        """The run's settings into the controls (the model: the run itself when it kept one, so that Start
        measures it again; else the preset it was made from)."""
        cfg = self._saved_config(MeterConfig, view["config"], view["name"])
        if cfg is None:
            return
        values = {n: getattr(cfg, n) for n in CONFIG_NAMES if n not in ("model", "seed", "epochs")}
        values["model"] = view["path"] if view["path"] in self._model_w.options.values() else cfg.model
        self._restore_values(values)
        self._on_model()

    # ------------------------------------------------------------------ drawing a measured run
    def _show_view(self, view: dict | None, fresh: bool = False) -> None:
        """Headline, Figure 4.4, the example input, the loss curve and the table of ``view`` (None: empty);
        ``fresh``: the run this pane just measured (its status line says so)."""
        self._view = view
        s = (view or {}).get("summary") or {}
        self._headline.object = headline(view) if view else ""
        unit = (s.get("unit") or "per pixel").replace("per ", "")
        image = bool(view) and view["kind"] == "cnn"
        self._cumulative.object = cumulative_figure(view["layers"] if view else [], unit=unit)
        self._cumulative_box.visible = image or view is None
        self._example_w.visible = image and len(view["examples"]) > 1
        if view is not None and view["examples"]:
            self.example = min(self.example, len(view["examples"]) - 1)
        self._show_example()
        losses = ((s.get("training") or {}).get("losses") or []) if image else []
        if losses:
            self.live.reset([s["preset"]])
            self.live.add([{"model": s["preset"], "seed": 0, "step": k + 1, "loss": v} for k, v in enumerate(losses)])
            self.live.draw(final=True)
        self._loss_box.visible = bool(losses) or view is None
        self._show_table(view)
        if view is not None:
            self._progress.value = 0
            if fresh:  # the run just measured, drawn from its files
                word = {"finished": "done", "stopped": "stopped"}.get(view["status"], view["status"])
                self._status.object = f"**{word}** · measured and saved as `{view['name']}`"
            else:
                self._status.object = f"Loaded `{view['name']}` ({view['status']})"

    def _show_example(self) -> None:
        view = self._view
        if not view or not view["examples"]:
            self._example_pane.object = None
            self._example_box.visible = False
            return
        ex = view["examples"][min(self.example, len(view["examples"]) - 1)]
        self._example_pane.object = example_figures(ex, classes=view["classes"])
        self._example_box.visible = True

    def _show_table(self, view) -> None:
        s = (view or {}).get("summary") or {}
        if view is not None and view["kind"] != "cnn":
            rows = list(s.get("generators") or [])
            if s.get("measure") == "lee":
                rows += list(s.get("discrete_generators") or [])
            df = pd.DataFrame(rows, columns=[c for c in GENERATOR_COLUMNS if any(c in r for r in rows)])
            self._table_title.object = ("#### Along each generator (LEE, per unit generator) and the discrete check "
                                        "(relative error |f(gx) − g f(x)| / |f(x)|)")
            shown = df.rename(columns=GENERATOR_COLUMNS)
        else:
            rows = (view or {}).get("layers") or []
            df = pd.DataFrame(rows, columns=list(LAYER_COLUMNS))
            self._table_title.object = ("#### Layer by layer (the shares add up to 1; the norms need not)"
                                        if rows else "")
            shown = df.rename(columns=LAYER_COLUMNS)
        for c in shown.columns:
            if c not in ("layer", "module", "kind", "generator"):
                shown[c] = shown[c].map(lambda v: f"{v:.3g}" if isinstance(v, (int, float)) and v == v else "–")
        self._table.object = shown


def headline(view: dict) -> str:
    """The total LEE in words: its value, error, unit and what was measured (a saved run's summary)."""
    s = view["summary"]
    if s.get("lee") is None:
        return f"**{s.get('model', '?')}**: stopped before the measurement"
    if view["kind"] == "cnn":
        tr = s.get("training") or {}
        made = (f"trained {tr['steps']:,} steps, test accuracy {tr['test_accuracy']:.3f}"
                if tr.get("steps") else "a saved model")
        err = s.get("stderr")
        return (f"**LEE = {s['lee']:.3g}{f' ± {err:.2g}' if err is not None and err == err else ''} {s['unit']}** "
                f"under {s['transform']} · {s['preset']} ({made}) · {s['n']} {s['inputs']} inputs, "
                f"{'softmax probabilities' if s.get('output') == 'probs' else 'logits'}, {s.get('interpolation')} "
                f"interpolation, {s.get('padding')} padding")
    d = s.get("discrete_error") or {}
    over = "worst Lie derivative over the generators" if s.get("measure") == "lee" else \
        f"{s.get('group')} is finite: worst relative error over its discrete generators"
    rel = f" (relative {s['relative']:.2g})" if s.get("relative") is not None else ""
    return (f"**{s['preset']}: {over} = {s['lee']:.3g}{rel}** · {PRESETS[s['preset']].description} · discrete check: "
            f"max relative error {d.get('max', float('nan')):.3g} over {d.get('elements', '?')} elements")


def prepare_saved_run(path, results, progress=None, control=None) -> dict:
    """Off the event loop (the pane's loading job): ``saved_view`` of a run in ``results`` (refused in one line over
    the ``run_bytes`` limit before it is read)."""
    return open_saved(path, lambda: meter_family.saved_view(path, results, control=control), progress)


add_config_params(EquivarianceMeter, MeterConfig, CONFIG_NAMES, defaults=PANE_DEFAULTS)
