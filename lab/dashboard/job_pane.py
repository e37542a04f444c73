"""One job pane, written once: what every family's tab that runs a job has, whatever the family.

``JobPane`` (a Panel ``Viewer`` with ``param`` parameters) owns the scaffolding: the runs directory (the family's,
from its manifest), Start / Pause / Stop with the status line, ETA and progress bar (``_job_widgets`` and the
``JobRunner``), the inline error, the Saved-runs list and Load (a checked read of the family's ``RunKind`` on the
pane's job, off the event loop), putting a loaded run's settings back into the controls, the plan line, and the
guards that turn a failed callback into one inline line.  A family's pane declares only what is its own:

* class attributes ``family`` (its manifest's name), ``css`` (the prefix of its widgets' css classes: ``bnd``
  gives ``bnd-start``, ``bnd-status``, ``bnd-saved`` ...), ``idle`` (the status line before any run) and
  ``config_names`` (the config fields its controls show; ``add_config_params`` makes them parameters); checked when
  the class is made, so a pane that forgets one fails at import, not in a browser;
* the abstract methods: ``_widgets()`` (its controls in ``self._controls`` and its views), ``_main()`` (its
  layout), ``_job(config)`` (the ``Job`` Start runs), ``_on_start(job, config)`` (its views reset for a new run),
  ``_on_record(msg)`` (what a record of the running job draws) and ``_show_loaded(prepared, config)`` (what a loaded
  run shows);
* optionally: ``_plan_text()`` (the plan line: what Start would do, in the config's exact costs), ``_run_detail()``
  (the line under the status while a run goes), ``_saved_fields(run)`` (what a loaded run shows of its tables and
  arrays besides its ``config.json``), ``_restored(config)`` and ``_restore_widgets(config)`` (the parameter values
  and other widgets a loaded run puts back), ``_loaded_words(prepared, config)`` (its status line's words).

Everything else (``start``, ``load``, ``stop``, ``poll``, the saved-run selection after a run, the status line of a
loaded run) is here, the same for every pane.

Load and the Saved runs:

Load is enabled only when a run is selected and no job runs (``_sync_load``: on every change of the selection and
of the runner's state, which the Start button's ``disabled`` follows).  Loading a run puts its settings into the
controls; a control whose value the run did not record shows its default and is disabled (``_hold_unrecorded``)
until a setting is changed or a run started, so the controls never claim a value the run did not have.

A run is loaded only when it is one of the runs the pane listed from its own runs directory: ``_listed_run``
refuses anything else (a path a hostile browser sends, ``../../etc/passwd``, an absolute path) with a
``LabError``, which the pane's guard shows inline.  ``RunSelect`` refuses such a value already where the
browser's change arrives, before Panel would look it up (and log a traceback for it).
"""
from __future__ import annotations

import logging
import os
import re
import time
import weakref
from pathlib import Path
from typing import ClassVar

import panel as pn
import param

from ..config import ConfigError, Option
from ..errors import LabError
from ..jobs import Job
from .guard import guard, guard_settings, guarded
from .layout import SidebarPane
from .runner import WORKER_THREADS

log = logging.getLogger(__name__)


#: runs whose page closed (or reloaded) while they went: (family, runs directory) -> (job, when), kept this long for
#: the next page of the same tab to say what became of it (the job saves itself as ``stopped``)
CLOSED_RUNS: dict = {}
CLOSED_KEPT_SECONDS = 600.0
#: how long a new page waits for such a run to end and be saved (a process job's grace period included)
CLOSED_WAIT_SECONDS = 60.0
#: the panes of pages opened in the last ``CLOSED_WAIT_SECONDS``, by (family, runs directory): a reload opens the
#: new page before the old one's job is seen to be orphaned, so the news must reach a pane already built
_LISTENING: dict = {}
#: a command-line flag inside a config's refusal (``--data-dir``; not the dash inside a word)
FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)")


def worker_param(what: str = "the run") -> param.Selector:
    """The "Run in" choice of a pane whose family a worker process can run: a process (the default: the event loop
    stays free to draw) or a thread."""
    return param.Selector(default="process", objects=["process", "thread"],
                          doc=f"where {what} goes: a worker process (the event loop stays free to draw) or a thread")


