"""Symmetry-discovery pane: learn a continuous symmetry from data and hand it to the engine (``lab discover-lie``,
issue 33).

Start runs the ``discovery`` experiment family (``lab.discovery.family``) as a ``lab.jobs.Job`` through the
pane's ``JobRunner`` (a worker process by default): an MLP fitted to samples of a task with a known answer, k
Lie-algebra generators learned from its Lie derivative, the ones below the threshold kept, the learned group's basis
solved at the stated tolerance, and EMLP on it against EMLP on the true group and the MLP.  Every control is built
from ``DiscoveryConfig``'s declarations.  While it runs (``lab.discovery.plots_bokeh``):

* the **generators converging** as heatmaps, one per generator, its symmetry loss relative to chance in its title,
  the kept ones marked (the gradient method's snapshots; at the end the kept generators of the saved summary);
* their **largest principal angle to the truth** against the step, one line per restart;
* the **singular values of the solve**, descending on a log axis, the cut at ``tol`` drawn across and the kept ones
  coloured (a loaded run saved only the two values around the cut: those are drawn);
* the **learned-EMLP vs true-EMLP vs MLP** relative test MSE, with the family's reason where the EMLPs were not
  trained.

A run with no symmetry (the ``none`` task) says its ``none_reason`` inline.  Load draws a saved run and puts its
settings back.  Bad settings are one inline message and start nothing.
"""
from __future__ import annotations

import math

import time
from pathlib import Path

import panel as pn

from ..device import DEVICES
from .family import DiscoveryConfig, loop_mse
from ..jobs import Job
from .plots_bokeh import angle_figure, generators_figure, mse_figure, singular_figure
from ..dashboard.config_params import add_config_params, config_values
from ..dashboard.job_pane import JobPane, worker_param
from ..dashboard.layout import titled

#: the config fields the pane shows; the other (seed) keeps the family's default (a loaded run's other value is
#: named in its status line)
CONFIG_NAMES = ["task", "method", "generators", "threshold", "tol", "closure", "samples", "fit_steps", "hidden",
                "optimizer", "steps", "restarts", "loop_epochs", "loop_seeds", "device"]
HIDDEN_NAMES = ("seed",)
#: the settings of the gradient method only
GRADIENT_ONLY = ("steps", "restarts")
#: seconds between two redraws of the snapshot figures while a run streams
FRAME_SECONDS = 0.3


