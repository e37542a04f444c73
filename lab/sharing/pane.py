"""Dashboard pane "Sharing discovery": learn a parameter-sharing matrix A (method 1, the ``sharing`` family) or a
symmetry matrix U (method 2, the ``msr`` family) live.

The task selector covers both families (gaussian / conv / group / sum: ``sharing``; msr: ``msr``); the controls
are built from ``SharingConfig`` and ``MSRConfig``'s declarations.  Start runs the family as a ``lab.jobs.Job``
through a ``JobRunner`` (a worker process by default, a thread as the fallback); the job saves its own copy of
the run.  The pane only draws what the records carry ("task" / "step" for method 1, "layer" / "msr" /
"compare" for method 2): the matrices (bounded pictures: A, W, U) into HoloViews DynamicMaps fed by a Pipe, the
learning curves on the live-pane base (``lab.dashboard.live``: streamed, built once per trial, decimated when
long), with the step the pictures show and the best step (least partition distance) marked.  While a run goes
on, Load and every setting are disabled; loading a run (on the pane's job, status "loading") restores its
settings (only a run listed from the pane's own runs directory).  Method 1 draws the relaxed A (softmax of the logits) next to the snapped 0/1 matrix
the partition distance is computed from (A's argmax per row while it learns; at the end the scored partition,
after the lab's merge pass when ``merge`` is on) and A_gt.  Every callback fails through ``lab.dashboard.guard``:
an inline message, the buttons and status back to idle, no traceback in the server log.  No mathematics here.
"""
from __future__ import annotations


import holoviews as hv
import numpy as np
import pandas as pd
import panel as pn
import param

from ..config import ConfigError
from ..dashboard.compare_runs import RunComparison
from ..dashboard.config_params import add_config_params, config_values
from ..dashboard.guard import guard, guarded
from ..dashboard.job_pane import JobPane, open_saved, worker_param
from ..dashboard.layout import titled
from ..dashboard.runner import WORKER_THREADS
from ..experiments import FAMILIES
from ..jobs import Job
from .family import SharingConfig, list_runs, snapped_matrix, weight_shape
from .family_msr import MSRConfig, run_label
from .pane_pictures import SharingPictures, ShownTrial, _curve_data  # noqa: F401  (tests import ShownTrial here)

#: every task of both families: method 1 (sharing) first, then method 2 (msr)
TASKS = list(SharingConfig.option_named("task").choices) + list(MSRConfig.option_named("task").choices)
#: the settings each task shows (the rest of a config keeps its declared default)
TASK_FIELDS = {"gaussian": ["K", "blocks", "samples", "split", "sigma"], "conv": [],
               "group": ["group", "rep_in", "rep_out"], "sum": ["positions"],
               "msr": ["rank", "kernel", "n_in", "tasks", "sparsity", "lam", "prox", "support", "meta_batch",
                       "outer_lr"]}
METHOD1_FIELDS = ["lr", "restarts", "weight_decay", "entropy", "nuclear", "rank_penalty", "merge",
                  "merge_tolerance"]
COMMON_FIELDS = ["steps", "trials", "seed"]
SHARING_NAMES = [n for t in ("gaussian", "group", "sum") for n in TASK_FIELDS[t]] + METHOD1_FIELDS + COMMON_FIELDS
MSR_NAMES = TASK_FIELDS["msr"]
TASK_DEFAULTS = ("steps", "lr", "restarts", "weight_decay")  # filled from the task when it is chosen
FIRST_TASK = "conv"  # the task the pane opens on: it recovers its sharing exactly within seconds
FRAME_MS = 150  # the runner's drain period: a frame at most this often, when the curves' throttle allows one


def family_of(task: str) -> str:
    return "msr" if task == "msr" else "sharing"


def task_defaults(task: str) -> dict:
    """steps (and for method 1 lr and restarts) as the task's config fills them in."""
    if task == "msr":
        return {"steps": MSRConfig().steps}
    cfg = SharingConfig(task=task).with_defaults()
    return {k: getattr(cfg, k) for k in TASK_DEFAULTS}