def open_saved(path, read, progress=None, control=None, steps: int = 1):
    """Off the event loop (a pane's loading job): ``read()`` of the saved run at ``path``, refused in one line over
    the ``run_bytes`` limit before anything is read, its first of ``steps`` progress steps saying so, a stop
    honoured after it."""
    from ..limits import check_load

    check_load(path)
    if progress is not None:
        progress({"kind": "progress", "message": f"reading {Path(path).name}", "done": 0, "total": steps})
    run = read()
    if control is not None:
        control.checkpoint()
    return run


def prepare_saved(run_kind, fields, path, results, progress=None, control=None) -> dict:
    """Off the event loop (a pane's loading job): a saved run read and checked by its family's ``RunKind`` (refused
    in one line over the ``run_bytes`` limit before anything is read), as {``name``, ``path``, ``meta``} and the
    pane's own ``fields(run)`` (plain values: no widget is touched here)."""
    run = open_saved(path, lambda: run_kind.read(path, root=results), progress, control)
    return {"name": run.path.name, "path": str(run.path), "meta": run.meta, **fields(run)}


def read_saved_run(family, path, results, progress=None, control=None):
    """Off the event loop (a pane's loading job): ``(run, rows, curves)`` of ``family``'s saved run at ``path``
    (refused in one line over the ``run_bytes`` limit before it is read; only from inside ``results``), its results
    and curve tables as plain records with missing values as None."""
    run = open_saved(path, lambda: family.load(path, root=results), progress, control)

    def records(df):
        return df.astype(object).where(df.notna(), None).to_dict("records")

    return run, records(run.results), records(run.curves)


