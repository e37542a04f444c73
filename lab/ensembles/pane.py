"""Ensembles pane: do ensembles trained under data augmentation become equivariant, and on what does it depend?
(``lab ensembles``, Nordenfors & Flinth's poster; issue 30.)

Start runs the ``ensembles`` experiment family (``lab.ensembles.family``) as a ``lab.jobs.Job`` through the
pane's ``JobRunner`` (a worker process by default): a pool of small CNNs trained at once on the rotation-invariant
digits in one of three settings; every control is built from ``EnsemblesConfig``'s declarations.  Under the setting
the sidebar says which of the theorem's two assumptions hold (an invariant layer space, an invariant initial
distribution; the family's words, the run's own verified verdicts once it starts), and the plan line says the exact
member-steps before any work.  While it trains:

* the **median member's loss** at every step, and each metric -- the **equivariance error**, the **symmetric KL** and
  the **orbit-same-prediction** -- against the training step for three sizes (M = 1, a middle one, the largest),
  streamed as the records arrive (the live-pane base, ``lab.dashboard.live``);
* the **error against M** at the latest recorded step, log-log, one colour per setting: the run's own curve and the
  latest saved run of each other setting (so running the three settings in turn builds the comparison), the fitted
  slope in the legend and a reference of slope -1/2 (``lab.ensembles.plots_bokeh``);
* **one held-out digit along its orbit** with the whole ensemble's and member 0's probability of its class.

A run's end draws its saved summary (the numbers the family wrote); Load draws a saved run (its metrics and example;
the loss is not saved) and puts its settings back.  Bad settings are one inline message and start nothing.
"""
from __future__ import annotations

from pathlib import Path

import panel as pn

from ..device import DEVICES
from ..errors import LabError
from . import family
from .family import VECTOR_TASKS, EnsemblesConfig, assumptions, latest_curve
from ..jobs import Job
from .plots_bokeh import METRIC_AXES, METRIC_NAMES, example_figure, size_figure
from ..plots.style import SETTING_COLOURS, SIZE_SHADES
from ..dashboard.config_params import add_config_params, config_values
from ..dashboard.guard import guarded
from ..dashboard.job_pane import JobPane, worker_param
from ..dashboard.layout import titled
from ..dashboard.live import LivePlot, LiveView

#: the config fields the pane shows; the others (batch, lr, resamples, records, test points, seed, group) keep the
#: family's defaults (a loaded run's other values are named in its status line)
CONFIG_NAMES = ["task", "setting", "members", "pool_factor", "steps", "channels", "augment", "average", "device"]
HIDDEN_NAMES = ("batch", "lr", "resamples", "records", "test_points", "seed", "group")
#: what each task's held-out inputs are, for the figures' titles
INPUT_WORDS = {"digits": "digits", "perm": "graphs", "custom": "inputs"}
#: settings of the digits task only (hidden, and kept out of the config, for the vector tasks)
DIGITS_ONLY = ("channels",)
#: the metrics drawn against the training step, in order
METRICS = ("equivariance_error", "divergence", "orbit_same_prediction")
LOSS = LivePlot("ens-loss", y="loss", title="median member's loss (its training batch)", xlabel="SGD step",
                ylabel="cross-entropy", height=230)
PLOTS = tuple(LivePlot(f"ens-{m}", y=m, title=f"{METRIC_NAMES[m]}, held-out inputs", xlabel="SGD step",
                       ylabel=METRIC_AXES[m], logy=m != "orbit_same_prediction",
                       legend=True, legend_above=True, height=230)
              for m in METRICS)
#: how many saved runs (newest first) are read for the other settings' curves
SAVED_SCAN = 50


