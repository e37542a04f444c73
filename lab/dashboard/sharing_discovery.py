"""Dashboard pane "Sharing discovery": learn a parameter-sharing matrix A (method 1) or a symmetry matrix U
(method 2, ``msr``) live.  A worker thread learns (``lab.sharing``); a periodic callback (150 ms) drains its
snapshots into HoloViews DynamicMaps fed by Pipes, so frames update data in place.  No mathematics here."""
from __future__ import annotations

import threading
import time

import holoviews as hv
import numpy as np
import pandas as pd
import panel as pn
import param

from ..errors import LabError
from .worker_pane import WorkerPaneMixin
from ..plots.sharing_hv import (a_heatmap, gt_heatmap, loss_curves, penalty_curves, u_histogram, u_picture,
                                 weights_coloring)
from ..sharing.bilevel import DEFAULTS, learn_sharing
from ..sharing.msr import LocallyConnected, meta_learn
from ..sharing.store import list_sharing, load_sharing, save_sharing, sharing_dir
from ..sharing.tasks import GaussianTask, conv_task, group_task, sum_task

TASKS = ["gaussian", "conv", "group", "sum", "msr"]
FRAME_MS = 150  # the periodic redraw; A and the weights every frame
CURVE_SECONDS = 0.6  # the learning curves redraw at most this often


