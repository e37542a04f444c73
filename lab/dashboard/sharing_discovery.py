"""Dashboard pane "Sharing discovery": learn a parameter-sharing matrix A (method 1, the ``sharing`` family) or a
symmetry matrix U (method 2, the ``msr`` family) live.

The task selector covers both families (gaussian / conv / group / sum: ``sharing``; msr: ``msr``); the controls
are built from ``SharingConfig`` and ``MSRConfig``'s declarations.  Start runs the family as a ``lab.jobs.Job``
through a ``JobRunner`` (a worker process by default, a thread as the fallback); the job saves its own copy of
the run.  The pane only draws what the records carry ("task" / "step" for method 1, "layer" / "msr" /
"compare" for method 2) into HoloViews DynamicMaps fed by Pipes, so frames update data in place.  While a run
goes on, Load and every setting are disabled; loading a run restores its settings (only a run listed from the
pane's own runs directory).  Method 1 draws the relaxed A (softmax of the logits) next to the snapped 0/1 matrix
the partition distance is computed from (A's argmax per row while it learns; at the end the scored partition,
after the lab's merge pass when ``merge`` is on) and A_gt.  Every callback fails through ``lab.dashboard.guard``:
an inline message, the buttons and status back to idle, no traceback in the server log.  No mathematics here.
"""
from __future__ import annotations

import time

import holoviews as hv
import numpy as np
import pandas as pd
import panel as pn
import param

from ..config import ConfigError
from ..experiments.msr import MSRConfig
from ..experiments import FAMILIES
from ..experiments.sharing import SharingConfig, make_task
from ..jobs import Job
from ..plots.sharing_hv import (a_heatmap, gt_heatmap, loss_curves, penalty_curves, u_histogram, u_picture,
                                 weights_coloring)
from ..sharing.partition import snapped_matrix
from ..sharing.store import list_sharing, sharing_dir
from ..sharing.tasks import weight_shape
from .compare_runs import RunComparison
from .config_params import add_config_params, config_values
from .guard import guard, guard_settings, guarded
from .layout import SidebarPane
from .runner import WORKER_THREADS, JobRunner
from .worker_pane import WorkerPaneMixin

#: every task of both families: method 1 (sharing) first, then method 2 (msr)
TASKS = list(SharingConfig.option_named("task").choices) + list(MSRConfig.option_named("task").choices)
#: the settings each task shows (the rest of a config keeps its declared default)
TASK_FIELDS = {"gaussian": ["K", "blocks", "samples", "split", "sigma"], "conv": [],
               "group": ["group", "rep_in", "rep_out"], "sum": ["positions"],
               "msr": ["rank", "kernel", "n_in", "tasks", "sparsity", "lam"]}
METHOD1_FIELDS = ["lr", "restarts", "weight_decay", "entropy", "nuclear", "rank_penalty", "merge",
                  "merge_tolerance"]
COMMON_FIELDS = ["steps", "trials", "seed"]
SHARING_NAMES = [n for t in ("gaussian", "group", "sum") for n in TASK_FIELDS[t]] + METHOD1_FIELDS + COMMON_FIELDS
MSR_NAMES = TASK_FIELDS["msr"]
TASK_DEFAULTS = ("steps", "lr", "restarts", "weight_decay")  # filled from the task when it is chosen
FIRST_TASK = "conv"  # the task the pane opens on: it recovers its sharing exactly within seconds
FRAME_MS = 150  # the runner's drain-and-draw period: A, the weights and U every frame
CURVE_SECONDS = 0.6  # the learning curves redraw at most this often


def family_of(task: str) -> str:
    return "msr" if task == "msr" else "sharing"


def task_defaults(task: str) -> dict:
    """steps (and for method 1 lr and restarts) as the task's config fills them in."""
    if task == "msr":
        return {"steps": MSRConfig().steps}
    cfg = SharingConfig(task=task).with_defaults()
    return {k: getattr(cfg, k) for k in TASK_DEFAULTS}


