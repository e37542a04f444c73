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

import time
from pathlib import Path

import holoviews as hv
import numpy as np
import pandas as pd
import panel as pn
import param

from ..config import ConfigError
from ..experiments.msr import MSRConfig, run_label
from ..experiments import FAMILIES
from ..experiments.sharing import (SharingConfig, best_step, list_runs, read_snapshot, results_dir,
                                   snapped_matrix, weight_shape)
from ..jobs import Job
from ..plots.sharing_hv import (CURVE_HEIGHT, CURVES, a_heatmap, gt_heatmap, u_histogram, u_picture,
                                 weights_coloring)
from .compare_runs import RunComparison
from .config_params import add_config_params, config_values
from .guard import guard, guard_settings, guarded
from .layout import SidebarPane, scroll_box, titled
from .live import DRAW_SHARE, LiveData, LivePlot, LiveView
from .runner import WORKER_THREADS, JobRunner
from .worker_pane import WorkerPaneMixin

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
#: least seconds between redraws of the matrices (HoloViews pictures, ~0.1 s a frame), per worker mode: a worker
#: thread shares the GIL with them (drawn every frame they slowed its learning by 30-45 %).  Method 1's matrices
#: are redrawn only in a frame the learning curves' throttle allows (``LiveView.draw_due``), and both methods'
#: only under ``DRAW_SHARE`` of the event loop; the curves stream whenever their throttle allows
#: (``bench/dashboard.py --part sharing``)
MATRIX_SECONDS = {"process": 0.0, "thread": 1.0}
#: the learning curves (live-pane base): one plot per ``CURVES`` entry, one line per history column
CURVE_PLOTS = {name: LivePlot(f"shr-{name}", y="value", title=title, xlabel="outer step", ylabel=ylabel,
                              legend=True, legend_above=True, height=CURVE_HEIGHT)
               for name, title, ylabel in (("losses", "losses", "loss"),
                                           ("penalties", "penalties and partition distance", "value"))}
PLACEHOLDER_K = 5  # the size of the empty A pictures before a task is known


def family_of(task: str) -> str:
    return "msr" if task == "msr" else "sharing"


def task_defaults(task: str) -> dict:
    """steps (and for method 1 lr and restarts) as the task's config fills them in."""
    if task == "msr":
        return {"steps": MSRConfig().steps}
    cfg = SharingConfig(task=task).with_defaults()
    return {k: getattr(cfg, k) for k in TASK_DEFAULTS}



class ShownTrial:
    """Method 1's records of the latest trial in a history that only grows (or is replaced), and their best step,
    kept up to date by reading only the records appended since the last call: a frame costs the same at step 10
    and step 10 000.  Same answer as filtering the whole history (records with ``upper``; those of the last
    trial seen, or with no trial key) and ``best_step`` on it (tested against both, trials in order)."""

    def __init__(self, history: list):
        self.history, self.read = history, 0
        self.records: list[dict] = []
        self.trial = None  # the last trial number seen
        self.best = None  # (step, distance) of the first record with the least distance

    def follows(self, history: list) -> bool:
        return history is self.history and len(history) >= self.read

    def update(self) -> list[dict]:
        for h in self.history[self.read:]:
            if "upper" not in h:
                continue
            t = h.get("trial")
            if t is not None and t == t and t != self.trial:  # a new trial: its records replace the last one's
                self.trial = t
                self.records = [r for r in self.records if "trial" not in r]
                self.best = best_step(self.records)
            if "trial" in h and self.trial is not None and h["trial"] != self.trial:
                continue  # a record of no trial (NaN) once trials are numbered: left out, as the filter does
            self.records.append(h)
            d = h.get("partition_distance")
            if d is not None and d == d and (self.best is None or d < self.best[1]):
                self.best = (int(h["step"]), int(d))
        self.read = len(self.history)
        return self.records


