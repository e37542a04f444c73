"""The Equivariant models tab's second mode, *Symmetry regimes* (``lab rpp``, Finzi's thesis chapter 3, Figure 3.2):
MLP, EMLP and RPP-EMLP on data whose symmetry is exact, approximate or misspecified.

Start runs the ``rpp`` experiment family (``lab.rpp.family``) as a ``lab.jobs.Job`` through the view's own
``JobRunner`` (a worker process by default); every control is built from ``RPPConfig``'s declarations (choices,
bounds and defaults written once, there).  The modified inertia's variant shows for approximate inertia only, the
prior controls only while RPP-EMLP is among the models (the config refuses them otherwise).  While it trains:

* the **training log** (``lab.dashboard.live``): test MSE of every model and seed in the order they train, against
  the epochs of the whole run, log scale, streamed;
* **Figure 3.2** for the chosen task (``lab.rpp.plots_bokeh``): a panel per level of symmetry, a box per model of
  its seeds' test MSE.  The run fills its regime's panel as each (model, seed) finishes; the other panels show the
  latest saved run of that task and regime in the rpp runs directory, so running exact, approximate and
  misspecified in turn builds the whole figure;
* the **results table**: per model and seed the test and train MSE, the equivariance error under the data's
  declared group and RPP-EMLP's free fraction ``|W_free| / |W|``.

Saved runs load as in the chapter-2 mode (their settings back in the controls, their curves, boxes and table).
A task the ``rpp`` family cannot run yet (the pendulum, until it lands) is refused by its config at Start: the
refusal is the inline message, nothing starts.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import panel as pn

from ..device import DEVICES
from ..errors import LabError
from . import family as rpp_family
from .family import FAMILY, RPPConfig
from ..jobs import Job
from .plots_bokeh import REGIMES, regimes_figure, show_regime, summary_values
from .plots_mpl import baseline_of, summary_baseline
from ..plots.style import MEAN_BASELINE, MODEL_COLOURS, MODEL_LABELS
from ..dashboard.config_params import add_config_params, config_values
from ..dashboard.guard import guarded
from ..dashboard.job_pane import JobPane, worker_param
from ..dashboard.layout import titled
from ..dashboard.live import LivePlot, LiveView
from ..dashboard.job_pane import read_saved_run

#: the config fields the view shows (every declared one meant for the dashboard)
CONFIG_NAMES = [o.name for o in RPPConfig.declarations() if o.ui]
#: RPP-EMLP's settings: they reach the config only while rpp is among the models
PRIOR_NAMES = ("prior", "prior_free", "prior_equivariant")
PLOTS = (LivePlot("rpp-log", y="mse", x="step", title="test MSE while training, model by model and seed by seed",
                  xlabel="epochs of the whole run (models and seeds in turn)", ylabel="test MSE", logy=True,
                  height=280),)
#: the log's words when its records carry the training loss only (no test MSE per epoch)
TRAIN_LOG = {"title": "training loss while training, model by model and seed by seed", "ylabel": "train MSE"}
TEST_LOG = {"title": PLOTS[0].title, "ylabel": PLOTS[0].ylabel}
COLUMNS = {"model": "model", "seed": "seed", "test_mse": "test MSE", "train_mse": "train MSE",
           "mean_mse": MEAN_BASELINE, "equivariance_error": "equivariance error",
           "free_fraction": "free fraction", "seconds": "seconds"}
#: what a row keeps of a result: the table's columns, and the pendulum's baseline (the test MSE of predicting no
#: motion), shown in the baseline column where there is no predicting-the-mean one
ROW_KEYS = (*COLUMNS, "still_mse")
STILL = "predicting no motion: test MSE"
#: how many saved runs (newest first) are read for the other regimes' panels
SAVED_SCAN = 50


def unit_name(model: str, seed: int) -> str:
    return f"{MODEL_LABELS.get(model, model)} · seed {seed}"


def approximate_inertia(task: str, symmetry: str) -> bool:
    """The only regime with a ``variant`` (the modified inertia: the thesis's formula or the authors' code)."""
    return (task, symmetry) == ("inertia", "approximate")


def regime_groups(task: str) -> dict:
    """{symmetry: the models' group} of ``task``'s regimes, for the empty panels' subtitles (the family's)."""
    groups = rpp_family.regime_groups(task)
    return {s: groups[s] for s in REGIMES if s in groups}


class RPPRegimes(JobPane):
    family, css, config_names = "rpp", "rpp", CONFIG_NAMES
    idle = "Press **Start** to train MLP, EMLP and RPP-EMLP on one regime, or **Load** a saved run."
    worker = worker_param("training")

    def __init__(self, results: str | None = None, **params):
        super().__init__(results, **params)
        self._rows: list[dict] = []
        self._info: dict = {}
        self._live_regime: str | None = None  # the regime whose panel the live (or loaded) run fills
        self._sources_note: dict = {}  # symmetry -> where its panel's numbers come from
        self._offset, self._unit, self._unit_epochs = 0, None, 0
        self._ready()
        self.param.watch(guarded(self, "showing the task")(lambda *e: self._idle_redraw()), ["task"])
        self.param.watch(guarded(self, "checking the task")(lambda *e: self._check_task()), ["task"])
        self._reset_plots(self._planned())

    # ------------------------------------------------------------------ layout
    def _widgets(self):
        p = self.param
        self._variant_w = titled(pn.widgets.RadioButtonGroup.from_param(p.variant, css_classes=["rpp-variant"]),
                                 "Modified inertia (approximate inertia)")
        self._wind_w = self._number("wind", "Wind ε (approximate pendulum)", width=200,
                                                        css_classes=["rpp-wind"])
        self._prior_w = pn.Column(
            pn.widgets.Select.from_param(p.prior, label="RPP-EMLP's prior", css_classes=["rpp-prior"]),
            pn.Row(self._number("prior_free", "Free pathway σ²", width=135,
                                                    placeholder="the prior's", css_classes=["rpp-prior-free"]),
                   self._number("prior_equivariant", "Equivariant pathway σ²",
                                                    width=135, placeholder="the prior's",
                                                    css_classes=["rpp-prior-equivariant"])),
            sizing_mode="stretch_width")
        self.param.watch(lambda *e: self._sync_visible(), ["task", "symmetry", "models"])
        self._controls = pn.Column(
            pn.widgets.Select.from_param(p.task, label="Task", css_classes=["rpp-task"]),
            titled(pn.widgets.RadioButtonGroup.from_param(p.symmetry, css_classes=["rpp-symmetry"]),
                   "Level of symmetry (a panel of Figure 3.2)"),
            self._variant_w,
            self._wind_w,
            titled(pn.widgets.CheckButtonGroup.from_param(p.models, css_classes=["rpp-models"],
                                                          options={MODEL_LABELS[m]: m for m in p.models.objects}),
                   "Models (trained in turn)"),
            self._prior_w,
            titled(pn.widgets.RadioButtonGroup.from_param(p.scale), "Scale"),
            pn.Row(self._number("channels", "Channels", width=90, css_classes=["rpp-channels"]),
                   self._number("layers", "Layers", width=90),
                   self._number("epochs", "Epochs", width=90, css_classes=["rpp-epochs"])),
            pn.Row(self._number("size", "Train points", width=90, css_classes=["rpp-size"]),
                   self._number("test", "Test points", width=90, css_classes=["rpp-test"]),
                   self._number("batch", "Batch", width=90)),
            pn.Row(self._number("lr", "Learning rate", width=90),
                   self._number("seeds", "Seeds", width=90, css_classes=["rpp-seeds"]),
                   self._number("seed", "First seed", width=90)),
            pn.widgets.Select.from_param(p.device, label="Device", options=list(DEVICES)),
            titled(pn.widgets.RadioButtonGroup.from_param(p.worker), "Run in"),
            sizing_mode="stretch_width", min_width=300)
        self._sync_visible()
        self.live = LiveView(PLOTS, group="unit", run="seed")
        self._figure = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=390, css_classes=["rpp-boxes"])
        self._panels_note = pn.pane.Markdown("", css_classes=["rpp-panels-note"], margin=(0, 10))
        self._table = pn.pane.DataFrame(pd.DataFrame(), index=False, sizing_mode="stretch_width",
                                        css_classes=["rpp-results"])

    def _sync_visible(self) -> None:
        self._variant_w.visible = approximate_inertia(self.task, self.symmetry)
        self._wind_w.visible = (self.task, self.symmetry) == ("pendulum", "approximate")
        self._prior_w.visible = "rpp" in self.models

    def _plan_text(self) -> str:
        """What Start would train, in the config's own exact counts (before any work): models, seeds, optimiser
        steps per model and seed, and in all."""
        cfg = self.config()
        steps, total = cfg.schedule().steps(cfg.train_points), cfg.total_steps()
        return (f"Start trains {len(cfg.models)} model{'s' * (len(cfg.models) != 1)} × {cfg.seed_count} "
                f"seed{'s' * (cfg.seed_count != 1)}, {steps:,} optimiser step{'s' * (steps != 1)} each ({total:,} in "
                f"all) on {cfg.train_points:,} {'trajectory chunks' if cfg.task == 'pendulum' else 'points'}")

    def _main(self):
        return pn.Column(
            self._error, self._progress, self._status, self._figure, self._panels_note,
            self.live.panes["rpp-log"],
            pn.pane.Markdown("#### Results (equivariance error under the data's declared group; free fraction: "
                             "RPP-EMLP's mean |W_free| / |W|)"),
            self._table, sizing_mode="stretch_width")

    # ------------------------------------------------------------------ control
    def config(self) -> RPPConfig:
        """The settings as a config: the variant only for approximate inertia, the prior's settings only with
        RPP-EMLP among the models (hidden controls keep their values; they must not reach the config)."""
        values = config_values(self, CONFIG_NAMES)
        if not approximate_inertia(values["task"], values["symmetry"]):
            values.pop("variant")
        if (values["task"], values["symmetry"]) != ("pendulum", "approximate"):
            values.pop("wind", None)  # the windy pendulum's only
        if "rpp" not in values["models"]:
            for n in PRIOR_NAMES:
                values.pop(n)
        return RPPConfig(**RPPConfig.applicable(values))

    def _planned(self) -> RPPConfig:
        """The settings as they stand, unchecked: what the empty plots are drawn for before a run."""
        return RPPConfig(task=self.task, symmetry=self.symmetry, models=tuple(self.models))

    def _job(self, config) -> Job:
        """Train the models on the regime, seed by seed."""
        return self._family_job(config)

    def _on_start(self, job, config) -> None:
        self._info = {"task": config.task}
        self._rows = []
        self._reset_plots(config, live=True)

    # ------------------------------------------------------------------ drawing
    def _reset_plots(self, config: RPPConfig, live: bool = False, saved_note: str = "this run") -> None:
        """A fresh log and Figure 3.2 for ``config``'s task: its regime's panel kept for the run (``live``: it
        fills as the run goes), the others from the latest saved runs."""
        models = list(config.models)
        self.live.relabel("rpp-log", **TEST_LOG)  # the figures reset builds (none on the page is changed here)
        self.live.colours.update({unit_name(m, s): MODEL_COLOURS.get(m, "#333333")
                                  for m in models for s in range(config.seed, config.seed + config.seed_count)})
        self.live.reset([unit_name(m, s) for s in range(config.seed, config.seed + config.seed_count)
                         for m in models])
        self._offset, self._unit, self._unit_epochs = 0, None, 0
        fig = self._task_figure(config.task)
        self._live_regime = config.symmetry if live else None
        self._sources_note = {}
        if live:
            self._sources_note[config.symmetry] = saved_note
            show_regime(self._panels[config.symmetry], {}, note="training: a box appears as each model finishes "
                                                                "a seed")
        self._show_saved(skip=self._live_regime)
        self._figure.object = fig
        self._table.object = pd.DataFrame()

    def _task_figure(self, task: str):
        """A new Figure 3.2 for ``task`` (its panels in ``_panels``), for the caller to fill and then show.

        A figure is filled before it is handed to the page and never changed by a button's or a setting's callback
        after that: Panel runs those with the document unlocked (``panel.io.document.unlocked``: changes held,
        dispatched afterwards), and there a change to a Bokeh model already on the page was seen, in the browser,
        to fail now and then ("_pending_writes should be non-None when we have a document lock") or not to reach
        the page at all.  Once shown, only the runner's periodic callback (the document locked) fills its panels,
        as the chapter-2 view's figures are built anew and streamed to."""
        fig, self._panels = regimes_figure(task, groups=regime_groups(task))
        self._task_shown = task
        return fig

    def _idle_redraw(self) -> None:
        """A new task chosen while nothing runs: its figure from its saved runs (the log and table stay)."""
        if self.runner.busy or getattr(self, "_restoring", False) or self.task == getattr(self, "_task_shown", None):
            return
        fig = self._task_figure(self.task)
        self._live_regime, self._sources_note = None, {}
        self._show_saved()
        self._figure.object = fig

    def _check_task(self) -> None:
        """A task chosen that the settings refuse (the pendulum, until ``lab rpp`` has it) says so at once, inline,
        as a refused Start would; the message follows the settings from then on (``_recheck_settings``)."""
        if self.runner.busy or getattr(self, "_restoring", False):
            return
        try:
            self._checked(self.config())
        except LabError as err:
            self._show_error(str(err))

    def _latest_saved(self) -> dict:
        """{symmetry: (run name, summary)} of the newest saved run of the task shown, per regime (runs that cannot
        be read, or whose ``config.json`` is over the ``run_bytes`` limit, are passed over)."""
        out: dict = {}
        for path in rpp_family.list_runs(self.results)[:SAVED_SCAN]:
            try:
                summary = rpp_family.saved_summary(path)
            except LabError:
                continue
            if not isinstance(summary, dict) or not isinstance(summary.get("models"), dict):
                continue  # not a summary a panel can show (a hand-edited file): Load says what is wrong with it
            sym = summary.get("symmetry")
            if summary.get("task") == self._task_shown and sym in REGIMES and sym not in out:
                out[sym] = (path.name, summary)
        return out

    def _show_saved(self, skip: str | None = None) -> None:
        """Every panel but ``skip`` from the latest saved run of its regime (or empty, saying no run yet)."""
        latest = self._latest_saved()
        for sym, panel in self._panels.items():
            if sym == skip:
                continue
            if sym in latest:
                name, s = latest[sym]
                mse, seeds = summary_values(s)
                show_regime(panel, mse, seeds, group=s.get("group"), target_error=s.get("target_symmetry_error"),
                            variant=s.get("variant"), baseline=summary_baseline(s))
                self._sources_note[sym] = f"saved run `{name}`" + (f" ({s['status']})" if s.get("status") not in
                                                                     (None, "finished") else "")
            else:
                show_regime(panel, {})
                self._sources_note[sym] = "no run yet"
        self._write_panels_note()

    def _write_panels_note(self) -> None:
        self._panels_note.object = "Panels from: " + "; ".join(
            f"*{s}* {self._sources_note[s]}" for s in REGIMES if s in self._sources_note)

    def _show_live_regime(self) -> None:
        """The live (or loaded) run's regime panel from its rows so far."""
        sym = self._live_regime
        if sym is None or sym not in self._panels:
            return
        mse: dict = {}
        seeds: dict = {}
        for r in self._rows:
            mse.setdefault(r["model"], []).append(r["test_mse"])
            seeds.setdefault(r["model"], []).append(r["seed"])
        info = self._info
        base = {r["seed"]: r.get("still_mse") if r.get("mean_mse") is None else r.get("mean_mse") for r in self._rows}
        show_regime(self._panels[sym], mse, seeds, group=info.get("group"),
                    target_error=info.get("target_symmetry_error"), variant=info.get("variant"),
                    note="training: a box appears as each model finishes a seed", baseline=baseline_of(base.values()))
        self._write_panels_note()

    def _show_table(self) -> None:
        df = pd.DataFrame(self._rows, columns=list(ROW_KEYS))
        still = df["mean_mse"].isna().all()  # the pendulum: its baseline predicts no motion
        if still:
            df["mean_mse"] = df["still_mse"]
        base = STILL if still else COLUMNS["mean_mse"]
        shown = df.drop(columns="still_mse").rename(columns={**COLUMNS, "mean_mse": base})
        shown["model"] = shown["model"].map(lambda m: MODEL_LABELS.get(m, m))
        for c in ("test MSE", "train MSE", base, "equivariance error", "free fraction"):
            shown[c] = shown[c].map(lambda v: f"{v:.3g}" if v is not None and v == v else "-")
        shown["seconds"] = shown["seconds"].map(lambda v: f"{v:.1f}" if v is not None and v == v else "-")
        self._table.object = shown

    # ------------------------------------------------------------------ messages (event loop)
    def _on_record(self, msg: dict):
        kind = msg["kind"]
        if kind == "started":
            self._info.update({k: msg.get(k) for k in ("task", "symmetry", "regime", "group", "data_group",
                                                        "models", "seeds", "size", "device")})
            self._info["variant"] = self.variant if approximate_inertia(msg["task"], msg["symmetry"]) else None
        elif kind == "epoch":
            unit = (msg["model"], msg.get("seed", 0))
            if unit != self._unit:  # the next model or seed: its curve starts where the last one ended
                self._offset += self._unit_epochs
                self._unit = unit
            self._unit_epochs = msg["epochs"]
            mse = msg.get("test_mse")
            if mse is None:  # a task whose records carry only the training loss (as lab emlp's pendulum)
                mse = msg["train_mse"]
                self._log_words(TRAIN_LOG)
            self.live.add([{"unit": unit_name(*unit), "seed": unit[1], "step": self._offset + msg["epoch"],
                            "mse": mse}])
            self._dirty = True
        elif kind == "result":
            self._rows.append({k: msg.get(k) for k in ROW_KEYS})
            self._show_live_regime()
            self._show_table()
        elif kind in ("done", "failed"):
            summary = msg.get("summary") or {}
            if summary.get("target_symmetry_error") is not None:
                self._info["target_symmetry_error"] = summary["target_symmetry_error"]
                self._show_live_regime()
            if msg.get("saved") and self._live_regime in self._sources_note:
                self._sources_note[self._live_regime] = f"this run (saved as `{Path(msg['saved']).name}`)"
                self._write_panels_note()
            self._refresh_saved()

    def _log_words(self, words: dict) -> None:
        """The log's words for what its records carry (test MSE, or a task's training loss), in the figure shown
        and in those the next runs build (called from the runner's messages only: the document is locked)."""
        if self.live.plots["rpp-log"].ylabel == words["ylabel"]:
            return
        self.live.relabel("rpp-log", **words)
        fig = self.live.figure("rpp-log")
        if fig is not None:
            fig.title.text, fig.yaxis.axis_label = words["title"], words["ylabel"]

    def _run_detail(self) -> str:
        i = self._info
        if "models" not in i:
            return f"building **{i.get('task', '')}** …" if self.runner.running else ""
        return (f"{i['regime']}: {', '.join(MODEL_LABELS.get(m, m) for m in i['models'])} over {i['group']}, "
                f"{i['seeds']} seed{'s' * (i['seeds'] != 1)} of {i['size']} training "
                f"{'chunks' if i.get('task') == 'pendulum' else 'points'}, on {i['device']}")

    # ------------------------------------------------------------------ a loaded run
    def _prepare_saved(self):
        return prepare_saved_run

    def _restored(self, config) -> dict:
        return {**super()._restored(config), "models": list(config.models)}

    def _show_loaded(self, prepared: dict, cfg) -> None:
        """Its curves, its regime's boxes and its table drawn from its files (the other regimes' panels: the latest
        saved runs)."""
        s = prepared["meta"].get("summary") or {}
        self._info = {"group": s.get("group"), "target_symmetry_error": s.get("target_symmetry_error"),
                      "variant": s.get("variant")}
        self._reset_plots(cfg, live=True, saved_note=f"loaded run `{prepared['name']}`")
        for r in prepared["curves"]:
            self._on_record({"kind": "epoch", **r})
        self._rows = [{k: r.get(k) for k in ROW_KEYS} for r in prepared["rows"]]
        self._show_live_regime()
        if self._rows:
            self._show_table()
        self.live.draw(final=True)
        self._dirty = False

    def _loaded_words(self, prepared: dict, cfg) -> str:
        s = prepared["meta"].get("summary") or {}
        return (f": **{cfg.task}**, {cfg.symmetry} symmetry, {', '.join(MODEL_LABELS.get(m, m) for m in cfg.models)}"
                f" over {s.get('group', '?')}, {s.get('seeds', '?')} seeds")


def prepare_saved_run(path, results, progress=None, control=None) -> dict:
    """Off the event loop (the view's loading job): read a saved run (refused in one line over the ``run_bytes``
    limit before it is read) and hand over its rows and curve records, plain dicts."""
    run, rows, curves = read_saved_run(FAMILY, path, results, progress, control)
    keep = ("model", "seed", "epoch", "epochs", "test_mse", "train_mse")
    curves = [{k: c[k] for k in keep if k in c} for c in curves]
    return {"name": run.path.name, "path": str(run.path), "meta": run.meta, "rows": rows, "curves": curves}


add_config_params(RPPRegimes, RPPConfig, CONFIG_NAMES)