def _shown(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


class RunSelect(pn.widgets.Select):
    """The Saved-runs select: a value the browser sends that is not one of the listed runs is refused
    (``on_refused(value)`` is called, the selection stays as it was), never looked up."""

    def __init__(self, on_refused=None, **params):
        super().__init__(**params)
        self._on_refused = on_refused

    def _process_property_change(self, props):
        value = props.get("value")
        if ("value" in props and value not in ("", None) and value not in self.labels
                and value not in self.unicode_values):
            props = {k: v for k, v in props.items() if k != "value"}
            if self._on_refused is not None:
                self._on_refused(value)
        return super()._process_property_change(props)


class JobPane(SidebarPane, pn.viewable.Viewer):
    """A family's tab that runs its jobs (see the module docstring for what a pane declares)."""

    #: the family's manifest name: the runs it saves, lists and loads, the config a loaded run is read with
    family: ClassVar[str] = ""
    #: the prefix of the pane's css classes (``{css}-start``, ``{css}-status``, ``{css}-saved``, ``{css}-load`` ...)
    css: ClassVar[str] = ""
    #: the status line before any run
    idle: ClassVar[str] = ""
    #: the config fields the controls show (parameters of the pane, made by ``add_config_params``)
    config_names: ClassVar[list] = []
    #: the config fields no control shows: a loaded run's values of these, when not their defaults, are named
    hidden_names: ClassVar[tuple] = ()
    #: how many saved runs the Saved-runs list offers
    saved_listed: ClassVar[int] = 50
    #: the ``JobRunner``'s further options (e.g. ``verb``)
    runner_options: ClassVar[dict] = {}
    #: parameters besides ``config_names`` whose change redraws the plan line
    plan_also: ClassVar[tuple] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("abstract"):
            return
        missing = [n for n in ("family", "css", "idle") if not getattr(cls, n)]
        if missing:
            raise TypeError(f"{cls.__name__} (a JobPane) must declare {', '.join(missing)}")

    def __init__(self, results: str | None = None, **params):
        super().__init__(**params)
        from ..experiments import FAMILIES

        self.manifest = FAMILIES[self.family]
        self.results = self.manifest.results_dir(results)
        self._job_widgets(self.css, self.idle)
        self._saved = self._run_select(label="Saved runs", options=[], sizing_mode="stretch_width",
                                       css_classes=[f"{self.css}-saved"])
        self._load_b = pn.widgets.Button(label="Load", width=80, align="end", css_classes=[f"{self.css}-load"])
        self._load_b.on_click(guarded(self, "loading the run")(lambda e: self.load(self._saved.value)))
        self._plan = pn.pane.Markdown("", css_classes=[f"{self.css}-plan"], margin=(0, 10),
                                      styles={"font-size": "0.9em"})
        self._note = pn.pane.Markdown("", css_classes=[f"{self.css}-note"], margin=(0, 10),
                                      styles={"font-size": "0.85em"})
        #: every box made by ``_number`` or ``_text``: config field name -> its label (what messages call it)
        self._labels: dict[str, str] = {}
        self._refresh_saved()

    def _ready(self) -> None:
        """The pane's widgets made (``_widgets``), then its runner, the settings' guards and the plan line."""
        self._widgets()
        self._start_runner(**self.runner_options)  # its watcher of every parameter re-checks and re-plans
        self._show_plan()
        self._closed_run_news()

    # ------------------------------------------------------------------ what a pane declares
    def _widgets(self) -> None:
        """Make the pane's controls (``self._controls``, a layout of widgets made with ``from_param``) and views."""
        raise NotImplementedError

    def config(self):
        """The settings as the family's config (default: the ``config_names`` parameters)."""
        from .config_params import config_values

        return self.manifest.config(**config_values(self, self.config_names))

    def _job(self, config) -> Job:
        """The job Start runs with the validated ``config``."""
        raise NotImplementedError

    def _on_start(self, job, config) -> None:
        """Reset the pane's views for the new run ``job`` (of the validated ``config``)."""
        raise NotImplementedError

    def _on_record(self, msg: dict) -> None:
        """Draw one message of the running job (``started``, its own records, ``done`` / ``failed``)."""
        raise NotImplementedError

    def _show_loaded(self, prepared: dict, config) -> None:
        """Show a loaded run (``prepared``: what ``_prepare_saved`` read; ``config``: its settings, already put
        back into the controls)."""
        raise NotImplementedError

    def _plan_text(self) -> str:
        """What Start would do, in words (raise ``LabError``/``ValueError`` when the settings are refused)."""
        return ""

    def _run_detail(self) -> str:
        """The line under the status while a run goes."""
        return ""

    def _restored(self, config) -> dict:
        """The parameter values a loaded run with ``config`` puts back (default: its ``config_names``)."""
        return {n: getattr(config, n) for n in self.config_names}

    def _restore_widgets(self, config) -> None:
        """Widgets that are not parameters set to a loaded run's ``config`` (inside the same restore)."""

    def _loaded_words(self, prepared: dict, config) -> str:
        """What the status line says of a loaded run after its name and status (e.g. ": **task**, models ...")."""
        return ""

    # ------------------------------------------------------------------ the sidebar
    def _saved_row(self) -> pn.Row:
        return pn.Row(self._saved, self._load_b, sizing_mode="stretch_width")

    def _sidebar(self):
        """Start / Pause / Stop first (with the settings' refusal and the plan line under them), so that they are in
        view without scrolling on a laptop screen whatever the tab's controls, then the controls and the saved
        runs."""
        return pn.Column(self._buttons_row, self._plan, self._controls, self._saved_row(),
                         sizing_mode="stretch_width")

    def _show_plan(self) -> None:
        """The plan line for the settings, or (they are refused) the inline message saying why, Start disabled."""
        problem, plan = self._settings_problem(), ""
        if problem is None:
            try:
                plan = self._plan_text()
            except LabError as err:  # refused before any work: over a limit, a group that does not parse ...
                problem = str(err)
            except (ValueError, TypeError):
                plan = ""
        self._plan.object = plan
        self._show_invalid(problem)

    # ------------------------------------------------------------------ the settings checked as they change
    def _number(self, name: str, label: str, **params):
        """The box of the numeric config field ``name`` (an ``IntInput`` or a ``FloatInput`` by its declared type),
        labelled ``label``.  Whatever number is typed is kept (never snapped back to the last good one); one outside
        the field's declared range is named inline with that range, Start disabled until it is fixed
        (``_settings_problem``).  An optional field's empty box means the task's own value."""
        o = self._option(name)
        cls = pn.widgets.IntInput if o.type is int else pn.widgets.FloatInput
        if o.optional:
            params.setdefault("placeholder", "the task's")
        params["css_classes"] = [*params.get("css_classes", []), "lab-number", f"lab-field-{name}"]
        self._labels[name] = label
        return cls.from_param(self.param[name], label=label, **params)

    @property
    def _field_labels(self) -> dict[str, str]:
        """The numeric boxes (``_number``'s): config field name -> the box's label."""
        return {name: label for name, label in self._labels.items() if self._option(name).type in (int, float)}

    def _text(self, name: str, label: str, **params):
        """The text box of config field ``name``, labelled ``label`` (what the pane's messages call it)."""
        self._labels[name] = label
        return pn.widgets.TextInput.from_param(self.param[name], label=label, **params)

    def _in_words(self, message: str) -> str:
        """A config's refusal as the page says it: a command-line flag (``--dims``, ``--data-dir``) named by the
        label of its box here (or its field's name in words), never as a flag the page has no place for."""
        def named(m):
            name = m.group(1).replace("-", "_")
            return f"**{self._labels.get(name) or name.replace('_', ' ')}**"

        return FLAG.sub(named, message)

    def _option(self, name: str) -> Option:
        """The declaration of the config field ``name`` (default: the family's config's)."""
        return self.manifest.config.option_named(name)

    def _field_applies(self, name: str) -> bool:
        """Whether field ``name`` means something for the settings as they are (``option(only=...)``: a box of
        another task, hidden, is not judged)."""
        config_cls, o = self.manifest.config, self._option(name)
        if o.only is None or not config_cls.dispatch:
            return True
        return getattr(self, config_cls.dispatch, None) in o.only

    def _field_problem(self) -> str | None:
        """The first numeric box whose value is outside its field's declared range: ``**Label**: a whole number
        from 1 to 64; got 0``."""
        from .config_params import allowed, shown_value
        from ..config import _check_value

        for name, label in self._field_labels.items():
            if not self._field_applies(name):
                continue
            o, value = self._option(name), getattr(self, name)
            try:
                _check_value(o, value)
            except ConfigError:
                return f"**{label}**: {allowed(o)}; got {shown_value(value)}"
        return None

    def _settings_problem(self) -> str | None:
        """Why Start would refuse the settings as they are (a box out of its range, then the config's own checks);
        None: they are fine."""
        problem = self._field_problem()
        if problem is not None:
            return problem
        try:
            self._validated(self.config())
        except LabError as err:
            return str(err)
        return None

    def _show_invalid(self, problem: str | None) -> None:
        """Show (or hide) the settings' refusal beside Start, and disable Start while there is one."""
        self._invalid.object = self._in_words(problem) if problem else ""
        self._invalid.visible = bool(problem)
        runner = getattr(self, "runner", None)
        if runner is not None:
            runner.block(bool(problem))

    # ------------------------------------------------------------------ a run
    def _family_job(self, config, process: bool | None = None, **options) -> Job:
        """The family's own ``Job`` for ``config``, saving into the pane's runs directory, in a worker process when
        the pane's ``worker`` says so (one thread there)."""
        if process is None:
            process = getattr(self, "worker", "thread") == "process"
        return Job(self.family, config, save_dir=self.results, process=process,
                   threads=WORKER_THREADS if process else None, **options)

    @guard("starting the run", default=False)
    def start(self) -> bool:
        """Start a run with the settings; False (with an inline message) if they are refused or a job runs."""
        if self.runner.busy:
            return False
        self._release_unrecorded()  # the controls a loaded run held are the settings' again
        config = self._checked(self.config())
        job = self._job(config)
        self._error.visible = False
        self._on_start(job, config)
        return self.runner.start(job)

    def _on_message(self, msg: dict):
        if self._load_message(msg["kind"], msg):
            return
        self._on_record(msg)

    def _select_saved(self, saved) -> None:
        """After a run: the list afresh, the run just saved (``saved``, a path or None) selected."""
        self._refresh_saved()
        if saved and str(Path(saved)) in self._saved.options.values():
            self._saved.value = str(Path(saved))

    def _detail(self) -> str:
        loading = self._load_detail()
        return loading if loading is not None else self._run_detail()

    # ------------------------------------------------------------------ saved runs
    def _saved_paths(self) -> list:
        """The runs the Saved-runs list offers: the family's, newest first, at most ``saved_listed``."""
        return self.manifest.run_kind.list(self.results)[:self.saved_listed]

    @guard("listing the saved runs")
    def _refresh_saved(self):
        self._list_runs(self._saved_paths())

    @staticmethod
    def _saved_fields(run) -> dict:
        """What a loaded run shows besides its ``config.json``, read from the checked ``run`` (a
        ``runstore.SavedRun``: its tables and arrays) off the event loop; plain values (default: nothing)."""
        return {}

    def _prepare_saved(self):
        run_kind, fields = self.manifest.run_kind, self._saved_fields
        return lambda path, results, progress=None, control=None: prepare_saved(run_kind, fields, path, results,
                                                                                progress, control)

    def _after_end(self, job) -> None:
        """After a loading job, with the controls unlocked: the run's settings back in the controls
        (``_restored``), the run shown (``_show_loaded``), the status line naming it and any setting it made that
        no control shows."""
        prepared, self._loaded = self._loaded, None
        if job.name != "load" or prepared is None:
            return
        meta, name = prepared["meta"], prepared["name"]
        config_cls = self.manifest.config
        cfg = self._saved_config(config_cls, meta.get("config"), name)
        if cfg is None:
            return
        self._restore_values(self._restored(cfg), also=lambda: self._restore_widgets(cfg))
        self._show_loaded(prepared, cfg)
        self._progress.value = 0
        hidden = [n for n in self.hidden_names if getattr(cfg, n) != config_cls.option_named(n).default]
        note = (" · set by this run but not by a control here: " + ", ".join(f"{n} {getattr(cfg, n)}" for n in hidden)
                if hidden else "")
        words = self._loaded_words(prepared, cfg)
        self._status.object = f"Loaded `{name}` ({meta.get('status', '?')}){words}{note}"
        self._loaded_ok = True

    _unrecorded: list = []  # the controls disabled because the loaded run did not record their values

    # ------------------------------------------------------------------ a page closed mid-run, and the next one
    def _closed_key(self) -> tuple:
        return (self.family, str(Path(self.results).resolve()))

    def _page_closed_while(self, job) -> None:
        """The runner's ``on_close``: this page went while ``job`` ran (it was asked to stop and saves itself).
        A page of the same tab opened meanwhile (the reload) is told at once, on its own document."""
        if job.name == "load":
            return
        key, now = self._closed_key(), time.monotonic()
        CLOSED_RUNS[key] = (job, now)
        for ref, doc, opened in _LISTENING.pop(key, []):
            pane = ref()
            if pane is None or pane is self or now - opened > CLOSED_WAIT_SECONDS or doc is None:
                continue

            def tell(pane=pane, doc=doc):
                from panel.io.state import set_curdoc

                with set_curdoc(doc):
                    pane._closed_run_news()

            try:
                doc.add_next_tick_callback(tell)
            except Exception:  # that page has gone too
                log.debug("telling a new page of a closed run failed", exc_info=True)

    def _listen_for_closed_runs(self) -> None:
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            return
        now = time.monotonic()
        kept = [e for e in _LISTENING.get(self._closed_key(), []) if e[0]() is not None
                and now - e[2] <= CLOSED_WAIT_SECONDS]
        _LISTENING[self._closed_key()] = [*kept, (weakref.ref(self), doc, now)]

    def _closed_run_news(self) -> None:
        """A new page of this tab (a reload): when the last page closed while a run went, say it was stopped and
        where it was saved, that run selected in the Saved runs -- at once when it has ended, else when it does
        (polled for up to ``CLOSED_WAIT_SECONDS`` in a server session)."""
        entry = CLOSED_RUNS.get(self._closed_key())
        if entry is None or time.monotonic() - entry[1] > CLOSED_KEPT_SECONDS:
            self._listen_for_closed_runs()
            return
        job = entry[0]
        if not job.running:  # its messages stay undrained: the closed page's runner is gone
            self._say_closed(job)
            return
        self._status.object = ("A run of this tab was going when its last page closed: it is being stopped and "
                               "saved …")
        if pn.state.curdoc is None or pn.state.curdoc.session_context is None:
            return
        deadline = time.monotonic() + CLOSED_WAIT_SECONDS

        def check():
            if job.running and time.monotonic() < deadline:
                return
            callback.stop()
            if not job.running and not self.runner.busy:
                self._say_closed(job)

        callback = pn.state.add_periodic_callback(guarded(self, "reading the closed page's run")(check), period=500)

    def _say_closed(self, job) -> None:
        CLOSED_RUNS.pop(self._closed_key(), None)
        final = job.final or {}
        saved = final.get("saved")
        self._select_saved(saved)
        status = final.get("status") or job.state
        if saved:
            self._status.object = (f"The run that was going when this tab's last page closed (or reloaded) was "
                                   f"{status} and saved as `{Path(saved).name}`: **Load** shows it.")
        else:
            self._status.object = (f"The run that was going when this tab's last page closed (or reloaded) was "
                                   f"{status} before anything could be saved.")

    # ------------------------------------------------------------------ the job runner
    def _start_runner(self, **options) -> None:
        """The pane's ``JobRunner`` wired to its Start / Pause / Stop, status, progress, error and detail, locking the
        controls and the saved-run loader while a job runs (``options``: ``JobRunner``'s others, e.g. ``verb``);
        then the settings' guards and watchers and the loader's."""
        from .runner import JobRunner

        self.runner = JobRunner(self._on_message, start=self._start_b, pause=self._pause_b, stop=self._stop_b,
                                lock=[self._controls, self._load_b, self._saved], status=self._status,
                                progress=self._progress, error=self._error, detail=self._detail,
                                after_poll=self._after_poll, **options)
        self.runner.on_end = self._after_end
        self.runner.on_close = self._page_closed_while
        guard_settings(self, self._controls)
        self._watch_settings()
        self._watch_load()

    # ------------------------------------------------------------------ a loaded run's settings back
    @guard("stopping the run")
    def stop(self, wait: bool = True, timeout: float = 30.0):
        """Ask the run to stop (it finishes its current step, saves what it has and exits)."""
        self.runner.stop(wait=wait, timeout=timeout)

    def poll(self) -> int:
        """Draw the messages that arrived; returns how many.  Periodic on the server, called in scripts/tests."""
        return self.runner.poll()

    def _saved_config(self, config_cls, data, name: str):
        """``config_cls.from_dict(data)`` of a loaded run, or None with one inline line naming the run."""
        try:
            return config_cls.from_dict(data, where="saved settings")
        except ConfigError as err:
            self._show_error(f"{name}: its settings could not be read ({err})")
            return None

    def _restore_values(self, values: dict, also=None) -> None:
        """The pane's parameters set to a loaded run's ``values`` (a device this machine lacks becomes auto), with
        ``_restoring`` up so that the setting watchers know it is a restore; ``also()`` runs inside the same guard
        (widgets that are not parameters)."""
        from ..device import DEVICES

        if "device" in values and values["device"] not in DEVICES:
            values = {**values, "device": "auto"}
        self._restoring = True
        try:
            self.param.update(**values)
            if also is not None:
                also()
        finally:
            self._restoring = False

    def _job_widgets(self, prefix: str, idle: str) -> None:
        """The job widgets every job pane has, named ``{prefix}-start`` ... for tests and styles: Start (calls
        ``start``), Pause, Stop and their row, the progress bar, the status line (``idle`` before a run) and the
        inline error."""
        self._start_b = pn.widgets.Button(label="Start", color="primary", css_classes=[f"{prefix}-start"], width=90)
        self._pause_b = pn.widgets.Button(label="Pause", disabled=True, css_classes=[f"{prefix}-pause"], width=90)
        self._stop_b = pn.widgets.Button(label="Stop", color="danger", disabled=True,
                                         css_classes=[f"{prefix}-stop"], width=90)
        self._start_b.on_click(lambda e: self.start())
        #: why the settings are refused, beside Start (which stays disabled until they are fixed)
        self._invalid = pn.pane.Alert("", alert_type="warning", visible=False, css_classes=[f"{prefix}-invalid"],
                                      margin=(0, 10), styles={"font-size": "0.9em"})
        self._buttons_row = pn.Column(pn.Row(self._start_b, self._pause_b, self._stop_b), self._invalid, margin=0,
                                      sizing_mode="stretch_width")
        self._progress = pn.indicators.Progress(value=0, max=100, sizing_mode="stretch_width", bar_color="primary",
                                                visible=False)
        self._status = pn.pane.Markdown(idle, css_classes=[f"{prefix}-status"])
        self._error = pn.pane.Alert("", alert_type="danger", visible=False, css_classes=[f"{prefix}-error"])

    def _show_error(self, message: str):
        self._error.object = self._in_words(message)
        self._error.visible = True

    def _box_error(self) -> str | None:
        """A pane's own check of its text boxes before the config's (a refusal that names the box); None: fine."""
        return None

    def _validated(self, config):
        message = self._box_error()
        if message is not None:
            raise ConfigError(message)
        return config.validate()

    def _checked(self, config):
        """``config`` validated; a refusal is remembered as the settings' message (``_recheck_settings``)."""
        try:
            return self._validated(config)
        except LabError as err:
            self._settings_error = self._in_words(str(err))
            raise

    def _watch_settings(self) -> None:
        """Re-check a refused setting at every change of the pane's parameters (see ``_recheck_settings``)."""
        self.param.watch(guarded(self, "checking the settings")(self._recheck_settings),
                         [p for p in self.param if p != "name"])

    def _recheck_settings(self, *events) -> None:
        """At every change of the settings: the plan line, or the inline refusal with Start disabled
        (``_show_plan``).  And while the error shown is the refusal of the settings a Start was refused for, it
        follows the settings: updated while they are still refused, hidden once they are accepted (never a stale
        one)."""
        if not self.runner.busy:
            self._show_plan()
        shown = getattr(self, "_settings_error", None)
        if shown is None or not self._error.visible or self._error.object != shown or self.runner.busy:
            return
        try:
            self._validated(self.config())
        except LabError as err:
            self._settings_error = self._error.object = self._in_words(str(err))
        else:
            self._settings_error = None
            self._error.visible = False

    def _run_select(self, **params) -> RunSelect:
        return RunSelect(on_refused=guarded(self, "choosing a saved run")(self._listed_run), **params)

    def _list_runs(self, paths) -> None:
        """Show ``paths`` (runs of the pane's own directory) in ``_saved``; the selection stays when it is still
        listed, else it is the first run (what the browser shows selected, so that Load loads it)."""
        paths = list(paths)
        options = {p.name: str(p) for p in paths}
        keep = self._saved.value
        self._saved.options = options
        if keep not in options.values():
            self._saved.value = next(iter(options.values()), None)
        compare = getattr(self, "_runs_compare", None)
        if compare is not None:
            compare.set_runs(paths)
        self._sync_load()

    # ------------------------------------------------------------------ Load (on the pane's Job)
    _loaded_ok = False  # the last load drew its run
    _loaded = None  # what the loading job prepared, until the pane shows it
    _loading = ""  # the name of the run a loading job reads

    def _on_loaded(self, prepared: dict) -> None:
        """On the event loop, when the loading job is done: keep what it prepared; the pane shows it in its
        ``_after_end``, once the runner has given the controls back (a pane may draw here already)."""
        self._loaded = prepared

    @guard("loading the run", default=False)
    def load(self, path, wait: bool | None = None) -> bool:
        """Show a saved run and put its settings back into the controls (not while a run is going on).  Only a
        run the Saved-runs select lists (from this pane's runs directory) is read; anything else is refused.

        Reading its files and building its frames runs on the pane's ``Job`` (a thread), the status line saying
        "loading": the page stays usable and Stop works; a run over the ``run_bytes`` limit is refused in one
        line.  ``wait``: block until it is drawn (default: outside a server, where no periodic callback would)."""
        if not path or self.runner.busy:
            return False
        listed = self._listed_run(path)
        results, prepare = self.results, self._prepare_saved()
        self._error.visible = False
        self._release_unrecorded()
        self._loaded_ok, self._loaded = False, None
        self._loading = Path(listed).name
        job = Job.function(lambda progress, control: prepare(listed, results, progress, control), name="load")
        if not self.runner.start(job, verb="loading", unit=None, final_status=False):
            return False
        if wait if wait is not None else pn.state.curdoc is None or pn.state.curdoc.session_context is None:
            job.join(None)
            self.runner.poll()
            return self._loaded_ok
        return True

    # ------------------------------------------------------------------ live frames
    _dirty = False  # new records wait to be drawn

    def _live_views(self) -> tuple:
        """The pane's ``LiveView``s a frame draws (default: ``self.live``)."""
        return (self.live,)

    def _after_poll(self, count: int) -> None:
        """The runner's ``after_poll``: a frame when new records wait and the first view's throttle allows one
        (``LiveView.draw_due``); the last frame, once the job has settled, always (decimated once: ``final``)."""
        ended = self.runner.settled
        if self._dirty and (ended or self._live_views()[0].draw_due()):
            for view in self._live_views():
                view.draw(final=ended)
            self._dirty = False

    def _load_message(self, kind: str, msg: dict) -> bool:
        """The end of a loading job (its ``done``/``failed`` message): says a failed or stopped load on the status
        line, hands a prepared run to ``_on_loaded``.  False: not a loading job's end (the pane handles it)."""
        job = self.runner.job
        if kind not in ("done", "failed") or job is None or job.name != "load":
            return False
        self._loaded_ok = False
        if kind == "failed":
            self._status.object = "**idle** · loading the run failed"
        elif msg.get("status") == "stopped" or msg.get("result") is None:
            self._status.object = "**idle** · loading stopped"
        else:
            self._on_loaded(msg["result"])
        return True

    def _load_detail(self) -> str | None:
        """The line under the status while a loading job reads its run ("" once it ended); None: no loading job."""
        job = self.runner.job
        if job is None or job.name != "load":
            return None
        return f"loading `{self._loading}` …" if self.runner.running else ""

    def _watch_load(self) -> None:
        """Keep Load's state in line with the selection and the runner (call once the runner exists)."""
        self._saved.param.watch(lambda e: self._sync_load(), "value")
        if self.runner.start_button is not None:  # the runner sets it on every lock, unlock and settle
            self.runner.start_button.param.watch(lambda e: self._sync_load(), "disabled")
        self._sync_load()

    def _sync_load(self) -> None:
        """Load is disabled while a job runs (or its last messages wait) and when no run is selected."""
        runner = getattr(self, "runner", None)
        busy = runner is not None and runner.busy
        self._load_b.disabled = bool(busy or not self._saved.value)

    # ------------------------------------------------------------------ controls a loaded run did not record
    def _field_widgets(self, names) -> list:
        """The widgets of ``_controls`` bound (``from_param``) to the pane's parameters ``names``."""
        names = set(names)
        return [w for w in self._controls.select(pn.widgets.Widget) if getattr(w, "_param_name", None) in names]

    def _hold_unrecorded(self, names) -> dict[str, str]:
        """Disable the controls of ``names`` (settings the loaded run did not record, or recorded with a value no
        control can show) until a setting is changed or a run started; returns {name: the control's label}."""
        self._release_unrecorded()
        held = [w for w in self._field_widgets(names) if not w.disabled]
        for w in held:
            w.disabled = True
        self._unrecorded = held
        return {w._param_name: w.label or w._param_name for w in held}

    def _release_unrecorded(self, *_) -> None:
        held, self._unrecorded = self._unrecorded, []
        for w in held:
            w.disabled = False

    def _unrecorded_note(self, labels) -> list[str]:
        """The status note naming the held controls (``labels``), or none."""
        labels = list(labels)
        return [f"not recorded by this run (shown at their defaults, disabled until you change a setting): "
                f"{', '.join(labels)}"] if labels else []

    def _unshown_note(self, saved: dict, names) -> list[str]:
        """The status note naming the run's settings ``names`` that no control shows, where Start would run
        them differently (none when the current settings are refused anyway)."""
        try:
            now = self.config().validate()
        except ConfigError:
            return []
        other = [f"{n} {saved[n]}" for n in names if saved[n] != getattr(now, n, saved[n])]
        return [f"set by this run but not by a control here (Start would not repeat them): "
                f"{', '.join(other)}"] if other else []

    def _watch_held(self, names) -> None:
        """A change of any of the settings ``names`` (not by a Load) releases the held controls."""
        def changed(*events):
            if self._unrecorded and not getattr(self, "_restoring", False):
                self._release_unrecorded()

        self.param.watch(changed, list(names))

    def _listed_run(self, value) -> str:
        """``value`` when it is exactly one of the runs ``_saved`` lists (listed afresh once when it is not, for a
        run saved since), else a ``LabError``: nothing outside the pane's own runs directory is ever read."""
        key = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
        if key is not None and key not in self._saved.options.values():
            self._refresh_saved()
        if key is None or key not in self._saved.options.values():
            raise LabError(f"refused to load {_shown(value)}: it is not one of the saved runs listed from "
                           f"{self.results}")
        return key