class SharingDiscovery(SharingPictures, JobPane):
    family, css, idle = "sharing", "shr", "Press **Start** to learn."
    runner_options = {"period_ms": FRAME_MS}
    task = param.Selector(default=FIRST_TASK, objects=TASKS,
                          doc=SharingConfig.option_named("task").help)
    worker = worker_param("learning")

    def __init__(self, results: str | None = None, **params):
        self._restoring = False
        self._following = False  # the slider is being moved to the newest snapshot (not by a person)
        task = params.get("task", self.param.task.default)
        fill = task_defaults(task)
        super().__init__(results, **{**{k: v for k, v in fill.items() if k not in params}, **params})
        self._saved.param.update(width=420, sizing_mode="fixed")  # in the main area, under the pictures
        self.history: list[dict] = []
        self._trial = None  # ShownTrial: the shown trial's records and best step, kept as the history grows
        self.snapshots: list[np.ndarray] = []
        self.frames: list[float] = []  # redraw times (the benchmark's frames per second)
        self.matrix_frames: list[float] = []  # when the matrices were drawn (monotonic seconds)
        self._view: dict = {}  # what the frames draw: method, gt and shape, or n_out, n_in, U, label
        self._summary: dict = {}
        self._pipe = hv.streams.Pipe(data=None)  # A, implied weights, U: every frame
        self._marks: dict = {}  # per curve plot: the Bokeh marks of the step shown and of the best step
        self._last_matrices = 0.0  # when the matrices were last drawn (``_send``)
        self._matrix_cost = 0.0  # and how long that took
        self._ready()
        self.param.watch(guarded(self, "switching the task")(lambda e: self._on_task(reset=True)), ["task"])
        self._watch_held(["task", *SHARING_NAMES, *MSR_NAMES])
        self._on_task(reset=False)

    # ------------------------------------------------------------------ layout
    def _widgets(self):
        p = self.param

        def num(name, label, w=100):
            return self._number(name, label, width=w)

        def intw(name, label, w=100):
            return self._number(name, label, width=w, css_classes=[f"shr-{name.replace('_', '-')}"])

        def text(name, label, w=100):
            return self._text(name, label, width=w)

        self._opts = {
            "gaussian": pn.Column(pn.Row(intw("K", "K"), intw("blocks", "blocks"), intw("samples", "|D|")),
                                  pn.Row(num("split", "split r"), num("sigma", "noise σ"))),
            "conv": pn.Column(),
            "group": pn.Row(text("group", "Group", 120), text("rep_in", "in", 80), text("rep_out", "out", 80)),
            "sum": pn.Row(intw("positions", "positions")),
            "msr": pn.Column(pn.Row(intw("rank", "rank"), intw("kernel", "filter"), intw("n_in", "inputs")),
                             pn.Row(intw("tasks", "tasks"),
                                    pn.widgets.Select.from_param(p.sparsity, label="Sparsity", width=120),
                                    num("lam", "λ", 90)),
                             pn.Row(pn.widgets.Select.from_param(p.prox, label="prox", width=100),
                                    intw("support", "support", 80), intw("meta_batch", "meta-batch", 90),
                                    num("outer_lr", "outer lr", 90))),
        }
        self._method1 = pn.Column(
            pn.Row(num("entropy", "entropy weight", 140), num("nuclear", "low-rank weight", 140)),
            pn.Row(pn.widgets.Select.from_param(p.rank_penalty, label="low-rank penalty", width=140),
                   num("weight_decay", "weight decay", 140)),
            pn.Row(num("lr", "learning rate", 95), intw("restarts", "restarts", 90)),
            pn.Row(pn.widgets.Checkbox.from_param(p.merge, name="lab's merge pass (not in the poster)", width=180,
                                                  css_classes=["shr-merge"]),
                   num("merge_tolerance", "merge tol.", 90)))
        self._controls = pn.Column(
            pn.widgets.Select.from_param(p.task, label="Task", css_classes=["shr-task"]),
            *self._opts.values(), self._method1,
            pn.Row(intw("steps", "steps"), intw("trials", "trials", 80), intw("seed", "seed", 80)),
            titled(pn.widgets.RadioButtonGroup.from_param(p.worker, label="Run in", css_classes=["shr-worker"]),
                   "Run in"),
            sizing_mode="stretch_width", min_width=300)
        self._picture_widgets()
        self._runs_compare = RunComparison(self, "shr", "sharing-runs")
        self._refresh_saved()

    def _sidebar(self):
        return pn.Column(self._buttons_row, self._controls, sizing_mode="stretch_width")  # Start first: in view

    def _main(self):
        return pn.Column(self._error, self._status, self._m1, self._m2, self._saved_row(),
                         self._runs_compare, sizing_mode="stretch_width")

    def _on_task(self, reset: bool):
        for name, box in self._opts.items():
            box.visible = name == self.task
        self._method1.visible = self.task != "msr"
        if reset and not self._restoring:
            self.param.update(**task_defaults(self.task))
            if not self.runner.busy:  # the run on display was another task's: its pictures go
                self._clear()
        self._m1.visible, self._m2.visible = self.task != "msr", self.task == "msr"

    # ------------------------------------------------------------------ control
    @property
    def running(self) -> bool:
        return self.runner.running

    def config(self):
        """The settings as a ``SharingConfig`` or (task msr) an ``MSRConfig`` (not validated: ``start`` does)."""
        if self.task == "msr":
            return MSRConfig(task="msr", **config_values(self, MSR_NAMES + COMMON_FIELDS))
        return SharingConfig(**SharingConfig.applicable({"task": self.task, **config_values(self, SHARING_NAMES)}))

    def _option(self, name: str):
        """The declaration of field ``name``: the chosen task's config's (``MSRConfig`` for msr)."""
        if self.task == "msr" and name in MSR_NAMES + COMMON_FIELDS:
            return MSRConfig.option_named(name)
        return SharingConfig.option_named(name) if name in SHARING_NAMES else MSRConfig.option_named(name)

    def _field_applies(self, name: str) -> bool:
        """Only the chosen task's boxes are judged (the others are hidden)."""
        if self.task == "msr":
            return name in MSR_NAMES + COMMON_FIELDS
        return name in SharingConfig.applicable({"task": self.task, **{n: None for n in SHARING_NAMES}})

    def _job(self, config) -> Job:
        """Learn the sharing (method 1, the ``sharing`` family) or the symmetry matrix (msr, the ``msr`` family)."""
        return Job(family_of(self.task), config, save_dir=self.results, process=self.worker == "process",
                   threads=WORKER_THREADS)

    def _on_start(self, job, config) -> None:
        self.history, self.snapshots, self._summary, self.frames, self.matrix_frames = [], [], {}, [], []
        self._view = {"method": 2 if self.task == "msr" else 1, "task": self.task}
        if self.task == "msr":  # the run the view ends on (it runs last)
            self._view["chosen"] = run_label("msr", config.sparsity)
        self._compare.object = pd.DataFrame()
        self._m1.visible, self._m2.visible = self.task != "msr", self.task == "msr"
        self._rebuild()
        self._slider.end, self._slider.value = 1, 0
        self._reset_curves()

    @guard("pausing the run")
    def toggle_pause(self):
        self.runner.toggle_pause()

    _toggle_pause = toggle_pause

    # ------------------------------------------------------------------ messages (event loop)
    def _on_record(self, msg: dict):
        kind = msg["kind"]
        if kind == "result":  # method 1: a trial's scored partition (after the merge pass when it is on)
            self._view["final"] = {k: msg[k] for k in ("selection", "merged", "partition_distance")}
            self._dirty = True
        elif kind == "task":  # method 1: a trial's task; the pane shows the latest trial
            self.history, self.snapshots = [], []
            self._view = {"method": 1, "task": msg.get("task", self.task), "trial": msg["trial"],
                          "gt": np.asarray(msg["gt"]), "shape": tuple(msg["shape"])}
            self._rebuild()  # K and W's shape may differ from the last run's (or trial's)
            self._slider.end, self._slider.value = 1, 0
            self._reset_curves()
            self._dirty = True
        elif kind == "step":
            self.history.append(msg["rec"])
            self.snapshots.append(msg["A"])
            self._add_curve_records([msg["rec"]])
            self._dirty = True
        elif kind == "layer":  # method 2
            self._view = {"method": 2, "task": "msr", "n_out": msg["n_out"], "n_in": msg["n_in"],
                          "chosen": self._view.get("chosen")}
            self._rebuild()  # U's picture is sized from the layer
        elif kind == "msr":
            self.history.append(msg["rec"])
            if msg.get("U") is not None:  # a copy: a thread job's U is the learner's live array
                self._view.update(U=np.array(msg["U"], copy=True), label=msg["label"])
            self._dirty = True
        elif kind == "compare":
            self._compare.object = pd.DataFrame(msg["rows"])
        elif kind == "done":
            self._summary = msg.get("summary") or {}
            self._refresh_saved()
            self._dirty = True  # the last frame (``_after_poll``): the curves' finished view and the matrices
        elif kind == "failed":
            self._refresh_saved()
            self._dirty = True  # what it recorded before failing, drawn in full

    def _run_detail(self) -> str:
        """The pane's lines under the runner's status line.  That line already says the trial, the step and (msr)
        which run learns: none of them is repeated here."""
        return self._outcome(live=True)

    # ------------------------------------------------------------------ saved runs
    def _saved_paths(self) -> list:
        """The trained runs only (a run stopped at step 0 has nothing to draw)."""
        return list_runs(self.results, trained_only=True)[:self.saved_listed]

    def _prepare_saved(self):
        return prepare_saved_run

    def _after_end(self, job) -> None:
        """After a job, with the controls given back: a loading job's run restored into the controls and drawn
        (bounded work: its curves arrive built, the matrices are one snapshot's)."""
        prepared, self._loaded = self._loaded, None
        if job.name != "load" or prepared is None:
            return
        run = prepared["run"]
        saved = run.meta.get("config")
        saved = saved if isinstance(saved, dict) else {}
        cfg, problem = self._restore(saved)
        notes = []
        if problem:
            self._show_error(f"{run.path.name}: its settings could not be restored ({problem})")
            notes.append("*the controls do not show this run's settings (they could not be restored)*")
        else:
            notes += self._restore_notes(saved, cfg)
        summary = run.meta.get("summary") or {}
        self._summary = summary
        self.history = prepared["history"]
        self.snapshots = prepared["snapshots"]
        # what the run is comes from its own record, never from the task selector
        task = saved.get("task") if isinstance(saved.get("task"), str) else (
            "msr" if "outer_loss" in run.history.columns else "?")
        if task == "msr":
            self._load_method2(summary, prepared.get("U"))
        elif "ground_truth" in summary:
            self._load_method1(summary, cfg, task)
        else:  # stopped before its first trial ended: its settings and curves, no matrices
            self._view = {"method": 1, "task": task, "shape": tuple(summary.get("shape") or (1, 1))}
            self._m1.visible, self._m2.visible = True, False
            self._rebuild()  # placeholders: no A_gt, an empty W
            self._slider.end, self._slider.value = 1, 0
        for name, data in prepared["curves"].items():
            self.curves[name].load(data)
        self._send(frame=False)
        status = run.meta.get("status", "?")
        self._status.object = "  \n".join([f"Loaded `{run.path.name}` ({status})", self._label(saved),
                                           self._outcome(), *notes])
        self._loaded_ok = True

    def _restore_notes(self, saved: dict, cfg) -> list[str]:
        """After ``_restore``: hold the controls of the run's task that it did not record (shown at their
        defaults) and say so; name the settings it has that no control shows, where Start would differ."""
        shown = MSR_NAMES + COMMON_FIELDS if cfg.task == "msr" else (
            TASK_FIELDS[cfg.task] + METHOD1_FIELDS + COMMON_FIELDS)
        held = self._hold_unrecorded([n for n in ["task", *shown] if n not in saved])
        hidden = [o.name for o in type(cfg).declarations()
                  if o.name not in shown and o.name != "task" and o.name in saved and (o.only is None or
                                                                                       cfg.task in o.only)]
        return self._unrecorded_note(held.values()) + self._unshown_note(saved, hidden)

    def _load_method1(self, summary: dict, cfg, task: str):
        gt = np.asarray(summary["ground_truth"])
        shape = summary.get("shape")
        if shape is None:  # runs saved before the shape was: the task's weight shape
            shape = weight_shape(cfg) if cfg is not None else (1, gt.size)
        self._view = {"method": 1, "task": task, "gt": gt, "shape": tuple(shape)}
        self._m1.visible, self._m2.visible = True, False
        self._rebuild()
        if self.snapshots and summary.get("labels") is not None:  # the scored partition of the last trial
            labels = np.asarray(summary["labels"])
            self._view["final"] = {"selection": snapped_matrix(self.snapshots[-1], labels),
                                   "merged": bool(summary.get("merged", False)),
                                   "partition_distance": summary.get("scored_partition_distance",
                                                                     summary.get("partition_distance"))}
        if self.snapshots:
            self._slider.end = max(len(self.snapshots) - 1, 1)
            self._slider.value = len(self.snapshots) - 1

    def _load_method2(self, summary: dict, U=None):
        n_out, n_in = summary.get("shape") or (1, 1)
        self._view = {"method": 2, "task": "msr", "n_out": n_out, "n_in": n_in}
        if U is not None:  # the chosen run's U, saved with the run
            self._view.update(U=U, label=summary.get("U_label") or summary.get("chosen") or "msr",
                              chosen=summary.get("U_label") or summary.get("chosen"))
        self._rebuild()  # U's pictures follow this view (sized from its layer)
        self._m1.visible, self._m2.visible = False, True
        self._compare.object = pd.DataFrame(summary.get("comparison") or [])

    def _restore(self, saved: dict):
        """Set the controls from a saved config dict; returns (config or None, what went wrong or "")."""
        cls = MSRConfig if saved.get("task") == "msr" else SharingConfig
        known = {k: v for k, v in saved.items() if k in cls.__dataclass_fields__}
        try:
            cfg = cls.from_dict(known, where="saved settings")
        except ConfigError as err:
            return None, str(err)
        if cls is SharingConfig:
            cfg = cfg.with_defaults()
        names = MSR_NAMES + COMMON_FIELDS if cls is MSRConfig else SHARING_NAMES
        values = {n: getattr(cfg, n) for n in names}
        self._restoring = True
        try:
            self.task = cfg.task
            self.param.update(**values)
        finally:
            self._restoring = False
        self._on_task(reset=False)
        return cfg, ""

    @staticmethod
    def _label(c: dict) -> str:
        """The saved run's own settings, in one line."""
        task = c.get("task", "?")
        keys = (TASK_FIELDS.get(task, []) + (METHOD1_FIELDS if task != "msr" else []) + COMMON_FIELDS)
        return f"**{task}** · " + " · ".join(f"{k} {c[k]}" for k in keys if c.get(k) is not None)


add_config_params(SharingDiscovery, SharingConfig, SHARING_NAMES, task_defaults(FIRST_TASK))
add_config_params(SharingDiscovery, MSRConfig, MSR_NAMES)


def prepare_saved_run(path, results, progress=None, control=None) -> dict:
    """Off the event loop (the pane's loading job): read a saved run and build its curves and records (the event
    loop only draws them).  A run whose files are larger than the ``run_bytes`` limit is refused in one line
    before it is read."""
    # method 2 runs live in the same store
    run = open_saved(path, lambda: FAMILIES["sharing"].load(path, root=results), progress, control, steps=2)
    if progress is not None:
        progress({"kind": "progress", "message": f"building the curves of {len(run.history):,} steps", "done": 1,
                  "total": 2})
    U = getattr(run, "U", None)
    snapshots = list(run.snapshots) if run.snapshots is not None else []
    return {"run": run, "curves": _curve_data(run.history), "U": U, "history": run.history.to_dict("records"),
            "snapshots": snapshots}