class SharingDiscovery(SidebarPane, WorkerPaneMixin, pn.viewable.Viewer):
    task = param.Selector(default=FIRST_TASK, objects=TASKS,
                          doc=SharingConfig.option_named("task").help)
    worker = param.Selector(default="process", objects=["process", "thread"],
                            doc="where learning runs: a worker process (the event loop stays free) or a thread")

    def __init__(self, results: str | None = None, **params):
        self._restoring = False
        self._following = False  # the slider is being moved to the newest snapshot (not by a person)
        task = params.get("task", self.param.task.default)
        fill = task_defaults(task)
        super().__init__(**{**{k: v for k, v in fill.items() if k not in params}, **params})
        self.results = results_dir(results)
        self.history: list[dict] = []
        self._trial = None  # ShownTrial: the shown trial's records and best step, kept as the history grows
        self.snapshots: list[np.ndarray] = []
        self.frames: list[float] = []  # redraw times (the benchmark's frames per second)
        self.matrix_frames: list[float] = []  # when the matrices were drawn (monotonic seconds)
        self._view: dict = {}  # what the frames draw: method, gt and shape, or n_out, n_in, U, label
        self._summary: dict = {}
        self._dirty = False
        self._pipe = hv.streams.Pipe(data=None)  # A, implied weights, U: every frame
        self._marks: dict = {}  # per curve plot: the Bokeh marks of the step shown and of the best step
        self._last_matrices = 0.0  # when the matrices were last drawn (``_send``)
        self._matrix_cost = 0.0  # and how long that took
        self._loaded = None  # a loading job's prepared run
        self._widgets()
        self.runner = JobRunner(self._on_message, start=self._start_b, pause=self._pause_b, stop=self._stop_b,
                                lock=[self._controls, self._load_b, self._saved], status=self._status,
                                error=self._error, detail=self._detail, period_ms=FRAME_MS,
                                after_poll=self._after_poll)
        self.runner.on_end = self._after_end
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
            return pn.widgets.IntInput.from_param(getattr(p, name), label=label, width=w,
                                                  css_classes=[f"shr-{name.replace('_', '-')}"])

        def text(name, label, w=100):
            return pn.widgets.TextInput.from_param(getattr(p, name), label=label, width=w)

        self._job_widgets("shr", "Press **Start** to learn.")
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
        # the pictures: the fast ones get fresh DynamicMaps whenever the matrices change shape (``_rebuild``)
        # (rows, not FlexBoxes: in a tab not shown yet Bokeh lays a fixed-size plot in a FlexBox out collapsed)
        self._matrices = pn.Row()  # relaxed A, snapped A, A_gt
        self._w_box = pn.Column()
        self._u_row = pn.Row(sizing_mode="stretch_width")  # max |U| and its histogram
        self.curves = {name: LiveView([plot], group="series", run="run",
                                      colours={k: c for k, (_, c) in CURVES[name].items()},
                                      labels={k: label for k, (label, _) in CURVES[name].items()},
                                      on_build=[self._add_marks])
                       for name, plot in CURVE_PLOTS.items()}
        self._loss_pane = pn.Column(self._curve_pane("losses"), sizing_mode="stretch_width",
                                    css_classes=["shr-curves"])
        self._penalty_pane = pn.Column(self._curve_pane("penalties"), sizing_mode="stretch_width",
                                       css_classes=["shr-penalties"])
        self._slider = pn.widgets.IntSlider(label="snapshot of A (drag to scrub back)", start=0, end=1, value=0,
                                            width=420, css_classes=["shr-snapshot"])
        self._slider.param.watch(guarded(self, "scrubbing the history")(self._on_scrub), "value")
        self._reading = pn.pane.Markdown("", width=420, css_classes=["shr-reading"])  # what the pictures say
        self._u_reading = pn.pane.Markdown("", css_classes=["shr-u-reading"])
        self._m1 = pn.Column(
            scroll_box(self._matrices, css_classes=["shr-matrices"]),
            scroll_box(pn.Row(self._w_box, pn.Column(self._slider, self._reading, pn.pane.Markdown(
                           "Rows of A are weight entries, columns shared parameters, both ordered by the true blocks "
                           "they are matched to. Left: the relaxed A (softmax of the logits). Middle: the snapped 0/1 "
                           "matrix the partition distance is computed from (argmax per row; the final one after the "
                           "lab's merge pass when it is on). W is coloured by that partition.",
                           width=420, styles={"font-size": "90%"}))), css_classes=["shr-weights-box"]),
            pn.Row(self._loss_pane, self._penalty_pane, sizing_mode="stretch_width"), sizing_mode="stretch_width")
        self._compare = pn.pane.DataFrame(pd.DataFrame(), index=False, css_classes=["shr-compare"])
        self._m2 = pn.Column(
            self._u_reading, self._u_row,
            pn.pane.Markdown("#### Test loss after adaptation (new tasks)"), self._compare, visible=False,
            sizing_mode="stretch_width")
        self._rebuild()
        self._saved = self._run_select(label="Saved runs", options=[], width=420, css_classes=["shr-saved"])
        self._load_b = pn.widgets.Button(label="Load", width=80, css_classes=["shr-load"])
        self._load_b.on_click(lambda e: self.load(self._saved.value))
        self._runs_compare = RunComparison(self, "shr", "sharing-runs")
        self._refresh_saved()

    def _curve_pane(self, name: str):
        return self.curves[name].panes[CURVE_PLOTS[name].name]

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
            if not self.runner.busy:  # the run on display was another task's: its pictures go
                self._clear()
        self._m1.visible, self._m2.visible = self.task != "msr", self.task == "msr"

    # ------------------------------------------------------------------ drawing (DynamicMap callbacks)
    # One frame = one dict (``_frame_data``): the view, the shown trial's records and, for method 1, ``shown``:
    # the snapshot the slider picks, its snapped 0/1 matrix and what that matrix scores (``read_snapshot``).
    # The callbacks draw ``shown``'s matrices and ``_send`` writes the reading of the same dict, so a number
    # in the text is the number of the matrix in the picture, for every slider position.
    def _rebuild(self):
        """Fresh plots for what ``_view`` holds: a Bokeh plot keeps the size of its first frame, so when a task
        (or its size) changes the matrices' shapes every picture gets a new DynamicMap, sized from its own
        matrix, on a new Pipe (the plots of the old shape, still subscribed to the old Pipe, get no frame of
        the new one)."""
        self._pipe = hv.streams.Pipe(data=self._frame_data())
        method2 = self._view.get("method") == 2

        def picture(draw, follows: bool, **kw):
            """The shown method's pictures follow the Pipe (every frame); the hidden method's are drawn once
            (a frame re-rendering hidden plots cost as much as the shown ones)."""
            shown = hv.DynamicMap(draw, streams=[self._pipe]) if follows else draw(self._pipe.data)
            return pn.pane.HoloViews(shown, **kw)

        self._a_pane = picture(self._draw_a, not method2, css_classes=["shr-relaxed"])
        self._snapped_pane = picture(self._draw_snapped, not method2, css_classes=["shr-snapped"])
        self._gt_pane = pn.pane.HoloViews(self._draw_gt(self._view.get("gt")), css_classes=["shr-gt"])
        self._w_pane = picture(self._draw_w, not method2, css_classes=["shr-weights"])
        self._u_pane = picture(self._draw_u, method2, css_classes=["shr-u"])
        self._hist_pane = picture(self._draw_hist, method2, sizing_mode="stretch_width", css_classes=["shr-u-hist"])
        self._matrices.objects = [self._a_pane, self._snapped_pane, self._gt_pane]
        self._w_box.objects = [self._w_pane]
        self._u_row.objects = [self._u_pane, self._hist_pane]
        self._show_reading(self._pipe.data)

    def _clear(self):
        """Forget the run on display (another task is chosen): placeholders, no reading, no curves."""
        self.history, self.snapshots, self._summary = [], [], {}
        self._view = {"method": 2 if self.task == "msr" else 1, "task": self.task}
        self._compare.object = pd.DataFrame()
        self._rebuild()  # first: the slider's reset below draws on the new plots
        self._slider.end, self._slider.value = 1, 0
        self._reset_curves()
        self._draw_curves(final=True)

    def _shown_history(self) -> list[dict]:
        """Method 1's records of the trial whose snapshots are drawn (a saved run has every trial's records and
        the last trial's snapshots; a live run keeps only the trial under way).  Kept as the history grows (a
        frame reads only the records new since the last): ``ShownTrial``."""
        if self._trial is None or not self._trial.follows(self.history):
            self._trial = ShownTrial(self.history)
        return self._trial.update()

    def _frame_data(self) -> dict:
        history = self._shown_history() if self._view.get("method") == 1 else list(self.history)
        data = dict(self._view, history=history, snapshots=self.snapshots)
        data["best"] = self._trial.best if self._view.get("method") == 1 else best_step(history)
        if data.get("trial") is None and history and history[-1].get("trial") is not None:
            data["trial"] = int(history[-1]["trial"])
        data["shown"] = self._shown(data)
        return data

    def _shown(self, data):
        """The snapshot the slider picks and its reading; None before there is one (or for method 2)."""
        snaps = data.get("snapshots")
        if data.get("method") != 1 or not snaps or data.get("gt") is None:
            return None
        i = min(self._slider.value, len(snaps) - 1)
        A = np.asarray(snaps[i])
        final = data.get("final") if i == len(snaps) - 1 else None
        reading = read_snapshot(A, data["gt"], None if final is None else final["selection"])
        history = data["history"]
        step = history[i]["step"] if len(history) == len(snaps) else None
        return {"index": i, "count": len(snaps), "A": A, "reading": reading, "step": step,
                "final": final is not None, "merged": bool(final is not None and final["merged"])}

    def _K(self, data) -> int | None:
        gt = (data or {}).get("gt")
        return None if gt is None else len(gt)

    def _draw_a(self, data):
        shown, K = (data or {}).get("shown"), self._K(data)
        if shown is None:  # a placeholder of the same shape and options as the frames to come
            n = K or PLACEHOLDER_K
            return a_heatmap(np.zeros((n, n)), np.zeros(n, dtype=int), "A relaxed (softmax)")
        return a_heatmap(shown["A"], data["gt"], "A relaxed (softmax)")

    def _draw_snapped(self, data):
        """The 0/1 matrix the partition distance is computed from, in the relaxed A's rows and columns."""
        shown, K = (data or {}).get("shown"), self._K(data)
        if shown is None:
            n = K or PLACEHOLDER_K
            return a_heatmap(np.zeros((n, n)), np.zeros(n, dtype=int), "A snapped", colorbar=False)
        r = shown["reading"]
        what = "A merged" if shown["merged"] else "A snapped"  # merged: snapped, then the lab's merge pass
        return a_heatmap(r.snapped, data["gt"], f"{what}: distance {r.distance}", order_by=shown["A"],
                         colorbar=False)

    def _draw_gt(self, gt):
        if gt is None:
            return a_heatmap(np.zeros((PLACEHOLDER_K, 1)), np.zeros(PLACEHOLDER_K, dtype=int), "A_gt (truth)",
                             colorbar=False)
        return gt_heatmap(np.asarray(gt))

    def _draw_w(self, data):
        """W coloured by the partition the snapped A scores (the merged one at the end when merging is on)."""
        data = data or {}
        shape, shown = data.get("shape"), data.get("shown")
        if shape is None:
            return weights_coloring(None, (2, 3), caption="W")
        if shown is None:
            return weights_coloring(None, shape, caption="W")
        return weights_coloring(shown["reading"].labels, shape)

    # ------------------------------------------------------------------ the learning curves (live-pane base)
    def _curve_rows(self, records) -> dict:
        """Method 1's records as the curve plots' rows: one per history column drawn, its value at the step."""
        rows = {name: [] for name in CURVES}
        for rec in records:
            for name, columns in CURVES.items():
                for c in columns:
                    v = rec.get(c)
                    if v is not None and v == v:
                        rows[name].append({"series": c, "run": 0, "step": int(rec["step"]), "value": float(v)})
        return rows

    def _reset_curves(self, records=()) -> None:
        """New figures for a new run or trial (the only time the curves' Bokeh models are built)."""
        for name, view in self.curves.items():
            view.reset([c for c in CURVES[name] if any(c in r for r in records[:1])])
        self._add_curve_records(records)

    def _add_curve_records(self, records) -> None:
        for name, rows in self._curve_rows(records).items():
            if rows:
                self.curves[name].add(rows)

    def _draw_curves(self, final: bool = False) -> None:
        for view in self.curves.values():
            if final or view.draw_due():
                view.draw(final=final)

    def _add_marks(self, name: str, fig) -> None:
        """``LiveView.on_build``: on each new curve figure, a dashed line at the step the pictures show; on the
        penalties, the drawn snapshot's distance as a point (a diamond: after the merge pass) and a dotted line
        at the best step (the least partition distance)."""
        from bokeh.models import ColumnDataSource, Span

        marks = {"step": Span(dimension="height", line_color="#555555", line_dash="dashed", line_width=1,
                              location=None, name=f"{name}-step")}
        fig.add_layout(marks["step"])
        if name == CURVE_PLOTS["penalties"].name:
            marks["best"] = Span(dimension="height", line_color="#2ca02c", line_dash="dotted", line_width=2,
                                 location=None, name=f"{name}-best")
            fig.add_layout(marks["best"])
            marks["shown"] = ColumnDataSource({"x": [], "y": [], "marker": []}, name=f"{name}-shown")
            fig.scatter("x", "y", marker="marker", source=marks["shown"], size=11, color="#ff7f0e",
                        line_color="black")
        self._marks[name] = marks
        if self._pipe.data is not None:  # this figure's marks only: it is not shown yet, the other one is
            self._place_marks(self._pipe.data, only=name)

    def _place_marks(self, data: dict, only: str | None = None) -> None:
        """Move the marks to the snapshot ``data`` shows (``only``: one figure's).  Marks of a figure on the page
        are moved inside ``pn.io.hold()`` (``_send``): a bare change from Panel's event handling raises Bokeh's
        "_pending_writes should be non-None"."""
        shown = (data or {}).get("shown")
        step = shown["step"] if shown is not None else None
        for name, marks in self._marks.items():
            if only is not None and name != only:
                continue
            marks["step"].location = step
            if "shown" in marks:
                marks["shown"].data = ({"x": [step], "y": [shown["reading"].distance],
                                        "marker": ["diamond" if shown["merged"] else "circle"]}
                                       if step is not None else {"x": [], "y": [], "marker": []})
                best = (data or {}).get("best") if data.get("method") == 1 else None
                marks["best"].location = best[0] if best is not None else None

    def _u_shape(self, data):
        return (data["n_out"], data["n_in"]) if data.get("n_in") else (PLACEHOLDER_K, PLACEHOLDER_K)

    def _draw_u(self, data):
        data = data or {}
        U, shape = data.get("U"), self._u_shape(data)
        if U is None or data.get("method") != 2:
            if not self.history:
                title = "max_k |U|"
            elif self.runner.running and data.get("method") == 2:
                title = "max_k |U|: none (fully connected)"
            else:
                title = "max_k |U|: not saved with this run (saved before U was)"
            return u_picture(np.zeros((int(np.prod(shape)), 1)), *shape, title)
        return u_picture(U, data["n_out"], data["n_in"], f"max_k |U|: {self._u_label(data)}")

    @staticmethod
    def _u_label(data) -> str:
        """The sparsity of the U shown, and whether it is the chosen one (short: a plot title)."""
        label = data.get("label", "")
        short = label.removeprefix("msr, ").removesuffix(" sparsity")
        return f"{short} (chosen)" if label and label == data.get("chosen") else f"{short} (baseline)"

    def _draw_hist(self, data):
        data = data or {}
        U = data.get("U")
        if U is None or data.get("method") != 2:
            return u_histogram(np.zeros(1))
        return u_histogram(U, f"|U|: {self._u_label(data)}")

    def _show_reading(self, data: dict):
        """The text beside the pictures, from the frame they draw."""
        self._reading.object = self._reading_text(data)
        self._u_reading.object = self._u_reading_text(data)

    def _reading_text(self, data: dict) -> str:
        shown = data.get("shown")
        if shown is None:
            return ""
        r, i = shown["reading"], shown["index"]
        where = f"step {shown['step']}" if shown["step"] is not None else f"snapshot {i}"
        place = " (the last)" if i == shown["count"] - 1 else " (the first)" if i == 0 else ""
        head = f"**{'final, ' if shown['final'] else ''}{where}** · snapshot {i}{place}"
        if data.get("trial") is not None:
            head += f" · trial {int(data['trial']) + 1}"
        scored = ("the scored partition after the lab's merge pass" if shown["merged"] else
                  "the scored partition" if shown["final"] else "argmax per row")
        lo, hi = r.row_max
        rows = f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f} to {hi:.2f}"
        soft = "; still soft, so the snapped A is what is scored" if lo < 0.5 else ""
        text = (f"{head}  \nsnapped A ({scored}): partition distance **{r.distance}** to A_gt · "
                f"{r.blocks} shared parameter{'s' if r.blocks != 1 else ''} (A_gt: {r.true_blocks})  \n"
                f"relaxed A: the largest entry of a row is {rows} (1 = a hard choice){soft}")
        return text + self._best_text(data)

    @staticmethod
    def _best_text(data: dict) -> str:
        """Where the recorded distance was least, and why the end may differ (the method never sees it)."""
        history = data.get("history") or []
        best = data["best"] if "best" in data else best_step(history)
        if best is None or not history:
            return ""
        last = history[-1].get("partition_distance")
        step, distance = best
        text = f"  \nbest: distance **{distance}** at step {step} (dotted green line)"
        if last is not None and last == last and last > distance:
            text += (f"; the last recorded step has {last:g}. The method minimises the validation loss and its "
                     f"penalties, never the distance (it does not know the truth), and keeps every step to the "
                     f"end, so A can pass through a better partition and leave it")
        return text

    def _u_reading_text(self, data: dict) -> str:
        if data.get("method") != 2 or data.get("U") is None:
            return ""
        history = data.get("history") or []
        step = history[-1].get("step") if history else None
        label, chosen = data.get("label", ""), data.get("chosen")
        which = (" (the chosen sparsity)" if label == chosen else
                 f" (a baseline; the chosen {chosen} runs last)" if chosen else "")
        done = "final U" if not self.runner.running else f"U at step {step}"
        return f"{done} of **{label}**{which}"

    def _on_scrub(self, event=None):
        """The slider moved: draw that snapshot (and move the curves' marker), unless it is following the run."""
        if not self._following:
            self._send(frame=False)

    def _send(self, frame: bool = True, final: bool = False, matrices: bool = True):
        """One frame (``frame``): the learning curves' new points (``final``: their finished view) and, when
        ``matrices``, the slider moved to the newest snapshot and the matrices of the snapshot shown drawn with
        its reading and marks.  ``frame`` False (the slider was dragged): the matrices, reading and marks only."""
        if matrices or not frame:
            t0 = time.monotonic()
            if frame:
                self._follow()
            data = self._frame_data()
            self._show_reading(data)
            self._pipe.send(data)
            with pn.io.hold():
                self._place_marks(data)
            self._last_matrices = time.monotonic()
            self._matrix_cost = self._last_matrices - t0
            self.matrix_frames.append(self._last_matrices)
        if frame:
            self._draw_curves(final=final)
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
        self.history, self.snapshots, self._summary, self.frames, self.matrix_frames = [], [], {}, [], []
        self._view = {"method": 2 if self.task == "msr" else 1, "task": self.task}
        if self.task == "msr":  # the run the view ends on (it runs last)
            self._view["chosen"] = run_label("msr", config.sparsity)
        self._compare.object = pd.DataFrame()
        self._m1.visible, self._m2.visible = self.task != "msr", self.task == "msr"
        self._rebuild()
        self._slider.end, self._slider.value = 1, 0
        self._reset_curves()
        return self.runner.start(job)

    @guard("pausing the run")
    def toggle_pause(self):
        self.runner.toggle_pause()

    _toggle_pause = toggle_pause

    # ------------------------------------------------------------------ messages (event loop)
    def _on_message(self, msg: dict):
        kind = msg["kind"]
        if self._load_message(kind, msg):  # a loading job's end: drawn by ``_after_end``
            pass
        elif kind == "result":  # method 1: a trial's scored partition (after the merge pass when it is on)
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

    def _after_poll(self, count: int):
        """A frame when one is due: while it learns, method 1's frames follow the learning curves' throttle
        (``LiveView.draw_due``: new steps waiting and drawing kept under its share of the event loop), method 2's
        (no curves) the matrices' own; the last frame is always drawn.  Steps that arrive between frames wait
        for the next (``_dirty`` stays set)."""
        if not self._dirty:
            return
        final = self.runner.settled
        now = time.monotonic()
        curves = self._view.get("method") == 1 and any(view.draw_due(now) for view in self.curves.values())
        matrices = self._matrices_due(now) and (curves or self._view.get("method") != 1)
        if not (final or curves or matrices):
            return
        self._send(final=final, matrices=final or matrices)
        self._dirty = False

    def _matrices_due(self, now: float) -> bool:
        """The matrices may be redrawn: at most every ``MATRIX_SECONDS`` and under ``DRAW_SHARE`` of the event
        loop (a frame of pictures that took 0.1 s waits 0.2 s), like the curves' own throttle."""
        return now - self._last_matrices >= max(MATRIX_SECONDS[self.worker], self._matrix_cost / DRAW_SHARE)

    def _follow(self) -> None:
        """The slider follows the newest snapshot (unless it was dragged back); the frame drawing it follows."""
        if not self.snapshots:
            return
        follow = self._slider.value >= self._slider.end - 1
        self._slider.end = max(len(self.snapshots) - 1, 1)
        if follow:
            self._following = True
            try:
                self._slider.value = len(self.snapshots) - 1
            finally:
                self._following = False

    def _detail(self) -> str:
        """The pane's lines under the runner's status line.  That line already says the trial, the step and (msr)
        which run learns: none of them is repeated here."""
        loading = self._load_detail()
        return loading if loading is not None else self._outcome(live=True)

    def _outcome(self, live: bool = False) -> str:
        """The task, the latest losses and the final partition distance (``live``: under the runner's status
        line, which names the trial and the msr run; a loaded run's status names them here)."""
        last = self.history[-1] if self.history else {}
        task = self._view.get("task", self.task)
        text = task
        if self._view.get("trial") and not live:
            text += f" · trial {self._view['trial'] + 1}"
        if "upper" in last:
            text += f" · upper {last['upper']:.4g}"
        elif "outer_loss" in last:
            label = last.get("label") if not live else None
            if isinstance(label, str) and label:
                text += f" · {label}"
            text += f" · outer loss {last['outer_loss']:.4g}"
        pd_final = self._summary.get("partition_distance")
        if pd_final is not None:
            merged = self._summary.get("merged", "snapped_partition_distance" in self._summary)
            how = "after snapping and the lab's merge pass" if merged else "after snapping"
            trials = self._summary.get("trials") or 1
            if trials > 1:
                how = f"mean of {trials} trials, {how}; the pictures show the last trial"
            text += f"  \nfinal partition distance **{pd_final:g}** ({how})"
        return text

    # ------------------------------------------------------------------ saved runs
    @guard("listing the saved runs")
    def _refresh_saved(self):
        self._list_runs(list_runs(self.results, trained_only=True)[:50])  # a run stopped at step 0: nothing to draw

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


