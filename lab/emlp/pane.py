"""Equivariant models pane: EMLP, MLP and MLP-Aug trained on the thesis's chapter-2 tasks (``lab emlp``).

Start runs the ``emlp`` experiment family (``lab.emlp.family``) as a ``lab.jobs.Job`` through the pane's
``JobRunner`` (a worker process by default: the page stays free to draw); the controls are built from
``EMLPConfig``'s declarations.  While it trains:

* the **test-error log** (a live plot of the live-pane base, ``lab.dashboard.live``): every model and size in the
  order they train, test MSE against the epochs of the whole run, log scale, streamed;
* the **data-efficiency plot** (thesis Figure 2.5, ``lab.emlp.plots_bokeh``): a point per model as it finishes a
  size, log-log;
* the **results table**: per model and size the test and train MSE, the equivariance error of the trained
  model under the task's group (``lab.nn.equivariance_error``: EMLP ~1e-7, the MLPs far from 0) and its audit
  (``lab.equivariance``, computed where the model is trained: ``lab.nn.train.audit_model``): the worst relative error
  with ✓ within the dtype's tolerance or ✗ (EMLP ~1e-7 ✓, the MLPs ~1 ✗); a run saved before the audit shows —.

For the **pendulum** (thesis 2.7.2) each model is a Hamiltonian network and/or a Neural ODE (the *Learns* buttons),
the log shows the training loss (1 s chunks), the data-efficiency plot the 30 s rollout error against the training
trajectories, the table adds the rollout and L_z errors, and one held-out rollout is drawn against the true one
(the outer bob from above and from the side, and L_z along it: a conserving model keeps it flat).

A switch at the top of the sidebar turns the tab to its chapter-3 mode, *Symmetry regimes* (``lab rpp``: MLP, EMLP
and RPP-EMLP where the symmetry is exact, approximate or misspecified, thesis Figure 3.2): that view lives in
``lab.rpp.pane`` (built the first time it is chosen, with its own runs directory and job); this module
only swaps the two views' sidebars and main areas, and locks the switch while either view's job runs.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import panel as pn
import param

from ..device import DEVICES
from .family import AUDIT_KEYS, FAMILY, EMLPConfig
from ..jobs import Job
from .plots_bokeh import BASELINE, data_efficiency_figure, rollout_data, rollout_figures
from ..plots.style import DYNAMICS_LABELS, MEAN_BASELINE, MEAN_LINE, MODEL_COLOURS, MODEL_LABELS
from ..dashboard.config_params import add_config_params, config_values
from ..dashboard.guard import guard_settings, guarded
from ..dashboard.job_pane import JobPane, worker_param
from ..dashboard.layout import titled
from ..dashboard.live import LivePlot, LiveView
from ..dashboard.job_pane import read_saved_run

#: the config fields the pane shows (every declared one meant for the dashboard)
CONFIG_NAMES = [o.name for o in EMLPConfig.declarations() if o.ui]
#: one curve per model and size, in the order they train (colours: the models', as in the data-efficiency plot)
PLOTS = (LivePlot("emlp-log", y="mse", x="step", title="test MSE while training, in turn",
                  xlabel="epochs of the whole run (sizes left to right)", ylabel="test MSE", logy=True,
                  height=300),)
#: the log's words per kind of task (the pendulum's records carry the training loss: its test is the rollout)
LOG_WORDS = {"regression": {"title": "test MSE while training, in turn", "ylabel": "test MSE",
                            "xlabel": "epochs of the whole run (sizes left to right)"},
             "pendulum": {"title": "training loss (1 s chunks) while training, in turn", "ylabel": "train MSE",
                          "xlabel": "steps of the whole run (models in turn)"}}
COLUMNS = {"model": "model", "size": "N", "seed": "seed", "test_mse": "test MSE", "train_mse": "train MSE",
           "mean_mse": MEAN_BASELINE, "equivariance_error": "equivariance error", "seconds": "seconds"}
#: the row keys of the audit (``lab.emlp.family.AUDIT_KEYS``), shown as one column after the equivariance error
AUDIT_COLUMN = "audit"
#: the pendulum's columns beside them (Table 2.2's number and Figure 2.6's L_z)
PENDULUM_COLUMNS = {"rollout_error": "rollout error", "momentum_error": "L_z error"}


#: the tab's two modes: the switch's words (declared once, here)
MODES = {"efficiency": "Data efficiency (ch. 2, lab emlp)", "regimes": "Symmetry regimes (ch. 3, lab rpp)"}


def audit_cell(error, ok) -> str:
    """A model's audit as the table shows it: ``"2e-07 ✓"`` within tolerance, ``"0.41 ✗"`` not, ``"—"`` when the
    run has no audit (saved before it existed, or not measurable)."""
    if error is None or error != error:
        return "—"
    return f"{float(error):.2g} {'✓' if ok in (True, 'True') else '✗'}"


def unit_name(model: str, size: int) -> str:
    return f"{MODEL_LABELS.get(model, model)} · N={size}"


class EquivariantModels(JobPane):
    family, css, config_names = "emlp", "eqm", CONFIG_NAMES
    idle = "Press **Start** to train, or **Load** a saved run."
    #: a comma list typed in a box (a list of free numbers has no widget of its own); its default is the config's
    sizes = param.Parameter(default=EMLPConfig.option_named("sizes").default,
                            doc="training-set sizes (None: the task's)")
    worker = worker_param("training")

    mode = param.Selector(default="efficiency", objects=list(MODES),
                          doc="the tab's view: chapter 2's data efficiency or chapter 3's symmetry regimes")

    def __init__(self, results: str | None = None, rpp_results: str | None = None, **params):
        super().__init__(results, **params)
        self.rpp_results = rpp_results
        #: the chapter-3 view (``lab.rpp.pane.RPPRegimes``), built when the switch first chooses it
        self.regimes = None
        self._rows: list[dict] = []
        self._info: dict = {}
        self._offset, self._unit, self._unit_epochs = 0, None, 0
        self._ready()
        self._reset_plots(self._planned())
        self.runner.lock.append(self._mode_w)
        guard_settings(self, self._mode_w)
        self.param.watch(guarded(self, "switching the view")(lambda *e: self._show_mode()), ["mode"])
        if self.mode != "efficiency":
            self._show_mode()

    # ------------------------------------------------------------------ the mode switch
    def _show_mode(self) -> None:
        """Show the chosen view's sidebar and main area (the regimes view built on its first showing)."""
        self._built()
        if self.mode == "regimes" and self.regimes is None:
            from ..experiments import FAMILIES  # the rpp family's pane, through its manifest

            self.regimes = FAMILIES["rpp"].pane_class()(results=self.rpp_results, worker=self.worker)
            self.regimes.runner.lock.append(self._mode_w)
        views = {"efficiency": (self._emlp_sidebar, self._emlp_main)}
        if self.regimes is not None:
            views["regimes"] = (self.regimes.sidebar, self.regimes.main)
        side, main = views[self.mode]
        self._side_body.objects = [side]
        self._main_body.objects = [main]

    # ------------------------------------------------------------------ layout
    def _widgets(self):
        p = self.param
        self._mode_w = pn.widgets.RadioButtonGroup.from_param(p.mode, options={v: k for k, v in MODES.items()},
                                                              orientation="vertical", sizing_mode="stretch_width",
                                                              css_classes=["eqm-mode"],  # the lab's toggle style
                                                              description=None)  # its labels say it: no tooltip
                                                              # left open over the tab bar after a click
        self._sizes_w = pn.widgets.TextInput(label="Training-set sizes (comma list)", value=",".join(self.sizes or ()),
                                             placeholder="the task's (100,1000)",
                                             css_classes=["eqm-sizes"])
        self._sizes_w.param.watch(lambda e: setattr(self, "sizes", tuple(s.strip() for s in e.new.split(",")
                                                                         if s.strip()) or None), "value")
        self._dynamics_w = titled(pn.widgets.CheckButtonGroup.from_param(
            p.dynamics, css_classes=["eqm-dynamics"], options={DYNAMICS_LABELS[k]: k for k in p.dynamics.objects}),
            "Learns (pendulum): Hamiltonian or vector field")
        self._dynamics_w.visible = self.task == "pendulum"
        self.param.watch(lambda e: setattr(self._dynamics_w, "visible", e.new == "pendulum"), "task")
        self._controls = pn.Column(
            pn.widgets.Select.from_param(p.task, label="Task", css_classes=["eqm-task"]),
            titled(pn.widgets.CheckButtonGroup.from_param(p.models, css_classes=["eqm-models"],
                                                          options={MODEL_LABELS[m]: m for m in p.models.objects}),
                   "Models (trained in turn)"),
            self._dynamics_w,
            self._text("group", "EMLP's group (empty: the task's)",
                                            css_classes=["eqm-group"]),
            self._sizes_w,
            titled(pn.widgets.RadioButtonGroup.from_param(p.scale), "Scale"),
            pn.Row(self._number("channels", "Channels", width=90, css_classes=["eqm-channels"]),
                   self._number("layers", "Layers", width=90),
                   self._number("epochs", "Epochs", width=90, css_classes=["eqm-epochs"])),
            pn.Row(self._number("lr", "Learning rate", width=135),
                   self._number("batch", "Batch", width=135)),
            pn.Row(self._number("test", "Test points", width=90, css_classes=["eqm-test"]),
                   self._number("seeds", "Seeds", width=90),
                   self._number("seed", "Seed", width=90)),
            pn.widgets.Select.from_param(p.device, label="Device", options=list(DEVICES)),
            titled(pn.widgets.RadioButtonGroup.from_param(p.worker), "Run in"),
            sizing_mode="stretch_width", min_width=300)
        self.live = LiveView(PLOTS, group="unit", run="seed")
        self._efficiency = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=300,
                                         css_classes=["eqm-efficiency"])
        self._table = pn.pane.DataFrame(pd.DataFrame(), index=False, sizing_mode="stretch_width",
                                        css_classes=["eqm-results"])
        self._rollout = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=520, css_classes=["eqm-rollout"])
        self._rollout_head = pn.pane.Markdown("")
        #: the pendulum's rollout, shown for that task only (a Bokeh pane's own ``visible`` follows its object's)
        self._rollout_box = pn.Column(self._rollout_head, self._rollout, visible=False, sizing_mode="stretch_width")

    def _sidebar(self):
        self._emlp_sidebar = pn.Column(self._buttons_row, self._controls, self._saved_row(),  # Start first: in view
                                       sizing_mode="stretch_width")
        self._side_body = pn.Column(self._emlp_sidebar, sizing_mode="stretch_width", margin=0)
        return pn.Column(self._mode_w, self._side_body, sizing_mode="stretch_width")

    def _main(self):
        self._emlp_main = self._emlp_main_view()
        self._main_body = pn.Column(self._emlp_main, sizing_mode="stretch_width", margin=0)
        return self._main_body

    def _emlp_main_view(self):
        return pn.Column(
            self._error, self._progress, self._status,
            pn.Row(self._efficiency, self.live.panes["emlp-log"], sizing_mode="stretch_width"),
            self._rollout_box,
            pn.pane.Markdown("#### Results (equivariance error: the EMLP suite's metric under the task's group; "
                             "audit: lab.equivariance's worst relative error under it, ✓ within the dtype's tolerance)"),
            self._table, sizing_mode="stretch_width")

    # ------------------------------------------------------------------ control
    def config(self) -> EMLPConfig:
        values = config_values(self, CONFIG_NAMES)
        values["group"] = (values["group"] or "").strip() or None
        values["sizes"] = self.sizes or None
        return EMLPConfig(**EMLPConfig.applicable(values))

    def _planned(self) -> EMLPConfig:
        """The settings as they stand, unchecked: what the empty plots are drawn for before a run."""
        return EMLPConfig(**EMLPConfig.applicable({"task": self.task, "models": tuple(self.models),
                                                   "dynamics": tuple(self.dynamics), "sizes": self.sizes or None}))

    def _job(self, config) -> Job:
        """Train the models in turn at every size."""
        return self._family_job(config)

    def _on_start(self, job, config) -> None:
        self._info = {"task": config.task}
        self._rows = []
        self._reset_plots(config)

    # ------------------------------------------------------------------ messages (event loop)
    def _reset_plots(self, config: EMLPConfig) -> None:
        models, sizes = config.model_names, config.size_list
        pendulum = config.task == "pendulum"
        units = [unit_name(m, n) for n in sizes for m in models]
        for n in sizes:
            for m in models:
                self.live.colours[unit_name(m, n)] = MODEL_COLOURS.get(m, "#333333")
        self.live.relabel("emlp-log", **LOG_WORDS["pendulum" if pendulum else "regression"])
        self.live.reset(units)
        self._offset, self._unit, self._unit_epochs = 0, None, 0
        if pendulum:
            fig, self._sources = data_efficiency_figure(
                models, title="rollout error against training trajectories",
                xlabel="training trajectories", ylabel="rollout error (geometric mean)")
            self._rollout.object, self._rollout_sources = rollout_figures(models)
        else:
            fig, self._sources = data_efficiency_figure(models, title=f"test MSE against training-set size "
                                                                      f"({config.task})",
                                                        baseline=MEAN_LINE)
            self._rollout.object, self._rollout_sources = None, {}
        self._baseline = self._sources.pop(BASELINE, None)  # the trivial baseline's line, not a model's
        self._rollout_head.object = ""
        self._rollout_box.visible = pendulum
        self._efficiency.object = fig
        self._table.object = pd.DataFrame()

    def _on_record(self, msg: dict):
        kind = msg["kind"]
        if kind == "started":
            self._info.update({k: msg[k] for k in ("task", "group", "models", "sizes", "device")})
        elif kind == "epoch":
            unit = (msg["model"], msg["size"], msg.get("seed", 0))
            if unit != self._unit:  # the next model or size: its curve starts where the last one ended
                self._offset += self._unit_epochs
                self._unit = unit
            self._unit_epochs = msg["epochs"]
            mse = msg["test_mse"] if "test_mse" in msg else msg["train_mse"]  # the pendulum's: the training loss
            self.live.add([{"unit": unit_name(msg["model"], msg["size"]), "seed": msg.get("seed", 0),
                            "step": self._offset + msg["epoch"], "mse": mse}])
            self._dirty = True
        elif kind in ("done", "failed"):
            self._refresh_saved()
        elif kind == "result":
            self._rows.append({k: msg.get(k) for k in (*COLUMNS, *PENDULUM_COLUMNS, *AUDIT_KEYS)})
            if msg.get("rollout") is not None:
                self._show_rollout(msg)
            self._show_results()

    def _show_rollout(self, msg: dict) -> None:
        """The model's held-out rollout (the first test start of its size and seed) beside the true one."""
        r, t = msg["rollout"], msg["times"]
        if "true" in self._rollout_sources:
            self._rollout_sources["true"].data = rollout_data(r["true"], r["true_lz"], t)
        if msg["model"] in self._rollout_sources:
            self._rollout_sources[msg["model"]].data = rollout_data(r["pred"], r["pred_lz"], t)
        self._rollout_head.object = (f"#### One held-out rollout, {t[-1]:.0f} s (N={msg['size']}, seed "
                                     f"{msg['seed']}): the truth dashed; a model conserving L_z keeps it flat")

    def _show_results(self) -> None:
        df = pd.DataFrame(self._rows)
        pendulum = df["rollout_error"].notna().any()
        if pendulum:  # Table 2.2's number, a geometric mean over seeds (it is one over trajectories and times)
            mean = np.exp(np.log(df["rollout_error"].astype(float)).groupby([df["model"], df["size"]],
                                                                           sort=False).mean())
        else:
            mean = df.groupby(["model", "size"], sort=False)["test_mse"].mean()
        for m, src in self._sources.items():
            if m in mean.index.get_level_values(0):
                points = mean.loc[m]
                src.data = {"x": [int(n) for n in points.index], "y": [float(v) for v in points.values]}
        if self._baseline is not None and not pendulum:  # one number per size and seed, whichever model: its mean
            base = df.dropna(subset=["mean_mse"]).groupby(["size", "seed"], sort=False)["mean_mse"].first()
            base = base.groupby(level=0, sort=False).mean().sort_index()
            self._baseline.data = {"x": [int(n) for n in base.index], "y": [float(v) for v in base.values]}
        names = COLUMNS | (PENDULUM_COLUMNS if pendulum else {})
        if pendulum or df["mean_mse"].isna().all():  # the pendulum's test is its rollout; a run saved before it
            names = {k: v for k, v in names.items() if k != "mean_mse"}
        shown = df[list(names)].rename(columns=names)
        shown["model"] = shown["model"].map(lambda m: MODEL_LABELS.get(m, m))
        for c in ("test MSE", "train MSE", *([MEAN_BASELINE] if "mean_mse" in names else ()), "equivariance error",
                  *(PENDULUM_COLUMNS.values() if pendulum else ())):
            shown[c] = shown[c].map(lambda v: f"{v:.3g}" if v is not None and v == v else "-")
        shown["seconds"] = shown["seconds"].map(lambda v: f"{v:.1f}")
        shown.insert(shown.columns.get_loc("equivariance error") + 1, AUDIT_COLUMN,
                     [audit_cell(e, ok) for e, ok in zip(df["audit_error"], df["audit_ok"])])
        self._table.object = shown

    def _run_detail(self) -> str:
        i = self._info
        if "models" not in i:
            return f"building **{i.get('task', '')}** …" if self.runner.running else ""
        return (f"{i['task']}: {', '.join(MODEL_LABELS.get(m, m) for m in i['models'])} over sizes "
                f"{', '.join(map(str, i['sizes']))}; EMLP over {i['group']} on {i['device']}")

    # ------------------------------------------------------------------ saved runs
    def _prepare_saved(self):
        return prepare_saved_run

    def _restored(self, config) -> dict:
        return {**super()._restored(config), "models": list(config.models), "dynamics": list(config.dynamics)}

    def _restore_widgets(self, config) -> None:
        self._sizes_w.value = ",".join(config.sizes or ())

    def _show_loaded(self, prepared: dict, cfg) -> None:
        """Its curves, points, table and (the pendulum) rollouts drawn from its files."""
        self._info = {}
        self._reset_plots(cfg)
        for msg in prepared["rollouts"]:  # as they arrived live: the last of each model stays drawn
            self._show_rollout(msg)
        self._rollout_box.visible = bool(prepared["rollouts"])
        for r in prepared["curves"]:
            self._on_record({"kind": "epoch", **r})
        self._rows = [{k: r.get(k) for k in (*COLUMNS, *PENDULUM_COLUMNS, *AUDIT_KEYS)} for r in prepared["rows"]]
        if self._rows:
            self._show_results()
        self.live.draw(final=True)
        self._dirty = False

    def _loaded_words(self, prepared: dict, cfg) -> str:
        rollout = "  \n*this run saved no rollouts*" if cfg.task == "pendulum" and not prepared["rollouts"] else ""
        return (f": **{cfg.task}**, {', '.join(MODEL_LABELS.get(m, m) for m in cfg.model_names)} over sizes "
                f"{', '.join(map(str, cfg.size_list))}; EMLP over "
                f"{prepared['meta'].get('summary', {}).get('group', cfg.group)}{rollout}")