class SharingDiscovery(WorkerPaneMixin, pn.viewable.Viewer):
    task = param.Selector(default="conv", objects=TASKS)
    K = param.Integer(default=5, bounds=(2, 40), doc="gaussian: weight entries")
    blocks = param.Integer(default=3, bounds=(1, 40), doc="gaussian: true blocks")
    samples = param.Integer(default=100, bounds=(4, 100_000), doc="gaussian: |D|")
    split = param.Number(default=0.3, bounds=(0.01, 0.99), doc="gaussian: training fraction r")
    group = param.String(default="Z(4)", doc="group task: a permutation group (V → V layer)")
    positions = param.Integer(default=5, bounds=(2, 12), doc="sum task: sequence positions")
    rank = param.Integer(default=1, bounds=(1, 5), doc="msr: filter basis rank (1 = convolution)")
    kernel = param.Integer(default=3, bounds=(2, 7), doc="msr: filter size")
    tasks = param.Integer(default=100, bounds=(2, 5000), doc="msr: meta-training tasks")
    sparsity = param.Selector(default="exclusive", objects=["exclusive", "group", "none"])
    lam = param.Number(default=1e-3, bounds=(0, None), doc="msr: sparsity weight λ")
    entropy = param.Number(default=1e-2, bounds=(0, None), doc="weight of the entropy penalty H(A)")
    nuclear = param.Number(default=1e-2, bounds=(0, None), doc="weight of the nuclear norm ‖A‖*")
    steps = param.Integer(default=600, bounds=(1, 100_000))
    seed = param.Integer(default=0)

    def __init__(self, results: str | None = None, **params):
        super().__init__(**params)
        self.results = sharing_dir(results)
        self._lock = threading.Lock()
        self._pending: list = []
        self._state: dict = {}
        self._stop, self._pause = threading.Event(), threading.Event()
        self.worker: threading.Thread | None = None
        self.history: list[dict] = []
        self.snapshots: list[np.ndarray] = []
        self.frames: list[float] = []  # redraw times (the benchmark's frames per second)
        self._periodic = None
        self._pipe = hv.streams.Pipe(data=None)  # A, implied weights, U: every frame
        self._slow_pipe = hv.streams.Pipe(data=None)  # learning curves: at most every CURVE_SECONDS
        self._last_curves = 0.0
        self._widgets()
        self.param.watch(lambda e: self._on_task(reset_steps=True), ["task"])
        self._on_task(reset_steps=False)
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.on_session_destroyed(lambda ctx: self.stop(wait=False))

    # ------------------------------------------------------------------ layout
    def _widgets(self):
        p = self.param
        self._start_b = pn.widgets.Button(name="Start", button_type="primary", width=90, css_classes=["shr-start"])
        self._pause_b = pn.widgets.Button(name="Pause", width=90, disabled=True)
        self._stop_b = pn.widgets.Button(name="Stop", button_type="danger", width=90, disabled=True)
        self._start_b.on_click(lambda e: self.start())
        self._pause_b.on_click(lambda e: self._toggle_pause())
        self._stop_b.on_click(lambda e: self.stop(wait=False))
        num = lambda name, label, w=100: pn.widgets.FloatInput.from_param(getattr(p, name), name=label, width=w)  # noqa: E731
        intw = lambda name, label, w=100: pn.widgets.IntInput.from_param(getattr(p, name), name=label, width=w)  # noqa: E731
        self._opts = {
            "gaussian": pn.Row(intw("K", "K"), intw("blocks", "blocks"), intw("samples", "|D|"), num("split", "split r")),
            "group": pn.Row(pn.widgets.TextInput.from_param(p.group, name="Group", width=200)),
            "sum": pn.Row(intw("positions", "positions")),
            "msr": pn.Column(pn.Row(intw("rank", "rank"), intw("kernel", "filter"), intw("tasks", "tasks")),
                             pn.Row(pn.widgets.Select.from_param(p.sparsity, name="Sparsity", width=150),
                                    num("lam", "λ", 120))),
        }
        self._penalties = pn.Row(num("entropy", "entropy weight", 140), num("nuclear", "nuclear weight", 140))
        self._controls = pn.Column(
            pn.widgets.Select.from_param(p.task, name="Task", css_classes=["shr-task"]),
            *self._opts.values(), self._penalties,
            pn.Row(intw("steps", "steps"), intw("seed", "seed")),
            pn.Row(self._start_b, self._pause_b, self._stop_b), width=330)
        self._status = pn.pane.Markdown("Press **Start** to learn.", css_classes=["shr-status"])
        self._error = pn.pane.Alert("", alert_type="danger", visible=False, css_classes=["shr-error"])
        self._gt_pane = pn.pane.HoloViews(self._draw_gt(None))  # static: redrawn only when a run starts
        self._w_pane = pn.pane.HoloViews(None, css_classes=["shr-weights"])
        self._w_dmap((1, 1))
        self._slider = pn.widgets.IntSlider(name="history (snapshot)", start=0, end=1, value=0, width=420)
        self._slider.param.watch(lambda e: self._send(frame=False), "value")
        self._m1 = pn.Column(
            pn.Row(pn.pane.HoloViews(hv.DynamicMap(self._draw_a, streams=[self._pipe])), self._gt_pane),
            pn.Row(self._w_pane,
                   pn.Column(self._slider, pn.pane.Markdown(
                       "Rows of A are weight entries, columns shared parameters, both ordered by the true blocks "
                       "they are matched to. Drag the slider to scrub back through the saved history of A.",
                       width=420))),
            pn.Row(pn.pane.HoloViews(hv.DynamicMap(self._draw_losses, streams=[self._slow_pipe]),
                                     css_classes=["shr-curves"]),
                   pn.pane.HoloViews(hv.DynamicMap(self._draw_penalties, streams=[self._slow_pipe]))))
        self._m2 = pn.Column(
            pn.Row(pn.pane.HoloViews(hv.DynamicMap(self._draw_u, streams=[self._pipe])),
                   pn.pane.HoloViews(hv.DynamicMap(self._draw_hist, streams=[self._pipe]))),
            pn.pane.Markdown("#### Test loss after adaptation (new tasks)"),
            pn.pane.DataFrame(pd.DataFrame(), index=False, css_classes=["shr-compare"]), visible=False)
        self._saved = pn.widgets.Select(name="Saved runs", options=[], width=420)
        self._load_b = pn.widgets.Button(name="Load", width=80)
        self._load_b.on_click(lambda e: self.load(self._saved.value))
        self._refresh_saved()

    def __panel__(self):
        main = pn.Column(self._error, self._status, self._m1, self._m2, pn.Row(self._saved, self._load_b),
                         sizing_mode="stretch_width")
        return pn.Row(self._controls, main, sizing_mode="stretch_width")

    def _on_task(self, reset_steps: bool):
        for name, box in self._opts.items():
            box.visible = name == self.task
        self._penalties.visible = self.task != "msr"
        if reset_steps:
            self.steps = DEFAULTS.get(self.task, {}).get("steps", 600) if self.task != "msr" else 600
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
            return a_heatmap(np.full((2, 2), 0.5), np.array([0, 1]), "A (learned): press Start")
        return a_heatmap(A, data["gt"])

    def _draw_gt(self, data):
        if not data or data.get("method") != 1:
            return a_heatmap(np.full((2, 2), 0.5), np.array([0, 1]), "A_gt (ground truth)")
        return gt_heatmap(data["gt"])

    def _w_dmap(self, shape):
        """A fresh DynamicMap for the implied weights: its frame size follows the first frame, so every run
        (whose weight shape may differ) gets one whose placeholder already has the right shape."""
        def draw(data):
            A = self._snapshot(data)
            if A is None or data.get("method") != 1:
                return weights_coloring(np.zeros(int(np.prod(shape)), dtype=np.int64), shape, "implied W")
            return weights_coloring(A.argmax(1), data["shape"], "implied W")

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
        if U is None:
            return u_picture(np.zeros((4, 1)), 2, 2, "max_k |U|: press Start")
        return u_picture(U, data["n_out"], data["n_in"], f"max_k |U| ({data.get('label', '')})")

    def _draw_hist(self, data):
        U = (data or {}).get("U")
        return u_histogram(U if U is not None else np.zeros(1))

    def _send(self, frame: bool = True, final: bool = False):
        t0 = time.perf_counter()  # curves redraw at most every CURVE_SECONDS
        data = dict(self._state.get("view", {}), history=list(self.history), snapshots=self.snapshots)
        self._pipe.send(data)
        if final or t0 - self._last_curves >= CURVE_SECONDS:
            self._slow_pipe.send(data)
            self._last_curves = t0
        if frame:
            self.frames.append(time.perf_counter())

    # ------------------------------------------------------------------ control
    @property
    def running(self) -> bool:
        return self.worker is not None and self.worker.is_alive()

    def config(self) -> dict:
        keys = {"gaussian": ["K", "blocks", "samples", "split"], "group": ["group"], "sum": ["positions"],
                "msr": ["rank", "kernel", "tasks", "sparsity", "lam"], "conv": []}[self.task]
        common = ["steps", "seed"] + (["entropy", "nuclear"] if self.task != "msr" else [])
        return {"task": self.task, **{k: getattr(self, k) for k in keys + common}}

    def _make_task(self):
        if self.task == "gaussian":
            return GaussianTask(K=self.K, blocks=self.blocks, samples=self.samples, split=self.split, seed=self.seed)
        if self.task == "conv":
            return conv_task(seed=self.seed)
        if self.task == "group":
            return group_task(self.group, seed=self.seed)
        return sum_task(positions=self.positions, seed=self.seed)

    def start(self) -> bool:
        if self.running:
            return False
        try:
            task = None if self.task == "msr" else self._make_task()
            family = LocallyConnected(kernel=self.kernel, rank=self.rank, seed=self.seed) if self.task == "msr" else None
        except LabError as err:
            self._show_error(str(err))
            return False
        self._error.visible = False
        self._stop.clear()
        self._pause.clear()
        self.history, self.snapshots, self._pending = [], [], []
        cfg = self.config()
        if task is not None:
            w_shape = (task.info["W"].shape if task.name in ("conv", "group") else
                       (task.K, 1) if task.name == "sum" else (1, task.K))
            self._state = {"phase": "learning", "view": {"method": 1, "gt": task.gt, "shape": w_shape}}
            self._gt_pane.object = gt_heatmap(task.gt)
            self._w_dmap(w_shape)
            target = lambda: self._work_bilevel(task, cfg)  # noqa: E731
        else:
            self._state = {"phase": "learning", "view": {"method": 2, "n_out": family.n_out, "n_in": family.n_in}}
            target = lambda: self._work_msr(family, cfg)  # noqa: E731
        self.worker = threading.Thread(target=target, daemon=True, name="sharing-discovery")
        self.worker.start()
        self._buttons(True)
        self._status.object = f"Learning **{self.task}** …"
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None and self._periodic is None:
            self._periodic = pn.state.add_periodic_callback(self.poll, period=FRAME_MS)
        return True

    def _toggle_pause(self):
        if self._pause.is_set():
            self._pause.clear()
            self._pause_b.name = "Pause"
        elif self.running:
            self._pause.set()
            self._pause_b.name = "Resume"

    def stop(self, wait: bool = True, timeout: float = 10.0):
        self._stop.set()
        self._pause.clear()
        if wait and self.worker is not None:
            self.worker.join(timeout)

    # ------------------------------------------------------------------ workers
    def _push(self, item):
        with self._lock:
            self._pending.append(item)

    def _work_bilevel(self, task, cfg):
        try:
            res = learn_sharing(task, steps=cfg["steps"], entropy=cfg["entropy"], nuclear=cfg["nuclear"],
                                seed=cfg["seed"], on_step=lambda rec, A: self._push(("step", rec, A)),
                                stop=self._stop, pause=self._pause)
            status = "stopped" if self._stop.is_set() else "finished"
            summary = {"partition_distance": res.partition_distance, "labels": res.labels.tolist(),
                       "ground_truth": task.gt.tolist(), "mse_gap": res.mse_gap, "test_loss": res.test_loss,
                       "steps_per_second": res.steps_per_second}
            path = save_sharing(cfg, res.history, res.A_history, summary, self.results, status)
            self._push(("done", status, summary, str(path)))
        except Exception as err:  # never a traceback page
            self._push(("error", f"{type(err).__name__}: {err}" if not isinstance(err, LabError) else str(err)))

    def _work_msr(self, family, cfg):
        try:
            rows = []
            runs = [("msr", cfg["sparsity"]), ("msr", "none"), ("fc", "none")]
            for model, sparsity in dict.fromkeys(runs):
                label = f"{model}, {sparsity} sparsity" if model == "msr" else "fully connected"
                res = meta_learn(family, tasks=cfg["tasks"], model=model, sparsity=sparsity, lam=cfg["lam"],
                                 steps=cfg["steps"], seed=cfg["seed"], stop=self._stop, pause=self._pause,
                                 on_step=lambda rec, U, label=label: self._push(("msr", rec, U, label)))
                rows.append({"model": label, "test loss": res.test_loss})
                self._push(("compare", list(rows)))
                if self._stop.is_set():
                    break
            status = "stopped" if self._stop.is_set() else "finished"
            path = save_sharing(cfg, self.history, [], {"comparison": rows}, self.results, status)
            self._push(("done", status, {"comparison": rows}, str(path)))
        except Exception as err:
            self._push(("error", f"{type(err).__name__}: {err}" if not isinstance(err, LabError) else str(err)))

    # ------------------------------------------------------------------ event loop
    def poll(self) -> int:
        with self._lock:
            items, self._pending = self._pending, []
        if not items:
            if not self.running and self._periodic is not None:
                self._periodic.stop()
                self._periodic = None
            return 0
        follow = self._slider.value >= self._slider.end - 1 or not self.snapshots
        for item in items:
            kind = item[0]
            if kind == "step":
                self.history.append(item[1])
                self.snapshots.append(item[2])
            elif kind == "msr":
                rec = dict(item[1], label=item[3])
                self.history.append(rec)
                if item[2] is not None:
                    self._state["view"].update(U=item[2], label=item[3])
            elif kind == "compare":
                self._m2[2].object = pd.DataFrame(item[1])
            elif kind == "done":
                self._state.update(phase=item[1], summary=item[2], saved=item[3])
                self._buttons(False)
                self._refresh_saved()
            elif kind == "error":
                self._state["phase"] = "error"
                self._show_error(item[1])
                self._buttons(False)
        if self.snapshots:
            self._slider.end = max(len(self.snapshots) - 1, 1)
            if follow:
                self._slider.value = len(self.snapshots) - 1
        finished = any(item[0] in ("done", "error") for item in items)
        self._send(final=finished or not self.running)  # the last frame always redraws the curves too
        self._status.object = self._status_text()
        return len(items)

    def _status_text(self) -> str:
        s = self._state
        last = self.history[-1] if self.history else {}
        text = f"**{s.get('phase', '')}** · {self.task}"
        if "partition_distance" in last:
            text += (f" · step {last['step']} · upper {last['upper']:.4g} · partition distance "
                     f"{last['partition_distance']}")
        elif "outer_loss" in last:
            text += f" · {last.get('label', '')} step {last['step']} · outer loss {last['outer_loss']:.4g}"
        summary = s.get("summary") or {}
        if "partition_distance" in summary:
            text += f"  \nfinal partition distance **{summary['partition_distance']}** (after snapping and merging)"
        if s.get("saved"):
            text += f"  \nsaved to `{s['saved']}`"
        return text

    def _refresh_saved(self):
        self._saved.options = {p.name: str(p) for p in list_sharing(self.results)[:50]}

    def load(self, path) -> bool:
        if not path:
            return False
        try:
            run = load_sharing(path)
        except LabError as err:
            self._show_error(str(err))
            return False
        cfg = run.meta["config"]
        self.history = run.history.to_dict("records")
        self.snapshots = list(run.snapshots) if run.snapshots is not None else []
        summary = run.meta.get("summary", {})
        if "ground_truth" in summary and self.snapshots:
            gt = np.asarray(summary["ground_truth"])
            K = gt.size
            shape = (1, K) if cfg["task"] == "gaussian" else (K, 1) if cfg["task"] == "sum" else None
            if shape is None:
                task = conv_task(seed=cfg["seed"]) if cfg["task"] == "conv" else group_task(cfg["group"], seed=cfg["seed"])
                shape = task.info["W"].shape
            self._state = {"phase": f"loaded ({run.meta['status']})", "summary": summary, "saved": str(run.path),
                           "view": {"method": 1, "gt": gt, "shape": shape}}
            self._m1.visible, self._m2.visible = True, False
            self._gt_pane.object = gt_heatmap(gt)
            self._w_dmap(shape)
            self._slider.end = max(len(self.snapshots) - 1, 1)
            self._slider.value = len(self.snapshots) - 1
        self._send(final=True)
        self._status.object = self._status_text()
        return True
