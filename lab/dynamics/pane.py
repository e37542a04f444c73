"""Dashboard pane "Training dynamics": train Nom / Aug / Equi (/ Aug + penalty / RPP) live and watch drift from E.

Start runs the ``dynamics`` experiment family (``lab.dynamics.family``) as a ``lab.jobs.Job`` through a
``JobRunner``: by default in a worker process, so training never competes with drawing for the server's GIL
(a thread is the fallback, ``worker="thread"``).  The pane only draws what the job's "started" and "records"
messages carry; the job saves its own copy of the run (finished or stopped) and the pane lists it.  While a
run goes on, Load and every setting are disabled.  Loading a saved run (only one listed from the pane's own
runs directory) restores its settings into the controls.  The controls are built from ``DynamicsConfig``'s
declarations.  Every callback fails through ``lab.dashboard.guard``: an inline message, the buttons and status
back to idle, no traceback in the server log.  No mathematics here: the run sends each strategy's equivariance
audit (``lab.dynamics.audit``, ``lab.equivariance`` of every run's model under the experiment's group) at step 0, now
and then while it trains, and at its last step, and its summary (finished or stopped) carries the last one: drawn
as the small audit table below the per-layer one (``lab.dynamics.family.audit_table``), its heading naming
the step; a loaded run shows its saved summary's (— for runs saved before the audit).
"""
from __future__ import annotations


import pandas as pd
import panel as pn
import param

from ..config import ConfigError
from ..device import DEVICES
from ..errors import LabError
from ..experiments import FAMILIES
from .family import DynamicsConfig, audit_table, default_group, default_rep, list_runs, per_layer
from ..groups import parse_group
from ..jobs import Job
from ..plots.style import AXES, COLOURS, LABELS
from ..reps import parse_rep
from ..dashboard.compare_runs import RunComparison
from ..dashboard.config_params import add_config_params, config_values
from ..dashboard.guard import guard, guard_settings, guarded
from ..dashboard.job_pane import JobPane, open_saved, worker_param
from ..dashboard.layout import titled
from ..dashboard.live import LiveData, LivePlot, LiveView

#: the config fields the pane shows (every declared one meant for the dashboard)
CONFIG_NAMES = [o.name for o in DynamicsConfig.declarations() if o.ui]
#: settings the experiment fills in when left empty: the pane shows the experiment's values
EXPERIMENT_DEFAULTS = ("steps", "lr", "aug_passes", "runs")
#: least time between redraws, per worker mode (0: every tick of the runner, 5 a second).  A worker thread shares
#: the GIL with drawing: with the HoloViews frames (170 ms) redrawing every tick slowed its training 10x, so it
#: drew once a second; a streamed frame costs about 15 ms, and ``bench/dashboard.py --part training`` measured
#: the same slowdown drawing every tick as once a second.  The live-pane base also keeps drawing under its share
#: of the event loop (``lab.dashboard.live.DRAW_SHARE``)
REDRAW_SECONDS = {"process": 0.0, "thread": 0.0}
#: the live plots: the paper's figure 1 twice (scaled to Nom, zoomed to Aug; every run faint, the median bold),
#: and the median loss and accuracy against the step
PLOTS = (
    LivePlot("drift-nom", y="dist_from_E", x="dist_from_init", title="drift from E — scaled to Nom",
             xlabel=AXES["dist_from_init"], ylabel=AXES["dist_from_E"], runs=True, legend=True, height=340,
             x_limit=True, y_limit="nom"),
    LivePlot("drift-aug", y="dist_from_E", x="dist_from_init", title="drift from E — zoomed to Aug",
             xlabel=AXES["dist_from_init"], ylabel=AXES["dist_from_E"], runs=True, legend=True, height=340,
             x_limit=True, y_limit="aug"),
    LivePlot("loss", y="loss", title="loss (median over runs)", xlabel="step", ylabel="loss"),
    LivePlot("accuracy", y="accuracy", title="accuracy (median over runs)", xlabel="step", ylabel="accuracy"),
)


def experiment_defaults(experiment: str, scale: str = "small") -> dict:
    """steps, lr, aug_passes and runs of an experiment at a scale, as its config fills them in (the paper's
    values at paper scale: ``lab.tasks.nordenfors_paper``)."""
    cfg = DynamicsConfig(experiment=experiment, scale=scale).validate()
    return {k: getattr(cfg, k) for k in EXPERIMENT_DEFAULTS}