def prepare_saved_run(path, results, progress=None, control=None) -> dict:
    """Off the event loop (the pane's loading job): read a saved run (refused in one line over the ``run_bytes``
    limit before it is read) and hand over its rows and curve records, plain dicts."""
    run, rows, curves = read_saved_run(FAMILY, path, results, progress, control)
    keep = ("model", "size", "seed", "epoch", "epochs", "test_mse", "train_mse")
    curves = [{k: c[k] for k in keep if k in c and (c[k] is not None or k != "test_mse")} for c in curves]
    rollouts = []  # the pendulum's, as the live "result" messages carry them
    saved = run.rollouts
    if saved is not None:
        times = saved["times"].tolist()
        for j, i in enumerate(saved["rows"].tolist()):
            rollouts.append({"model": rows[i]["model"], "size": int(rows[i]["size"]), "seed": int(rows[i]["seed"]),
                             "times": times,
                             "rollout": {"true": saved["states"][j, 0].tolist(), "pred": saved["states"][j, 1].tolist(),
                                         "true_lz": saved["lz"][j, 0].tolist(), "pred_lz": saved["lz"][j, 1].tolist()}})
    return {"name": run.path.name, "path": str(run.path), "meta": run.meta, "rows": rows, "curves": curves,
            "rollouts": rollouts}


add_config_params(EquivariantModels, EMLPConfig, [n for n in CONFIG_NAMES if n != "sizes"])