class SymmetryDiscovery(JobPane):
    family, css, config_names, hidden_names = "discovery", "disc", CONFIG_NAMES, HIDDEN_NAMES
    idle = "Press **Start** to learn a symmetry from data, or **Load** a saved run."
    worker = worker_param()

    def __init__(self, results: str | None = None, **params):
        super().__init__(results, **params)
        self._history: list = []  # (restart, step, degrees) of the live run
        self._snapshot: dict | None = None  # the newest snapshot record
        self._summary: dict | None = None
        self._started: dict = {}
        self._config: DiscoveryConfig | None = None
        self._last_frame = 0.0
        self._ready()
        self.param.watch(lambda *e: self._show_method(), ["method"])
        self._show_method()
        self._draw_empty("press Start")

    # ------------------------------------------------------------------ layout
    def _widgets(self):
        p = self.param
        self._gradient_w = pn.Row(
            self._number("steps", "Steps / restart", width=120, css_classes=["disc-steps"]),
            self._number("restarts", "Restarts", width=90, css_classes=["disc-restarts"]))
        self._controls = pn.Column(
            pn.widgets.Select.from_param(p.task, label="Task (its true symmetry known)", css_classes=["disc-task"]),
            titled(pn.widgets.RadioButtonGroup.from_param(p.method, css_classes=["disc-method"]), "Method"),
            pn.Row(self._number("generators", "Generators k", width=90,
                                                  css_classes=["disc-generators"]),
                   self._number("threshold", "Threshold", width=90,
                                                    css_classes=["disc-threshold"]),
                   self._number("tol", "Solve tol", width=90, css_classes=["disc-tol"])),
            self._number("closure", "Closure weight (the lab's; 0: off)", width=200,
                                             css_classes=["disc-closure"]),
            pn.Row(self._number("samples", "Samples", width=90, css_classes=["disc-samples"]),
                   self._number("fit_steps", "MLP fit steps", width=100,
                                                  css_classes=["disc-fit-steps"]),
                   self._number("hidden", "MLP width", width=80, css_classes=["disc-hidden"])),
            titled(pn.widgets.RadioButtonGroup.from_param(p.optimizer, css_classes=["disc-optimizer"]),
                   "Optimizer (the fit, and the gradient method)"),
            self._gradient_w,
            pn.Row(pn.widgets.Select.from_param(p.device, label="Device", options=list(DEVICES), width=90),
                   self._number("loop_epochs", "Loop epochs", width=90, css_classes=["disc-loop-epochs"]),
                   self._number("loop_seeds", "Loop seeds", width=80, css_classes=["disc-loop-seeds"])),
            titled(pn.widgets.RadioButtonGroup.from_param(p.worker), "Run in"),
            sizing_mode="stretch_width", min_width=300)
        self._headline = pn.pane.Markdown("", css_classes=["disc-headline"], sizing_mode="stretch_width",
                                          styles={"font-size": "1.05em"})
        self._none = pn.pane.Alert("", alert_type="warning", visible=False, css_classes=["disc-none"])
        self._generators_pane = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=180,
                                              css_classes=["disc-generators-plot"])
        self._angle_pane = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=270, css_classes=["disc-angle"])
        self._singular_pane = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=270,
                                            css_classes=["disc-singular"])
        self._mse_pane = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=270, css_classes=["disc-mse"])

    def _main(self):
        return pn.Column(
            self._error, self._progress, self._status, self._headline, self._none,
            self._generators_pane,
            pn.Row(self._angle_pane, self._singular_pane, self._mse_pane, sizing_mode="stretch_width"),
            self._note, sizing_mode="stretch_width")

    # ------------------------------------------------------------------ the settings
    def config(self) -> DiscoveryConfig:
        """The settings as a config (the gradient method's steps and restarts reach it for that method only)."""
        values = config_values(self, CONFIG_NAMES)
        if values["method"] != "gradient":
            for n in GRADIENT_ONLY:
                values.pop(n)
        return DiscoveryConfig(**values)

    def _show_method(self) -> None:
        self._gradient_w.visible = self.method == "gradient"

    def _plan_text(self) -> str:
        """What Start would do, in the config's exact costs (before any work)."""
        cfg = self.config().validate()
        costs = cfg.costs()
        how = "L-BFGS iterations" if cfg.optimizer == "lbfgs" else "Adam steps"
        learn = (f"{costs['generator_steps']:,} {how} for {cfg.generators} generators" if cfg.method == "gradient"
                 else f"the {cfg.generators} exact minimisers")
        return (f"Start fits an MLP for {cfg.fit_steps:,} {how} on {cfg.samples:,} samples, then learns "
                             f"{learn} in a space of {cfg.form_size():,} directions (a form of "
                             f"{costs['form_entries']:,} entries)")

    # ------------------------------------------------------------------ control
    def _job(self, config) -> Job:
        """Learn the generators (the result kept from a process: its singular values and history are drawn)."""
        return self._family_job(config, keep_result=self.worker == "process")

    def _on_start(self, job, config) -> None:
        self._config = config
        self._history, self._snapshot, self._summary, self._started = [], None, None, {}
        self._headline.object = self._note.object = ""
        self._none.visible = False
        self._draw_empty("drawn as the run goes")

    # ------------------------------------------------------------------ drawing
    def _draw_empty(self, empty: str) -> None:
        self._generators_pane.object = generators_figure([], empty=empty)
        self._angle_pane.object = angle_figure([], empty=empty)
        self._singular_pane.object = singular_figure(None, self.tol, empty="at the end")
        self._mse_pane.object = mse_figure(None, empty="at the end")

    def _draw_snapshot(self) -> None:
        s = self._snapshot
        if s is not None:
            threshold = self._config.threshold if self._config else self.threshold
            self._generators_pane.object = generators_figure(
                s["generators"], s["losses"], threshold,
                title=f"all {len(s['generators'])} candidates, restart {s['restart'] + 1}, step {s['step']}")
        self._angle_pane.object = angle_figure(self._history, empty="no true algebra"
                                               if self._snapshot and self._snapshot.get("max_angle") is None
                                               else "drawn as the run goes")

    def _after_poll(self, count: int) -> None:
        """A frame of the snapshot figures when new snapshots wait, at most every ``FRAME_SECONDS``."""
        now = time.monotonic()
        if self._dirty and (self.runner.settled or now - self._last_frame >= FRAME_SECONDS):
            self._draw_snapshot()
            self._dirty, self._last_frame = False, now

    def _show_summary(self, s: dict, singular_values=None, history=None) -> None:
        """A run's summary: its kept generators, the solve, the comparison, the angle history, the words."""
        self._summary = s
        found = s.get("found", 0)
        losses = (s.get("losses") or [])[:found]
        self._generators_pane.object = generators_figure(
            s.get("generators"), losses, s.get("threshold"), title=f"the {found} kept generator(s)",
            empty="none kept")
        if history is not None:
            self._history = [(0, st, d) for st, d in history]
        self._angle_pane.object = angle_figure(self._history, empty="none recorded")
        if found:
            self._singular_pane.object = singular_figure(singular_values, s.get("tol", self.tol),
                                                         s.get("singular_gap"), s.get("basis_rank"))
        else:
            self._singular_pane.object = singular_figure(None, s.get("tol", self.tol), empty="no group")
        self._mse_pane.object = mse_figure(loop_mse(s) if s.get("test_mse") else None, empty="not measured")
        reason = s.get("none_reason")
        self._none.object = f"**No symmetry found**: {reason}" if reason else ""
        self._none.visible = bool(reason)
        self._headline.object = headline(s)

    # ------------------------------------------------------------------ messages (event loop)
    def _on_record(self, msg: dict):
        kind = msg["kind"]
        if kind == "started":
            self._started = msg
        elif kind == "snapshot":
            self._snapshot = msg
            if msg.get("max_angle") is not None:
                self._history.append((msg["restart"], msg["step"], msg["max_angle"]))
            self._dirty = True
        elif kind in ("done", "failed"):
            self._dirty = False
            result = msg.get("result")
            basis = getattr(result, "basis", None) or {}
            if msg.get("summary"):
                history = None if self._history else getattr(result, "history", None)
                self._show_summary(msg["summary"], basis.get("singular_values"), history)
            saved = msg.get("saved")
            if saved:
                self._note.object = f"Saved as `{Path(saved).name}`"
            self._select_saved(saved)

    def _run_detail(self) -> str:
        s = self._started
        if not s:
            return ""
        return (f"**{s.get('task')}**: a form of {s.get('form_entries', 0):,} entries, {s.get('fit_steps', 0):,} "
                f"fit steps, {s.get('generator_steps', 0):,} generator steps")

    # ------------------------------------------------------------------ a loaded run
    def _show_loaded(self, prepared: dict, cfg) -> None:
        """Its summary drawn."""
        self._config = cfg
        self._history, self._snapshot = [], None
        self._show_summary(prepared["meta"].get("summary") or {})


def headline(s: dict) -> str:
    """A run's summary in words: how many generators, how close to the truth, the solve's rank."""
    found, true = s.get("found", 0), s.get("true_dimension")
    angle = s.get("max_angle_degrees")
    words = [f"**{s.get('task')}: {found} generator(s) found** by the {s.get('method')} method (true algebra: "
             f"{true})"]
    if angle is not None:
        words.append(f"largest principal angle to the truth {angle:.2f}°")
    posed = s.get("posed_group_angles") or []
    if posed:  # the task's function has more symmetry than the group it is posed with
        words.append(f"{s.get('posed_group')}'s algebra within the learned span to {math.degrees(max(posed)):.2f}°")
    if found:
        words.append(f"V → V over the learned group at tol {s.get('tol'):g}: rank {s.get('basis_rank')} (the true "
                     f"algebra's {s.get('true_basis_rank')})")
        if s.get("basis_group"):  # the summary's words: whose basis this is
            words.append(s["basis_group"])
    words.append(f"{s.get('status')} in {s.get('seconds', 0):.1f} s")
    return " · ".join(words)


add_config_params(SymmetryDiscovery, DiscoveryConfig, CONFIG_NAMES)