class TrainingDynamics(JobPane):
    family, css, config_names, idle = "dynamics", "dyn", CONFIG_NAMES, "Press **Start** to train."
    worker = worker_param("training")
    log_scale = param.Boolean(default=False, doc="logarithmic y axis on the drift plots")

    def __init__(self, results: str | None = None, **params):
        self._restoring = False
        exp = params.get("experiment", self.param.experiment.default)
        fill = {**experiment_defaults(exp, params.get("scale", self.param.scale.default)), "group": default_group(exp), "rep": default_rep(exp)}
        super().__init__(results, **{**{k: v for k, v in fill.items() if k not in params}, **params})
        self._saved.param.update(width=420, sizing_mode="fixed")  # in the main area, under the tables
        self._latest: list[dict] = []  # the latest step's records: the per-layer table
        self._info: dict = {}  # the "started" message and the latest step's numbers
        self._plot_strategies: list[str] = list(self.strategies)
        self._mode = self.worker  # the worker mode of the run shown
        self._ready()
        self._show_audit(None)
        self.param.watch(guarded(self, "switching the experiment")(self._on_experiment), ["experiment"])
        self.param.watch(guarded(self, "switching the scale")(self._on_scale), ["scale"])
        self.param.watch(guarded(self, "checking the group and rep")(self._show_box_error), ["group", "rep"])
        self.param.watch(guarded(self, "redrawing")(lambda e: self._set_log(e.new)), ["log_scale"])
        self._watch_held(CONFIG_NAMES)
        self._redraw()

    # ------------------------------------------------------------------ layout
    def _widgets(self):
        p = self.param
        self._group_w = self._text("group", "Group", css_classes=["dyn-group"])
        self._rep_w = self._text("rep", "Input rep")
        # a custom group or rep is checked as it is typed, the message naming its box (not only after Start)
        self._box_note = pn.pane.Alert("", alert_type="warning", visible=False, css_classes=["dyn-box-error"],
                                       margin=(0, 10))
        self._custom = pn.Column(self._group_w, self._rep_w, self._box_note)
        self._show_custom()
        self._controls = pn.Column(
            pn.widgets.Select.from_param(p.experiment, label="Experiment", css_classes=["dyn-experiment"]),
            self._custom,
            titled(pn.widgets.RadioButtonGroup.from_param(p.scale, label="Scale"), "Scale"),
            titled(pn.widgets.CheckButtonGroup.from_param(p.strategies, label="Strategies", css_classes=["dyn-strategies"],
                                                          options={LABELS[s]: s for s in p.strategies.objects}),
                   "Strategies (trained side by side)"),
            pn.Row(self._number("runs", "Runs", width=90, css_classes=["dyn-runs"]),
                   self._number("steps", "Steps", width=90, css_classes=["dyn-steps"]),
                   self._number("seed", "Seed", width=90, css_classes=["dyn-seed"])),
            pn.Row(self._number("lr", "Learning rate", width=135),
                   self._number("aug_passes", "Aug passes L", width=135)),
            pn.Row(self._number("gamma", "γ (penalty)", width=135),
                   pn.widgets.Select.from_param(p.device, label="Device", options=list(DEVICES), width=135)),
            pn.Row(self._number("rpp_prior_eq", "RPP σ²_eq", width=135),
                   self._number("rpp_prior_free", "RPP σ²_free", width=135)),
            pn.widgets.Checkbox.from_param(p.exact_orbit, label="Exact orbit averaging"),
            titled(pn.widgets.RadioButtonGroup.from_param(p.worker, label="Run in", css_classes=["dyn-worker"]),
                   "Run in"),
            sizing_mode="stretch_width", min_width=300)
        self.live = LiveView(PLOTS, group="strategy", run="run", colours=COLOURS, labels=LABELS,
                             min_interval=REDRAW_SECONDS[self.worker])
        self.live.panes["drift-nom"].css_classes = ["dyn-drift", "live-drift-nom"]
        self._live_note = pn.pane.Markdown("", visible=False, css_classes=["dyn-live-note"])
        self._layers = pn.pane.DataFrame(pd.DataFrame(), index=False, sizing_mode="stretch_width",
                                         css_classes=["dyn-layers"])
        self._audit = pn.pane.DataFrame(pd.DataFrame(), index=False, sizing_mode="stretch_width",
                                        css_classes=["dyn-audit"])
        self._audit_head = pn.pane.Markdown("", css_classes=["dyn-audit-head"])
        self._runs_compare = RunComparison(self, "dyn", "training-dynamics-runs")
        self._refresh_saved()  # the comparison lists them too

    def _sidebar(self):
        return pn.Column(self._buttons_row, self._controls, sizing_mode="stretch_width")  # Start first: in view

    def _main(self):
        log = pn.widgets.Checkbox.from_param(self.param.log_scale, label="log-scale y")
        guard_settings(self, log)
        return pn.Column(
            self._error, self._progress, self._status,
            pn.Row(self.live.panes["drift-nom"], self.live.panes["drift-aug"], sizing_mode="stretch_width"), log,
            pn.Row(self.live.panes["loss"], self.live.panes["accuracy"], sizing_mode="stretch_width"),
            self._live_note,
            pn.pane.Markdown("#### Per layer (medians over runs, latest step)"), self._layers,
            self._audit_head, self._audit,
            self._saved_row(), self._runs_compare,
            sizing_mode="stretch_width")

    def _show_custom(self):
        self._custom.visible = self.experiment in ("custom", "trans")
        self._rep_w.visible = self.experiment == "custom"
        self._show_box_error()

    def _box_error(self) -> str | None:
        """The Group and Input rep boxes parsed as the run will parse them: the first refusal, naming its box."""
        boxes = []
        if self.experiment in ("custom", "trans") and (self.group or "").strip():
            boxes.append(("Group", lambda: parse_group(self.group.strip())))
        if self.experiment == "custom" and (self.rep or "").strip():
            boxes.append(("Input rep", lambda: parse_rep(self.rep.strip())))
        for label, parse in boxes:
            try:
                parse()
            except LabError as err:
                return f"{label} box: {err}"
        return None

    def _show_box_error(self, *events):
        message = self._box_error()
        self._box_note.object = message or ""
        self._box_note.visible = message is not None

    def _on_experiment(self, event):
        if self._restoring:  # a loaded run brings its own values
            return
        self.param.update(**experiment_defaults(event.new, self.scale), group=default_group(event.new),
                          rep=default_rep(event.new))
        self._show_custom()

    def _on_scale(self, event):
        if self._restoring:  # a loaded run brings its own values
            return
        self.param.update(**experiment_defaults(self.experiment, event.new))

    # ------------------------------------------------------------------ control
    @property
    def running(self) -> bool:
        return self.runner.running

    @property
    def step(self) -> int:
        """The latest step drawn (0 before the first)."""
        return int(self._info.get("step", 0))

    def config(self) -> DynamicsConfig:
        """The settings as a ``DynamicsConfig`` (not validated: ``start`` does that)."""
        values = config_values(self, CONFIG_NAMES)
        for key in ("group", "rep"):
            values[key] = (values[key] or "").strip() or None
        if self.experiment not in ("custom", "trans"):
            values["group"] = None
        if self.experiment != "custom":
            values["rep"] = None
        return DynamicsConfig(**values)

    def _job(self, config) -> Job:
        """Train every strategy side by side."""
        return self._family_job(config)

    def _on_start(self, job, config) -> None:
        self._info = {"experiment": config.experiment, "mode": self.worker}
        self._mode = self.worker
        self.live.min_interval = REDRAW_SECONDS[self.worker]
        self._plot_strategies = list(config.strategies)
        self._set_records([])
        self._show_audit(None)
        self._live_note.visible = False

    @guard("pausing the run")
    def pause(self):
        self.runner.pause()

    @guard("resuming the run")
    def resume(self):
        self.runner.resume()

    # ------------------------------------------------------------------ messages (event loop)
    def _on_record(self, msg: dict):
        kind = msg["kind"]
        if kind == "started":
            self._info.update({k: msg[k] for k in ("runs", "strategies", "steps", "dim_ratio", "device",
                                                   "experiment")})
            if list(msg["strategies"]) != self._plot_strategies or len(self.live.data):
                self._plot_strategies = list(msg["strategies"])
                self._set_records(list(msg["records"]))
            else:  # the figures start() built are this run's: no second build
                self._add_records(list(msg["records"]))
            self._dirty = True
        elif kind == "audit":
            self._show_audit(msg["audit"], msg["step"])
        elif kind == "records":
            self._add_records(msg["records"])
            self._info.update(step=msg["step"], diverged=msg["diverged"])
            self._dirty = True
        elif kind in ("done", "failed"):
            self._refresh_saved()
            if kind == "done" and msg.get("summary"):
                self._show_audit(msg["summary"], self.step)
            self._dirty = True

    def _after_poll(self, count: int):
        ended = self.runner.settled
        if self._dirty and (ended or self.live.draw_due()):
            self._redraw(final=ended)  # the last frame is always drawn, whatever the throttle

    def _run_detail(self) -> str:
        i = self._info
        state = self.runner.state
        if "runs" not in i:
            return f"building **{i.get('experiment', '')}** …" if state in ("building", "paused") else ""
        verb = {"training": "training", "building": "training", "paused": "paused training",
                "stopped": "stopped training", "failed": "failed training"}.get(state, "trained")
        runs, k = i["runs"], len(i["strategies"])
        text = (f"{verb} {runs} run{'s' * (runs != 1)} × {k} strateg{'ies' if k != 1 else 'y'} on {i['device']} · "
                f"dim E / dim L = {i['dim_ratio']:.4g}")
        if i.get("diverged"):
            text += f" · {i['diverged']} run(s) diverged (stopped alone)"
        return text + f"  \n{i['experiment']}"

    # ------------------------------------------------------------------ drawing (the live-pane base)
    def _drawn(self, records) -> list[dict]:
        """The rows the live plots draw: the "total" layer of every run that has not diverged."""
        return [r for r in records if r["layer"] == "total" and not r.get("diverged")]

    def _set_records(self, records: list[dict]):
        self._latest = []
        self._steps_seen = 0
        self.live.reset(list(self._plot_strategies))
        self._add_records(records)

    def _add_records(self, records: list[dict]):
        """Records of one or more steps (every strategy, run and layer)."""
        if not records:
            return
        self.live.add(self._drawn(records))
        last = max(r["step"] for r in records)
        self._latest = [r for r in records if r["step"] == last]

    def _redraw(self, final: bool | None = None):
        """One frame: the new points streamed into the plots (``final``: the finished view, decimated once)."""
        final = not self.runner.running if final is None else final
        self.live.draw(final=final)
        self._layers.object = per_layer(self._latest).round(6) if self._latest else pd.DataFrame()
        self._dirty = False
        if final and self.live.note:
            self._live_note.object = f"*{self.live.note}*"
        self._live_note.visible = bool(final and self.live.note)

    def _show_audit(self, summary: dict | None, step: int | None = None) -> None:
        """The audit table (``audit_table`` of a summary or a live audit record; empty without one), strategies by
        their labels, under a heading naming its step."""
        table = audit_table(summary)
        table["strategy"] = [LABELS.get(s, s) for s in table["strategy"]]
        self._audit.object = table
        at = f" at step {step}" if step is not None and len(table) else ""
        self._audit_head.object = (f"#### Equivariance audit{at} (lab.equivariance of every run's model under the "
                                   f"experiment's group; ✓ every run within the dtype's tolerance)")

    def _set_log(self, on: bool) -> None:
        """The drift plots' y axis logarithmic or linear (their figures are rebuilt once, with every point)."""
        self.live.set_logy(None, on)

    @property
    def frames(self) -> list[float]:
        """When each frame was drawn (the benchmark's redraws per second)."""
        return self.live.frames

    # ------------------------------------------------------------------ saved runs
    def _saved_paths(self) -> list:
        """The trained runs only (a run stopped at step 0 has nothing to draw)."""
        return list_runs(self.results, trained_only=True)[:self.saved_listed]

    def _prepare_saved(self):
        return prepare_saved_run

    def _draw_loaded(self, prepared: dict) -> None:
        """On the event loop: the loading job's curves drawn (bounded work: they arrive decimated).  The settings
        are restored once the runner has given the controls back (``_after_end``)."""
        self._info = {}
        self._latest = prepared["latest"]
        self._plot_strategies = list(prepared["data"].groups)
        meta = prepared["run"].meta
        summary = meta.get("summary")
        self._show_audit(summary if isinstance(summary, dict) else None, meta.get("steps_done"))
        self.live.load(prepared["data"])
        self._redraw(final=True)
        self._loaded = prepared

    _on_loaded = _draw_loaded  # the curves are drawn as soon as they arrive

    def _after_end(self, job) -> None:
        """After a loading job, with the controls unlocked: the run's settings restored and the status line."""
        prepared, self._loaded = self._loaded, None
        if job.name != "load" or prepared is None:
            return
        run = prepared["run"]
        saved = run.meta.get("config")
        problem = self._restore(saved)
        notes = []
        if problem:
            self._show_error(f"{run.path.name}: its settings could not be restored ({problem}); its curves are "
                             f"shown")
            notes.append("*the controls do not show this run's settings (they could not be restored)*")
        else:
            notes += self._restore_notes(saved)
        meta = run.meta
        self._progress.value = 0
        self._status.object = "  \n".join([f"Loaded `{run.path.name}` ({meta.get('status', '?')}, "
                                           f"{meta.get('steps_done', '?')} steps)", self._label(meta), *notes])
        self._loaded_ok = True

    def _restore_notes(self, saved: dict) -> list[str]:
        """After ``_restore``: hold the controls the run did not record (or whose value no control can show) and
        say so; name the settings the run has that no control shows, where the pane's Start would differ."""
        unrecorded = [n for n in CONFIG_NAMES if n not in saved]
        unshown = ["device"] if "device" in saved and saved["device"] not in DEVICES else []
        held = self._hold_unrecorded(unrecorded + unshown)
        notes = self._unrecorded_note(held[n] for n in unrecorded if n in held)
        if any(n in held for n in unshown):
            notes.append(f"{held['device']} {saved['device']} cannot be shown by its control (disabled until you "
                         f"change a setting)")
        hidden = [o.name for o in DynamicsConfig.declarations() if not o.ui and o.name in saved]
        notes += self._unshown_note(saved, hidden)
        return notes

    def _restore(self, saved) -> str:
        """Set the controls from a saved config dict; returns what went wrong ("" when nothing did)."""
        if not isinstance(saved, dict):
            return "no settings saved"
        known = {f: v for f, v in saved.items() if f in DynamicsConfig.__dataclass_fields__}
        try:
            cfg = DynamicsConfig.from_dict(known, where="saved settings")
        except ConfigError as err:
            return str(err)
        values = {name: getattr(cfg, name) for name in CONFIG_NAMES}
        values["strategies"] = list(values["strategies"])
        values["group"] = values["group"] or cfg.options.get("group") or default_group(cfg.experiment)
        values["rep"] = values["rep"] or cfg.options.get("rep") or default_rep(cfg.experiment)
        self._restore_values(values)
        self._show_custom()
        return ""

    @staticmethod
    def _label(meta: dict) -> str:
        """The saved run's own settings, in one line."""
        c = meta.get("config") or {}
        exp = (meta.get("experiment") or {}).get("description", "")
        parts = [f"**{c.get('experiment', '?')}** ({c.get('scale', '?')})", f"{c.get('runs', '?')} runs",
                 f"{c.get('steps', '?')} steps", ", ".join(c.get("strategies") or []), f"lr {c.get('lr', '?')}",
                 f"L {c.get('aug_passes', '?')}", f"seed {c.get('seed', '?')}"]
        if c.get("options"):
            parts.append(", ".join(f"{k} {v}" for k, v in c["options"].items()))
        return " · ".join(parts) + (f"  \n{exp}" if exp else "")


def prepare_saved_run(path, results, progress=None, control=None) -> dict:
    """Off the event loop (the pane's loading job): read a saved run and build its curves' data.  A run whose
    metrics are larger than ``limits.LOAD_BYTES`` is refused in one line before it is read."""
    run = open_saved(path, lambda: FAMILIES["dynamics"].load(path, root=results), progress, control, steps=2)
    df = run.metrics
    last = df.step.max() if not df.empty else None
    latest = df[df.step == last].to_dict("records") if last is not None else []
    if progress is not None:
        progress({"kind": "progress", "message": f"building the curves of {len(df):,} rows", "done": 1, "total": 2})
    drawn = df[(df.layer == "total") & ~df.diverged.astype(bool)] if not df.empty else df
    data = LiveData.from_frame(drawn, [c for c in ("dist_from_init", "dist_from_E", "loss", "accuracy")],
                               groups=list(dict.fromkeys(df.strategy)) if not df.empty else [])
    return {"run": run, "data": data, "latest": latest}


add_config_params(TrainingDynamics, DynamicsConfig, CONFIG_NAMES,
                  {**experiment_defaults(DynamicsConfig.option_named("experiment").default), "group": "", "rep": ""})