def shown_sizes(sizes) -> list[int]:
    """The sizes drawn against the step: 1, the middle one, the largest (fewer when there are fewer)."""
    sizes = list(sizes)
    return list(dict.fromkeys([sizes[0], sizes[len(sizes) // 2], sizes[-1]])) if sizes else []


def size_name(m: int) -> str:
    return f"M = {m}"


def assumption_lines(a: dict) -> str:
    """The theorem's two assumptions as ✓/✗ lines, and what follows (``a``: ``assumptions(setting)``, or a run's
    verified verdicts with the words added)."""
    def mark(ok):
        return "✓" if ok else "✗"

    words = (f"{mark(a['space_invariant'])} layer space invariant: {a.get('space', '')}  \n"
             f"{mark(a['init_invariant'])} initialisation invariant: {a.get('init', '')}  \n")
    verdict = ("*the theorem applies: the ensemble mean stays equivariant, a finite ensemble's error falls as 1/√M*"
               if a["space_invariant"] and a["init_invariant"] else
               "*the theorem does not apply: the error may level off as M grows*")
    return words + verdict


class Ensembles(JobPane):
    family, css, config_names, hidden_names = "ensembles", "ens", CONFIG_NAMES, HIDDEN_NAMES
    idle = "Press **Start** to train a pool of CNNs under augmentation, or **Load** a saved run."
    worker = worker_param("the pool")

    def __init__(self, results: str | None = None, **params):
        super().__init__(results, **params)
        self._info: dict = {}
        self._records: list[dict] = []  # the live (or loaded) run's metric rows
        self._summary: dict | None = None  # the live (or loaded) run's summary, once it has one
        self._source = "this run"  # the live (or loaded) curve's legend words
        self._ready()
        self.param.watch(guarded(self, "showing the setting")(lambda *e: self._show_assumptions()),
                         ["setting", "task"])
        self.param.watch(lambda *e: self._show_task(), ["task"])
        self._show_task()
        self._show_assumptions()
        self._reset_live([])
        self._show_sizes()
        self._example_pane.object = example_figure(None)

    # ------------------------------------------------------------------ layout
    def _widgets(self):
        p = self.param
        self._assumptions = pn.pane.Markdown("", css_classes=["ens-assumptions"], margin=(0, 10),
                                             styles={"font-size": "0.9em"})
        self._channels_w = self._number("channels", "Channels", width=90,
                                                          css_classes=["ens-channels"])
        self._controls = pn.Column(
            pn.widgets.Select.from_param(p.task, label="Task", css_classes=["ens-task"]),
            pn.widgets.Select.from_param(p.setting, label="Setting (which assumptions hold)",
                                         css_classes=["ens-setting"]),
            self._assumptions,
            pn.Row(self._number("members", "Members M", width=90, css_classes=["ens-members"]),
                   self._number("pool_factor", "Pool × M", width=90,
                                                  css_classes=["ens-pool"]),
                   self._number("steps", "Steps", width=90, css_classes=["ens-steps"])),
            pn.Row(self._channels_w,
                   pn.widgets.Select.from_param(p.device, label="Device", options=list(DEVICES), width=185)),
            titled(pn.widgets.RadioButtonGroup.from_param(p.augment, css_classes=["ens-augment"]),
                   "Augmentation (sampled: the poster's)"),
            titled(pn.widgets.RadioButtonGroup.from_param(p.average, css_classes=["ens-average"]),
                   "The ensemble averages"),
            titled(pn.widgets.RadioButtonGroup.from_param(p.worker), "Run in"),
            sizing_mode="stretch_width", min_width=300)
        self.loss_live = LiveView((LOSS,), group="series", run="run", colours={"median member": "#555555"})
        self.live = LiveView(PLOTS, group="size", run="run")
        self._headline = pn.pane.Markdown("", css_classes=["ens-headline"], sizing_mode="stretch_width",
                                          styles={"font-size": "1.05em"})
        self._sizes_pane = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=390, css_classes=["ens-size"])
        self._sizes_note = pn.pane.Markdown("", css_classes=["ens-sizes-note"], margin=(0, 10),
                                            styles={"font-size": "0.85em"})
        self._example_pane = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=370,
                                           css_classes=["ens-example"])
        # shown and hidden as wholes: a Bokeh pane takes its ``visible`` from the Bokeh model it is given
        self._example_box = pn.Column(self._example_pane, sizing_mode="stretch_width")
        self._loss_box = pn.Column(self.loss_live.panes["ens-loss"], sizing_mode="stretch_width")

    def _main(self):
        lp = self.live.panes
        return pn.Column(
            self._error, self._progress, self._status, self._headline,
            pn.Row(pn.Column(self._sizes_pane, self._sizes_note, sizing_mode="stretch_width"), self._example_box,
                   sizing_mode="stretch_width"),
            pn.Row(lp["ens-equivariance_error"], lp["ens-divergence"], sizing_mode="stretch_width"),
            pn.Row(lp["ens-orbit_same_prediction"], self._loss_box, sizing_mode="stretch_width"),
            sizing_mode="stretch_width")

    # ------------------------------------------------------------------ the settings
    def _plan_text(self) -> str:
        """What Start would do, in the config's exact counts (before any work)."""
        cfg = self.config()
        costs = cfg.validate().costs()
        sizes = cfg.sizes()
        return (f"Start trains a pool of {costs['pool']:,} members ({cfg.pool_factor} × M) for "
                             f"{cfg.steps:,} SGD steps each: **{costs['member_steps']:,} member-steps**; the metrics "
                             f"at {len(cfg.record_steps())} steps for M = {', '.join(map(str, sizes))} "
                             f"({cfg.resamples} draws per size)")

    def _show_assumptions(self, verified: dict | None = None) -> None:
        """The chosen setting's assumptions (``verified``: a run's own verdicts, which replace the declared ones)."""
        try:
            a = assumptions(self.setting, self.task)
        except LabError as err:
            self._assumptions.object = str(err)
            return
        if verified:
            a |= {k: bool(verified[k]) for k in ("space_invariant", "init_invariant") if k in verified}
        self._assumptions.object = assumption_lines(a)

    # ------------------------------------------------------------------ control
    def config(self) -> EnsemblesConfig:
        """The settings as a config; the digits-only ones (channels) not for a vector task (a hidden control keeps
        its value; it must not reach the config)."""
        values = config_values(self, CONFIG_NAMES)
        if values["task"] in VECTOR_TASKS:
            for n in DIGITS_ONLY:
                values.pop(n)
        return EnsemblesConfig(**values)

    def _show_task(self) -> None:
        """The channels control for the digits' CNNs only (the vector tasks' networks are the dynamics models)."""
        self._channels_w.visible = self.task not in VECTOR_TASKS
        self._example_box.visible = self.task not in VECTOR_TASKS  # the vector tasks' inputs are not images

    def _job(self, config) -> Job:
        """Train the pool and measure it."""
        return self._family_job(config)

    def _on_start(self, job, cfg) -> None:
        self._info = {"setting": cfg.setting, "pool": cfg.pool, "steps": cfg.steps}
        self._records, self._summary, self._source = [], None, "this run"
        self._headline.object = ""
        self._reset_live(shown_sizes(cfg.sizes()))
        self._loss_box.visible = True
        self._example_pane.object = example_figure(None, empty="drawn when the run ends")
        self._show_sizes()

    # ------------------------------------------------------------------ drawing
    def _reset_live(self, sizes) -> None:
        """Fresh step plots for the sizes ``sizes`` (light to dark) and a fresh loss plot."""
        names = [size_name(m) for m in sizes]
        shades = SIZE_SHADES[-len(names):] if names else ()
        self.live.colours = dict(zip(names, shades))
        self.live.reset(names)
        self.loss_live.reset(["median member"])
        self._shown_sizes = list(sizes)

    def _add_records(self, rows) -> None:
        """Metric rows of one recorded step: kept, and the shown sizes' held-out rows handed to the step plots."""
        self._records += rows
        self.live.add([{"size": size_name(r["size"]), "run": 0, "step": r["step"],
                        **{m: r[m] for m in METRICS}}
                       for r in rows if r["inputs"] == "test" and r["size"] in self._shown_sizes])

    def _latest_saved(self, skip: str | None) -> dict:
        """{setting: (run name, summary)} of the newest saved run of each setting but ``skip`` (runs that cannot be
        read are passed over)."""
        out: dict = {}
        for path in family.list_runs(self.results)[:SAVED_SCAN]:
            try:
                s = family.saved_summary(path)
            except LabError:
                continue
            setting = s.get("setting") if isinstance(s, dict) else None
            if s.get("task", "digits") != self.task if isinstance(s, dict) else True:
                continue  # another task's runs are not comparable
            if setting in SETTING_COLOURS and setting != skip and setting not in out and drawable(s):
                out[setting] = (path.name, s)
        return out

    def _show_sizes(self) -> None:
        """The error against M: the live (or loaded) run's curve at its latest step, then the latest saved run of
        every other setting."""
        setting = self._info.get("setting")
        curves, notes = [], []
        own = self._summary if self._summary and self._summary.get("equivariance_error") else latest_curve(
            self._records)
        if setting and own:
            curves.append({"setting": setting, "source": self._source, "sizes": own["sizes"],
                           "values": own["equivariance_error"], "slope": own.get("slope"), "live": True})
            notes.append(f"*{setting}*: {self._source}, step {own.get('step')}")
        for s_name, (name, s) in self._latest_saved(skip=setting).items():
            curves.append({"setting": s_name, "source": f"saved {run_time(name)}", "sizes": s["sizes"],
                           "values": s["equivariance_error"], "slope": s.get("slope"), "live": False})
            notes.append(f"*{s_name}*: saved run `{name}` (M up to {s.get('members')}, {s.get('augment')} "
                         f"augmentation, step {s.get('step')})")
        self._sizes_pane.object = size_figure(curves, inputs=INPUT_WORDS.get(self.task, "inputs"))
        self._sizes_note.object = ("Curves from: " + "; ".join(notes)) if notes else \
            (f"No saved run of the {self.task} task to compare with yet: run each setting in turn to compare them "
             "here (the Saved runs list holds every run, of every task).")

    def _show_summary(self, s: dict) -> None:
        """A run's summary: the headline, the against-M figure (its own numbers) and the example digit."""
        self._summary = s
        self._show_sizes()
        self._example_pane.object = example_figure(
            s.get("example"), s.get("setting", "invariant"),
            empty="drawn for the digits task only" if s.get("task") in VECTOR_TASKS else "none saved")
        self._headline.object = headline(s)

    # ------------------------------------------------------------------ messages (event loop)
    def _on_record(self, msg: dict):
        kind = msg["kind"]
        if kind == "started":
            self._info.update({k: msg.get(k) for k in ("setting", "sizes", "pool", "steps", "record_steps",
                                                        "device")})
            self._show_assumptions(msg.get("assumptions"))
        elif kind == "loss":
            self.loss_live.add([{"series": "median member", "run": 0, "step": msg["step"], "loss": msg["loss"]}])
            self._dirty = True
        elif kind == "record":
            self._add_records(msg["rows"])
            self._info["step"] = msg["step"]
            self._show_sizes()
            self._dirty = True
        elif kind in ("done", "failed"):
            saved = msg.get("saved")
            if saved:
                self._source = f"this run, saved as {run_time(Path(saved).name)}"
            if msg.get("summary"):
                self._show_summary(msg["summary"])
            self._select_saved(saved)

    def _live_views(self) -> tuple:
        return (self.live, self.loss_live)

    def _run_detail(self) -> str:
        i = self._info
        if not i.get("setting"):
            return ""
        at = f", last recorded step {i['step']}" if i.get("step") is not None else ""
        return f"**{i['setting']}**: {i['pool']} members, {i['steps']:,} steps{at}"

    # ------------------------------------------------------------------ a loaded run
    @staticmethod
    def _saved_fields(run) -> dict:
        return {"records": run.tables["records.csv"].to_dict("records")}

    def _show_loaded(self, prepared: dict, cfg) -> None:
        """Its metrics, against-M curve and example drawn from its files."""
        s = prepared["meta"].get("summary") or {}
        self._info = {"setting": cfg.setting, "pool": cfg.pool, "steps": cfg.steps}
        self._records, self._summary, self._source = [], None, f"loaded {run_time(prepared['name'])}"
        self._reset_live(shown_sizes(cfg.sizes()))
        self._add_records(prepared["records"])
        self.live.draw(final=True)
        self._loss_box.visible = False  # the loss per step is not saved
        self._show_assumptions(s.get("assumptions"))
        self._show_summary(s)


def drawable(s: dict) -> bool:
    """A saved summary the against-M figure can draw: sizes (positive integers) and as many errors (numbers); a
    hand-edited one that is not is passed over (Load says what is wrong with it)."""
    sizes, errors = s.get("sizes"), s.get("equivariance_error")
    return (isinstance(sizes, list) and isinstance(errors, list) and 0 < len(sizes) == len(errors)
            and all(isinstance(m, int) and not isinstance(m, bool) and m > 0 for m in sizes)
            and all(isinstance(e, (int, float)) and not isinstance(e, bool) for e in errors)
            and (s.get("slope") is None or isinstance(s["slope"], (int, float))))


def run_time(name: str) -> str:
    """A saved run's time of day from its ``runstore`` name (``YYYYMMDD-HHMMSS-...``); else the name."""
    head = name.split("-")
    if len(head) > 1 and len(head[0]) == 8 and len(head[1]) == 6 and (head[0] + head[1]).isdigit():
        return f"{head[1][:2]}:{head[1][2:4]}:{head[1][4:]}"
    return name


def headline(s: dict) -> str:
    """A run's summary in words: the slope, the accuracies and how far it went."""
    slope = s.get("slope")
    law = f"error ∝ M^{slope:.2f}" if slope is not None and slope == slope else "no slope (one size)"
    noise = (s.get("noise") or {}).get("slope")
    on_noise = f", on noise M^{noise:.2f}" if noise is not None and noise == noise else ""
    acc = s.get("accuracy") or {}
    accuracy = (f" · held-out accuracy: ensemble of {s.get('pool')} {acc['ensemble']:.2f}, median member "
                f"{acc['member_median']:.2f}" if acc else "")
    return (f"**{s.get('setting')}: {law}** at step {s.get('step')} (−0.5: an equivariant mean){on_noise}{accuracy}"
            f" · {s.get('steps_done')}/{s.get('steps')} steps of {s.get('pool')} members, {s.get('augment')} "
            f"augmentation, {s.get('status')}")


add_config_params(Ensembles, EnsemblesConfig, CONFIG_NAMES)
