"""Dashboard pane "Training dynamics": train Nom / Aug / Equi (/ Aug + penalty) live and watch drift from E.

Training runs in a worker thread (``lab.dynamics.Trainer.run``) that hands every step's records to the
page through a locked list; a periodic callback on the server's event loop drains it and redraws, so the
page stays responsive.  Stop takes effect at the next mini-batch; closing the browser tab stops the worker.
Finished and stopped runs are saved (``lab.dynamics.store``) and can be reloaded.  No mathematics here.
"""
from __future__ import annotations

import threading
import time

import holoviews as hv
import pandas as pd
import panel as pn
import param

from ..dynamics.experiments import EXPERIMENTS
from ..dynamics.metrics import per_layer
from ..dynamics.store import list_runs, load_run, results_dir, save_run
from ..dynamics.train import DEFAULTS, STRATEGIES, DynamicsConfig, Trainer
from ..errors import LabError
from .worker_pane import WorkerPaneMixin
from ..plots.dynamics_hv import curves_plot, drift_plot

REDRAW_SECONDS = 1.0  # at least this long between redraws, and at least 4x the last redraw's cost


class TrainingDynamics(WorkerPaneMixin, pn.viewable.Viewer):
    experiment = param.Selector(default="perm", objects=list(EXPERIMENTS))
    scale = param.Selector(default="small", objects=["small", "paper"])
    strategies = param.ListSelector(default=["nom", "aug", "equi"], objects=list(STRATEGIES))
    runs = param.Integer(default=5, bounds=(1, 500))
    steps = param.Integer(default=DEFAULTS["perm"]["steps"], bounds=(1, 100_000))
    lr = param.Number(default=DEFAULTS["perm"]["lr"], bounds=(0, None), inclusive_bounds=(False, True))
    aug_passes = param.Integer(default=DEFAULTS["perm"]["aug_passes"], bounds=(1, 10_000))
    exact_orbit = param.Boolean(default=False, doc="average over every group element (small groups only)")
    gamma = param.Number(default=1.0, bounds=(0, None), doc="weight of the penalty γ‖Π_E⊥ A‖²")
    seed = param.Integer(default=0)
    device = param.Selector(default="auto", objects=["auto", "cpu", "cuda"])
    group = param.String(default="S(6)", doc="custom: any real group; trans: a group on the 8 x 8 grid, e.g. "
                         "Trivial(8)*Z(8) for x-shifts only, C4Grid(8), P4Grid(8)")
    rep = param.String(default="V", doc="custom experiment: the input representation")
    log_scale = param.Boolean(default=False, doc="logarithmic y axis on the drift plots")

    def __init__(self, results: str | None = None, **params):
        super().__init__(**params)
        self.results = results_dir(results)
        self._lock = threading.Lock()
        self._pending: list[dict] = []
        self._state: dict = {}
        self._records: list[dict] = []
        self._stop = threading.Event()
        self._pause = threading.Event()
        self.worker: threading.Thread | None = None
        self.trainer: Trainer | None = None
        self._last_draw = 0.0
        self._draw_cost = 0.0
        self._drawn = 0  # records drawn so far
        self._periodic = None
        self._widgets()
        self.param.watch(self._on_experiment, ["experiment"])
        self.param.watch(lambda e: self._pipe is not None and self._redraw(force=True), ["log_scale"])
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.on_session_destroyed(lambda ctx: self.stop(wait=False))
        self._redraw(force=True)

    # ------------------------------------------------------------------ layout
    def _widgets(self):
        p = self.param
        self._start_b = pn.widgets.Button(name="Start", button_type="primary", css_classes=["dyn-start"], width=90)
        self._pause_b = pn.widgets.Button(name="Pause", disabled=True, css_classes=["dyn-pause"], width=90)
        self._stop_b = pn.widgets.Button(name="Stop", button_type="danger", disabled=True, css_classes=["dyn-stop"],
                                         width=90)
        self._start_b.on_click(lambda e: self.start())
        self._pause_b.on_click(lambda e: self.resume() if self._pause.is_set() else self.pause())
        self._stop_b.on_click(lambda e: self.stop(wait=False))
        self._group_w = pn.widgets.TextInput.from_param(p.group, name="Group")
        self._rep_w = pn.widgets.TextInput.from_param(p.rep, name="Input rep")
        self._custom = pn.Column(self._group_w, self._rep_w, visible=self.experiment in ("custom", "trans"))
        self._controls = pn.Column(
            pn.widgets.Select.from_param(p.experiment, name="Experiment", css_classes=["dyn-experiment"]),
            self._custom,
            pn.widgets.RadioButtonGroup.from_param(p.scale, name="Scale"),
            pn.widgets.CheckButtonGroup.from_param(p.strategies, name="Strategies"),
            pn.Row(pn.widgets.IntInput.from_param(p.runs, name="Runs", width=90, css_classes=["dyn-runs"]),
                   pn.widgets.IntInput.from_param(p.steps, name="Steps", width=90, css_classes=["dyn-steps"]),
                   pn.widgets.IntInput.from_param(p.seed, name="Seed", width=90)),
            pn.Row(pn.widgets.FloatInput.from_param(p.lr, name="Learning rate", width=135),
                   pn.widgets.IntInput.from_param(p.aug_passes, name="Aug passes L", width=135)),
            pn.Row(pn.widgets.FloatInput.from_param(p.gamma, name="γ (penalty)", width=135),
                   pn.widgets.Select.from_param(p.device, name="Device", width=135)),
            pn.widgets.Checkbox.from_param(p.exact_orbit, name="Exact orbit averaging"),
            pn.Row(self._start_b, self._pause_b, self._stop_b),
            width=330)
        self._progress = pn.indicators.Progress(value=0, max=100, sizing_mode="stretch_width", bar_color="primary")
        self._status = pn.pane.Markdown("Press **Start** to train.", css_classes=["dyn-status"])
        self._error = pn.pane.Alert("", alert_type="danger", visible=False, css_classes=["dyn-error"])
        self._drift_nom = pn.pane.HoloViews(None, css_classes=["dyn-drift"])
        self._drift_aug = pn.pane.HoloViews(None)
        self._loss = pn.pane.HoloViews(None)
        self._acc = pn.pane.HoloViews(None)
        self._pipe = None
        self._layers = pn.pane.DataFrame(pd.DataFrame(), index=False, sizing_mode="stretch_width",
                                         css_classes=["dyn-layers"])
        self._saved = pn.widgets.Select(name="Saved runs", options=[], width=420)
        self._load_b = pn.widgets.Button(name="Load", width=80)
        self._load_b.on_click(lambda e: self.load(self._saved.value))
        self._refresh_saved()

    def __panel__(self):
        log = pn.widgets.Checkbox.from_param(self.param.log_scale, name="log-scale y")
        main = pn.Column(
            self._error, self._progress, self._status,
            pn.Row(self._drift_nom, self._drift_aug), log,
            pn.Row(self._loss, self._acc),
            pn.pane.Markdown("#### Per layer (medians over runs, latest step)"), self._layers,
            pn.Row(self._saved, self._load_b),
            sizing_mode="stretch_width")
        return pn.Row(self._controls, main, sizing_mode="stretch_width")

    def _on_experiment(self, event):
        d = DEFAULTS[event.new]
        group = {"trans": "Z(8)*Z(8)", "custom": "S(6)"}.get(event.new, self.group)
        self.param.update(steps=d["steps"], lr=d["lr"], aug_passes=d["aug_passes"], group=group)
        self._custom.visible = event.new in ("custom", "trans")
        self._rep_w.visible = event.new == "custom"

    # ------------------------------------------------------------------ control
    @property
    def running(self) -> bool:
        return self.worker is not None and self.worker.is_alive()

    def config(self) -> DynamicsConfig:
        options = ({"group": self.group, "rep": self.rep} if self.experiment == "custom" else
                   {"group": self.group} if self.experiment == "trans" else {})
        return DynamicsConfig(experiment=self.experiment, scale=self.scale, runs=self.runs, steps=self.steps,
                              strategies=tuple(self.strategies), lr=self.lr, seed=self.seed,
                              aug_passes=self.aug_passes, exact_orbit=self.exact_orbit, gamma=self.gamma,
                              device=self.device, options=options)

    def start(self) -> bool:
        """Start training in a worker thread; False (with an inline message) if the settings are bad."""
        if self.running:
            return False
        try:
            config = self.config().validate()
        except LabError as err:
            self._show_error(str(err))
            return False
        self._error.visible = False
        self._plots(list(config.strategies))
        self._stop.clear()
        self._pause.clear()
        self._records, self._pending, self._state = [], [], {"phase": "building"}
        self.trainer = None
        self.worker = threading.Thread(target=self._work, args=(config,), daemon=True, name="training-dynamics")
        self.worker.start()
        self._buttons(running=True)
        self._status.object = f"Building **{config.experiment}** …"
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None and self._periodic is None:
            self._periodic = pn.state.add_periodic_callback(self.poll, period=250)
        return True

    def pause(self):
        if self.running:
            self._pause.set()
            self._pause_b.name = "Resume"

    def resume(self):
        self._pause.clear()
        self._pause_b.name = "Pause"

    def stop(self, wait: bool = True, timeout: float = 10.0):
        """Ask the worker to stop (it finishes its current mini-batch, saves the run and exits)."""
        self._stop.set()
        self._pause.clear()
        if wait and self.worker is not None:
            self.worker.join(timeout)

    # ------------------------------------------------------------------ worker thread
    def _work(self, config: DynamicsConfig):
        try:
            trainer = Trainer(config)
            self.trainer = trainer
            with self._lock:
                self._pending.extend(trainer.records)
                self._state.update(phase="training")
            finished = trainer.run(on_step=self._on_step, stop=self._stop, pause=self._pause)
            status = "finished" if finished else "stopped"
            path = save_run(trainer, self.results, status=status)
            with self._lock:
                self._state.update(phase=status, saved=str(path))
        except LabError as err:
            with self._lock:
                self._state.update(phase="error", error=str(err))
        except Exception as err:  # never a traceback page
            with self._lock:
                self._state.update(phase="error", error=f"unexpected {type(err).__name__}: {err}")

    def _on_step(self, trainer, records):
        with self._lock:
            self._pending.extend(records)

    # ------------------------------------------------------------------ drawing (event loop)
    def poll(self) -> int:
        """Move new records from the worker to the plots; returns how many arrived.  Called periodically
        on the server, directly in scripts and tests."""
        with self._lock:
            new, self._pending = self._pending, []
            state = dict(self._state)
        self._records.extend(new)
        tr = self.trainer
        phase = state.get("phase")
        if phase == "error":
            self._show_error(state["error"])
        if tr is not None:
            self._progress.value = int(100 * tr.step / max(tr.config.steps, 1))
            dead = sum(x is not None for v in tr.diverged_at.values() for x in v)
            text = (f"**{phase}** · step {tr.step}/{tr.config.steps} · {tr.steps_per_second:.2f} steps/s · "
                    f"{tr.R} runs × {len(tr.config.strategies)} strategies · dim E / dim L = {tr.dim_ratio:.4g}")
            if dead:
                text += f" · {dead} run(s) diverged (stopped alone)"
            if state.get("saved"):
                text += f"  \nsaved to `{state['saved']}`"
            self._status.object = text
        if not self.running and phase in ("finished", "stopped", "error"):
            self._buttons(running=False)
            self._refresh_saved()
            if self._periodic is not None:
                self._periodic.stop()
                self._periodic = None
        if new or (not self.running and self._drawn != len(self._records)):
            self._redraw(force=not self.running)  # the last frame is always drawn, whatever the throttle
        return len(new)

    def _plots(self, strategies: list[str]):
        """Fresh plots for a run: DynamicMaps on one Pipe, so streaming updates data in place instead of
        rebuilding Bokeh models (which would hold the GIL long enough to starve the training thread)."""
        self._pipe = hv.streams.Pipe(data=pd.DataFrame())

        def dmap(fn):
            return hv.DynamicMap(fn, streams=[self._pipe])

        self._drift_nom.object = dmap(lambda data: drift_plot(data, "nom", self.log_scale, strategies))
        self._drift_aug.object = dmap(lambda data: drift_plot(data, "aug", self.log_scale, strategies))
        self._loss.object = dmap(lambda data: curves_plot(data, "loss", strategies))
        self._acc.object = dmap(lambda data: curves_plot(data, "accuracy", strategies))

    def _redraw(self, force: bool = False):
        now = time.monotonic()
        if not force and now - self._last_draw < max(REDRAW_SECONDS, 4 * self._draw_cost):
            return
        df = pd.DataFrame(self._records)
        if self._pipe is None:
            self._plots(list(dict.fromkeys(df.strategy)) if not df.empty else list(self.strategies))
        self._pipe.send(df)
        self._layers.object = per_layer(df).round(6) if not df.empty else pd.DataFrame()
        self._last_draw = time.monotonic()
        self._draw_cost = self._last_draw - now
        self._drawn = len(self._records)

    # ------------------------------------------------------------------ saved runs
    def _refresh_saved(self):
        runs = list_runs(self.results)[:50]
        self._saved.options = {p.name: str(p) for p in runs}

    def load(self, path) -> bool:
        if not path:
            return False
        try:
            run = load_run(path)
        except LabError as err:
            self._show_error(str(err))
            return False
        self._error.visible = False
        self._records = run.metrics.to_dict("records")
        self.trainer = None
        self._plots(list(dict.fromkeys(run.metrics.strategy)))
        self._status.object = (f"Loaded `{run.path.name}` ({run.meta['status']}, {run.meta['steps_done']} steps, "
                               f"{run.meta['experiment']['description']})")
        self._redraw(force=True)
        return True