def _curve_data(history: pd.DataFrame) -> dict:
    """The curve plots' data of a saved method-1 history (the last trial's, as the pictures), vectorised."""
    if "trial" in history.columns and history["trial"].notna().any():
        history = history[history["trial"] == history["trial"].max()]
    out = {}
    for name, columns in CURVES.items():
        present = [c for c in columns if c in history.columns]
        long = history.melt(id_vars=["step"], value_vars=present, var_name="series", value_name="value") \
            if present and "step" in history.columns else pd.DataFrame(columns=["step", "series", "value"])
        long = long.dropna(subset=["value"]).assign(run=0)
        out[name] = LiveData.from_frame(long, ["value"], group="series", run="run", groups=present)
    return out


def prepare_saved_run(path, results, progress=None, control=None) -> dict:
    """Off the event loop (the pane's loading job): read a saved run and build its curves and records (the event
    loop only draws them).  A run whose files are larger than the ``run_bytes`` limit is refused in one line
    before it is read."""
    from ..limits import check_load

    check_load(path)
    if progress is not None:
        progress({"kind": "progress", "message": f"reading {Path(path).name}", "done": 0, "total": 2})
    run = FAMILIES["sharing"].load(path, root=results)  # method 2 runs live in the same store
    if control is not None:
        control.checkpoint()
    if progress is not None:
        progress({"kind": "progress", "message": f"building the curves of {len(run.history):,} steps", "done": 1,
                  "total": 2})
    U = getattr(run, "U", None)
    snapshots = list(run.snapshots) if run.snapshots is not None else []
    return {"run": run, "curves": _curve_data(run.history), "U": U, "history": run.history.to_dict("records"),
            "snapshots": snapshots}