class SharingDiscovery(SidebarPane, WorkerPaneMixin, pn.viewable.Viewer):
    task = param.Selector(default=FIRST_TASK, objects=TASKS,
                          doc=SharingConfig.option_named("task").help)
    worker = param.Selector(default="process", objects=["process", "thread"],
                            doc="where learning runs: a worker process (the event loop stays free) or a thread")

    def __init__(self, results: str | None = None, **params):
        self._restoring = False
        task = params.get("task", self.param.task.default)
        fill = task_defaults(task)
        super().__init__(**{**{k: v for k, v in fill.items() if k not in params}, **params})
        self.results = sharing_dir(results)
        self.history: list[dict] = []
        self.snapshots: list[np.ndarray] = []
        self.frames: list[float] = []  # redraw times (the benchmark's frames per second)
        self._view: dict = {}  # what the frames draw: method, gt and shape, or n_out, n_in, U, label
        self._summary: dict = {}
        self._dirty = False
        self._pipe = hv.streams.Pipe(data=None)  # A, implied weights, U: every frame
        self._slow_pipe = hv.streams.Pipe(data=None)  # learning curves: at most every CURVE_SECONDS
        self._last_curves = 0.0
        self._widgets()
        self.runner = JobRunner(self._on_message, start=self._start_b, pause=self._pause_b, stop=self._stop_b,
                                lock=[self._controls, self._load_b, self._saved], status=self._status,
                                error=self._error, detail=self._detail, period_ms=FRAME_MS,
                                after_poll=self._after_poll)
        self.param.watch(guarded(self, "switching the task")(lambda e: self._on_task(reset=True)), ["task"])
        guard_settings(self, self._controls)
        self._watch_settings()
        self._watch_load()
        self._watch_held(["task", *SHARING_NAMES, *MSR_NAMES])
        self._on_task(reset=False)

    # ------------------------------------------------------------------ layout
    def _widgets(self):
        p = self.param

        def num(name, label, w=100):
            return pn.widgets.FloatInput.from_param(getattr(p, name), label=label, width=w)

        def intw(name, label, w=100):
            return pn.widgets.IntInput.from_param(getattr(p, name), label=label, width=w)

        def text(name, label, w=100):
            return pn.widgets.TextInput.from_param(getattr(p, name), label=label, width=w)

        self._start_b = pn.widgets.Button(label="Start", color="primary", width=90, css_classes=["shr-start"])
        self._pause_b = pn.widgets.Button(label="Pause", width=90, disabled=True, css_classes=["shr-pause"])
        self._stop_b = pn.widgets.Button(label="Stop", color="danger", width=90, disabled=True,
                                         css_classes=["shr-stop"])
        self._start_b.on_click(lambda e: self.start())
        self._opts = {
            "gaussian": pn.Column(pn.Row(intw("K", "K"), intw("blocks", "blocks"), intw("samples", "|D|")),
                                  pn.Row(num("split", "split r"), num("sigma", "noise σ"))),
            "conv": pn.Column(),
            "group": pn.Row(text("group", "Group", 120), text("rep_in", "in", 80), text("rep_out", "out", 80)),
            "sum": pn.Row(intw("positions", "positions")),
            "msr": pn.Column(pn.Row(intw("rank", "rank"), intw("kernel", "filter"), intw("n_in", "inputs")),
                             pn.Row(intw("tasks", "tasks"),
                                    pn.widgets.Select.from_param(p.sparsity, label="Sparsity", width=120),
                                    num("lam", "λ", 90))),
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
            pn.widgets.RadioButtonGroup.from_param(p.worker, label="Run in", css_classes=["shr-worker"]),
            sizing_mode="stretch_width", min_width=300)
        self._buttons_row = pn.Row(self._start_b, self._pause_b, self._stop_b)
        self._status = pn.pane.Markdown("Press **Start** to learn.", css_classes=["shr-status"])
        self._error = pn.pane.Alert("", alert_type="danger", visible=False, css_classes=["shr-error"])
        self._gt_pane = pn.pane.HoloViews(self._draw_gt(None))  # static: redrawn only when a task arrives
        self._w_pane = pn.pane.HoloViews(None, css_classes=["shr-weights"])
        self._w_dmap((1, 1))
        self._slider = pn.widgets.IntSlider(label="history (snapshot)", start=0, end=1, value=0, width=420)
        self._slider.param.watch(guarded(self, "scrubbing the history")(lambda e: self._send(frame=False)), "value")
        self._m1 = pn.Column(
            pn.FlexBox(pn.pane.HoloViews(hv.DynamicMap(self._draw_a, streams=[self._pipe])),
                   pn.pane.HoloViews(hv.DynamicMap(self._draw_snapped, streams=[self._pipe]),
                                     css_classes=["shr-snapped"]),
                   self._gt_pane, sizing_mode="stretch_width"),
            pn.FlexBox(self._w_pane,
                   pn.Column(self._slider, pn.pane.Markdown(
                       "Rows of A are weight entries, columns shared parameters, both ordered by the true blocks "
                       "they are matched to. Left: the relaxed A (softmax of the logits). Middle: the snapped 0/1 "
                       "matrix the partition distance is computed from (argmax per row; the final one after the "
                       "lab's merge pass when it is on). Drag the slider to scrub back through the saved history "
                       "of A.",
                       width=420)), sizing_mode="stretch_width"),
            pn.FlexBox(pn.pane.HoloViews(hv.DynamicMap(self._draw_losses, streams=[self._slow_pipe]),
                                     css_classes=["shr-curves"]),
                   pn.pane.HoloViews(hv.DynamicMap(self._draw_penalties, streams=[self._slow_pipe])),
                   sizing_mode="stretch_width"), sizing_mode="stretch_width")
        self._compare = pn.pane.DataFrame(pd.DataFrame(), index=False, css_classes=["shr-compare"])
        self._m2 = pn.Column(
            pn.FlexBox(pn.pane.HoloViews(hv.DynamicMap(self._draw_u, streams=[self._pipe])),
                   pn.pane.HoloViews(hv.DynamicMap(self._draw_hist, streams=[self._pipe])),
                   sizing_mode="stretch_width"),
            pn.pane.Markdown("#### Test loss after adaptation (new tasks)"), self._compare, visible=False,
            sizing_mode="stretch_width")
        self._saved = self._run_select(label="Saved runs", options=[], width=420)
        self._load_b = pn.widgets.Button(label="Load", width=80, css_classes=["shr-load"])
        self._load_b.on_click(lambda e: self.load(self._saved.value))
        self._runs_compare = RunComparison(self, "shr", "sharing-runs")
        self._refresh_saved()

    def _sidebar(self):
        return pn.Column(self._controls, self._buttons_row, sizing_mode="stretch_width")

    def _main(self):
        return pn.Column(self._error, self._status, self._m1, self._m2, pn.Row(self._saved, self._load_b),
                         self._runs_compare, sizing_mode="stretch_width")

    def _on_task(self, reset: bool):
        for name, box in self._opts.items():
            box.visible = name == self.task
        self._method1.visible = self.task != "msr"
        if reset and not self._restoring:
            self.param.update(**task_defaults(self.task))
        self._m1.visible, self._m2.visible = self.task != "msr", self.task == "msr"

    # ------------------------------------------------------------------ drawing (DynamicMap callbacks)
    def _snapshot(self, data):
        if not data or not data.get("snapshots"):
            return None
        i = min(self._slider.value, len(data["snapshots"]) - 1)
        return data["snapshots"][i]

    def _draw_a(self, data):
        A = self._snapshot(data)
        if A is None or data.get("method") != 1:  # a placeholder with the same options as the real plot
            return a_heatmap(np.full((2, 2), 0.5), np.array([0, 1]), "A relaxed (softmax): press Start")
        return a_heatmap(A, data["gt"], "A relaxed (softmax of the logits)")

    def _draw_snapped(self, data):
        """The 0/1 matrix the partition distance is computed from, in the relaxed A's columns and order."""
        A = self._snapshot(data)
        if A is None or data.get("method") != 1:
            return a_heatmap(np.full((2, 2), 0.5), np.array([0, 1]), "A snapped (0/1, scored)")
        final = data.get("final")
        last = self._slider.value >= len(data["snapshots"]) - 1
        if final is not None and last:
            what = "snapped + merged" if final["merged"] else "snapped"
            return a_heatmap(np.asarray(final["selection"]), data["gt"],
                             f"A {what} (0/1, scored): distance {final['partition_distance']:g}", order_by=A)
        return a_heatmap(snapped_matrix(A), data["gt"], "A snapped (0/1, argmax per row)", order_by=A)

    def _draw_gt(self, gt):
        if gt is None:
            return a_heatmap(np.full((2, 2), 0.5), np.array([0, 1]), "A_gt (ground truth)")
        return gt_heatmap(gt)

    def _w_dmap(self, shape):
        """A fresh DynamicMap for the implied weights: its frame size follows the first frame, so every run
        (whose weight shape may differ) gets one whose placeholder already has the right shape."""
        shape = tuple(int(s) for s in shape)

        def draw(data):
            A = self._snapshot(data)
            if A is None or data.get("method") != 1:
                return weights_coloring(np.zeros(int(np.prod(shape)), dtype=np.int64), shape, "implied W")
            return weights_coloring(A.argmax(1), shape, "implied W")

        self._w_pane.object = hv.DynamicMap(draw, streams=[self._pipe])

    @staticmethod
    def _method1_history(data):
        return [h for h in (data or {}).get("history") or [] if "upper" in h] or [
            {"step": 0, "upper": 0, "lower": 0, "entropy": 0, "nuclear": 0, "partition_distance": 0}]

    def _draw_losses(self, data):
        return loss_curves(self._method1_history(data))

    def _draw_penalties(self, data):
        return penalty_curves(self._method1_history(data))

    def _draw_u(self, data):
        U = (data or {}).get("U")
        if U is None or data.get("method") != 2:
            return u_picture(np.zeros((4, 1)), 2, 2, "max_k |U|: press Start" if not self.history else
                             "max_k |U| (not saved with the run)")
        return u_picture(U, data["n_out"], data["n_in"], f"max_k |U| ({data.get('label', '')})")

    def _draw_hist(self, data):
        U = (data or {}).get("U")
        return u_histogram(U if U is not None and data.get("method") == 2 else np.zeros(1))

    def _send(self, frame: bool = True, final: bool = False):
        t0 = time.perf_counter()  # curves redraw at most every CURVE_SECONDS
        data = dict(self._view, history=list(self.history), snapshots=self.snapshots)
        self._pipe.send(data)
        if final or t0 - self._last_curves >= CURVE_SECONDS:
            self._slow_pipe.send(data)
            self._last_curves = t0
        if frame:
            self.frames.append(time.perf_counter())

    # ------------------------------------------------------------------ control
    @property
    def running(self) -> bool:
        return self.runner.running

    def config(self):
        """The settings as a ``SharingConfig`` or (task msr) an ``MSRConfig`` (not validated: ``start`` does)."""
        if self.task == "msr":
            return MSRConfig(task="msr", **config_values(self, MSR_NAMES + COMMON_FIELDS))
        return SharingConfig(**SharingConfig.applicable({"task": self.task, **config_values(self, SHARING_NAMES)}))

    @guard("starting the run", default=False)
    def start(self) -> bool:
        """Start learning; False (with an inline message) if the settings are bad or a run is going on."""
        if self.runner.busy:
            return False
        self._release_unrecorded()
        config = self._checked(self.config())
        job = Job(family_of(self.task), config, save_dir=self.results, process=self.worker == "process",
                  threads=WORKER_THREADS)
        self._error.visible = False
        self.history, self.snapshots, self._summary, self.frames = [], [], {}, []
        self._view = {"method": 2 if self.task == "msr" else 1, "task": self.task}
        self._compare.object = pd.DataFrame()
        self._m1.visible, self._m2.visible = self.task != "msr", self.task == "msr"
        return self.runner.start(job)

    @guard("pausing the run")
    def toggle_pause(self):
        self.runner.toggle_pause()

    _toggle_pause = toggle_pause

    @guard("stopping the run")
    def stop(self, wait: bool = True, timeout: float = 30.0):
        self.runner.stop(wait=wait, timeout=timeout)

    def poll(self) -> int:
        """Draw the messages that arrived; returns how many.  Periodic on the server, called in scripts/tests."""
        return self.runner.poll()

    # ------------------------------------------------------------------ messages (event loop)
    def _on_message(self, msg: dict):
        kind = msg["kind"]
        if kind == "result":  # method 1: a trial's scored partition (after the merge pass when it is on)
            self._view["final"] = {k: msg[k] for k in ("selection", "merged", "partition_distance")}
            self._dirty = True
        elif kind == "task":  # method 1: a trial's task; the pane shows the latest trial
            self.history, self.snapshots = [], []
            self._view = {"method": 1, "task": msg.get("task", self.task), "trial": msg["trial"],
                          "gt": np.asarray(msg["gt"]), "shape": tuple(msg["shape"])}
            self._gt_pane.object = self._draw_gt(self._view["gt"])
            self._w_dmap(self._view["shape"])
            self._slider.end, self._slider.value = 1, 0
            self._dirty = True
        elif kind == "step":
            self.history.append(msg["rec"])
            self.snapshots.append(msg["A"])
            self._dirty = True
        elif kind == "layer":  # method 2
            self._view = {"method": 2, "task": "msr", "n_out": msg["n_out"], "n_in": msg["n_in"]}
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
            self._dirty = True
        elif kind == "failed":
            self._refresh_saved()

    def _after_poll(self, count: int):
        if not self._dirty:
            return
        if self.snapshots:
            follow = self._slider.value >= self._slider.end - 1
            self._slider.end = max(len(self.snapshots) - 1, 1)
            if follow:
                self._slider.value = len(self.snapshots) - 1
        self._send(final=not self.runner.running)  # the last frame always redraws the curves too
        self._dirty = False

    def _detail(self) -> str:
        last = self.history[-1] if self.history else {}
        task = self._view.get("task", self.task)
        text = task
        if self._view.get("trial"):
            text += f" · trial {self._view['trial'] + 1}"
        if "partition_distance" in last:
            text += (f" · step {last['step']} · upper {last['upper']:.4g} · partition distance "
                     f"{last['partition_distance']:g}")
        elif "outer_loss" in last:
            text += f" · {last.get('label', '')} step {last['step']} · outer loss {last['outer_loss']:.4g}"
        pd_final = self._summary.get("partition_distance")
        if pd_final is not None:
            merged = self._summary.get("merged", "snapped_partition_distance" in self._summary)
            how = "after snapping and the lab's merge pass" if merged else "after snapping"
            text += f"  \nfinal partition distance **{pd_final:g}** ({how})"
        return text

    # ------------------------------------------------------------------ saved runs
    @guard("listing the saved runs")
    def _refresh_saved(self):
        self._list_runs(list_sharing(self.results)[:50])

    @guard("loading the run", default=False)
    def load(self, path) -> bool:
        """Show a saved run and put its settings back into the controls (not while a run is going on).  Only a
        run the Saved-runs select lists (from this pane's runs directory) is read; anything else is refused."""
        if not path or self.runner.busy:
            return False
        run = FAMILIES["sharing"].load(self._listed_run(path), root=self.results)  # method 2 runs live in the same store
        self._error.visible = False
        saved = run.meta.get("config")
        saved = saved if isinstance(saved, dict) else {}
        self._release_unrecorded()
        cfg, problem = self._restore(saved)
        notes = []
        if problem:
            self._show_error(f"{run.path.name}: its settings could not be restored ({problem})")
            notes.append("*the controls do not show this run's settings (they could not be restored)*")
        else:
            notes += self._restore_notes(saved, cfg)
        summary = run.meta.get("summary") or {}
        self._summary = summary
        self.history = run.history.to_dict("records")
        self.snapshots = list(run.snapshots) if run.snapshots is not None else []
        # what the run is comes from its own record, never from the task selector
        task = saved.get("task") if isinstance(saved.get("task"), str) else (
            "msr" if "outer_loss" in run.history.columns else "?")
        if task == "msr":
            self._load_method2(summary)
        elif "ground_truth" in summary:
            self._load_method1(summary, cfg, task)
        else:  # stopped before its first trial ended: its settings and curves, no matrices
            self._view = {"method": 1, "task": task}
            self._m1.visible, self._m2.visible = True, False
            self._gt_pane.object = self._draw_gt(None)
            self._w_dmap(summary.get("shape") or (1, 1))
            self._slider.end, self._slider.value = 1, 0
        self._send(final=True)
        status = run.meta.get("status", "?")
        self._status.object = "  \n".join([f"Loaded `{run.path.name}` ({status})", self._label(saved),
                                           self._detail(), *notes])
        return True

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
            shape = weight_shape(make_task(cfg, cfg.seed)) if cfg is not None else (1, gt.size)
        self._view = {"method": 1, "task": task, "gt": gt, "shape": tuple(shape)}
        self._m1.visible, self._m2.visible = True, False
        self._gt_pane.object = self._draw_gt(gt)
        self._w_dmap(shape)
        if self.snapshots and summary.get("labels") is not None:  # the scored partition of the last trial
            labels = np.asarray(summary["labels"])
            self._view["final"] = {"selection": snapped_matrix(self.snapshots[-1], labels),
                                   "merged": bool(summary.get("merged", False)),
                                   "partition_distance": summary.get("scored_partition_distance",
                                                                     summary.get("partition_distance"))}
        if self.snapshots:
            self._slider.end = max(len(self.snapshots) - 1, 1)
            self._slider.value = len(self.snapshots) - 1

    def _load_method2(self, summary: dict):
        n_out, n_in = summary.get("shape") or (1, 1)
        self._view = {"method": 2, "task": "msr", "n_out": n_out, "n_in": n_in}
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
