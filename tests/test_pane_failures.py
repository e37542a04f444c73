"""Panes that fail gracefully: every callback of the Sharing discovery and Training dynamics panes, forced to fail.

Table-driven: for each pane and each callback (Start, Pause/Stop, Load, the Saved-runs select, the settings'
widgets, the param watchers, the periodic poll) a failure is forced (the family's run / make_task / load
raising a ``LabError`` or a ``RuntimeError``, bad widget values as a browser would send them, a truncated or
hand-edited run in the runs directory, a run path outside it) and the test asserts that the inline message
shows the error text, that the buttons and status are back in line with the job (idle: Start enabled, Pause
and Stop disabled), that no log record at ERROR or above came from Panel, Bokeh or the lab, that the
traceback of an unexpected exception went to the lab's log at DEBUG level, and that nothing went to stderr.

Browser changes are driven as Panel's server drives them (``widget._process_events``).  Deadlines are hang
guards (the machine may be busy); no test asserts how fast anything runs.
"""
from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
import pytest

from lab.sharing import pane as sharing_discovery
from lab.dynamics import pane as training_dynamics
from lab.dashboard import job_pane
from lab.dashboard.guard import guard_settings
from lab.sharing.pane import SharingDiscovery
from lab.dynamics.pane import TrainingDynamics
from lab.dynamics.config import DynamicsConfig
from lab.dynamics.store import COLUMNS
from lab.errors import LabError
from lab.experiments import FAMILIES, progress_record
from lab.sharing.family import SharingConfig
from lab.jobs import Job

from polling import poll_until as _wait  # noqa: E402
LOGGERS = ("", "panel", "bokeh", "lab", "tornado")  # "" is the root: the lab's loggers propagate to it


# ------------------------------------------------------------------ the panes, described once
def _fake_sharing_run(root, name="20250101-000000-conv-1-3"):
    """A small saved sharing run as ``lab.sharing.store.save_sharing`` writes one (no learning needed)."""
    run = root / name
    run.mkdir(parents=True)
    gt = [0, 1, 2, 0, 1, 2]
    (run / "config.json").write_text(json.dumps({
        "config": SharingConfig(task="conv").with_defaults().to_dict(), "status": "finished",
        "summary": {"task": "conv", "trials": 1, "partition_distance": 0.0, "ground_truth": gt, "shape": [2, 3]}}))
    pd.DataFrame([{"step": s, "upper": 1.0 / (s + 1), "lower": 1.0, "entropy": 0.1, "nuclear": 0.1,
                   "partition_distance": 0.0} for s in range(3)]).to_csv(run / "history.csv", index=False)
    np.savez_compressed(run / "A_history.npz", A=np.stack([np.eye(6)[:, :3]] * 3))
    return run


def _fake_dynamics_run(root, name="20250101-000000-custom-1-3"):
    """A small saved training run as ``lab.dynamics.store.save_run`` writes one (no training needed)."""
    run = root / name
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({
        "config": DynamicsConfig(experiment="custom", runs=1, steps=1, strategies=("nom",)).to_dict(),
        "status": "finished", "steps_done": 1}))
    pd.DataFrame([{"strategy": "nom", "run": 0, "step": s, "layer": "total", "dist_from_init": 0.1 * s,
                   "dist_from_E": 0.2, "loss": 1.0, "accuracy": 0.5, "diverged": False} for s in range(2)],
                 columns=COLUMNS).to_csv(run / "metrics.csv", index=False)
    return run


@dataclass
class Spec:
    name: str
    make: Callable  # (results directory, **settings) -> pane, idle, its worker a thread
    family: str  # the family its Start runs
    module: object  # the pane's module (what a test patches in it)
    fake_run: Callable  # (runs directory) -> the path of a saved run there
    setting: str  # the label of an integer setting's widget ("steps" ≥ 1)
    selector: str  # the label of the pane's first Select (task / experiment)
    watched: str  # a parameter whose watcher calls defaults_fn, and a value to switch it to
    switch_to: str
    defaults_fn: str  # the module function that watcher calls
    long: dict  # settings for a run that goes on until stopped


SPECS = {
    "sharing": Spec("sharing", lambda results, **kw: SharingDiscovery(results=str(results), **{
        "task": "conv", "worker": "thread", **kw}), "sharing", sharing_discovery, _fake_sharing_run, "steps", "Task",
        "task", "gaussian", "task_defaults", {"task": "group", "steps": 100_000}),
    "training": Spec("training", lambda results, **kw: TrainingDynamics(results=str(results), **{
        "experiment": "custom", "runs": 1, "steps": 2, "strategies": ["nom"], "worker": "thread", **kw}),
        "dynamics", training_dynamics, _fake_dynamics_run, "Steps", "Experiment", "experiment", "trans",
        "experiment_defaults", {"steps": 100_000}),
}
PANES = list(SPECS)


# ------------------------------------------------------------------ what every test checks
class Records(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture
def logs():
    """Every record of the root, Panel's, Bokeh's and the lab's loggers (the lab's at DEBUG level)."""
    handler = Records()
    lab = logging.getLogger("lab")
    level = lab.level
    lab.setLevel(logging.DEBUG)
    for name in LOGGERS:
        logging.getLogger(name).addHandler(handler)
    yield handler.records
    for name in LOGGERS:
        logging.getLogger(name).removeHandler(handler)
    lab.setLevel(level)


@pytest.fixture
def quiet(logs, capsys):
    """Yields a check: no record at ERROR or above, nothing on stderr, no traceback on stdout."""

    def check(traceback_logged: bool = False):
        loud = [f"{r.name}: {r.getMessage()}" for r in logs if r.levelno >= logging.ERROR]
        assert not loud, loud
        out, err = capsys.readouterr()
        assert err == "" and "Traceback" not in out, (out, err)
        if traceback_logged:  # an unexpected exception's traceback went to the lab's log, at DEBUG level
            assert any(r.exc_info and r.levelno == logging.DEBUG and r.name.startswith("lab.") for r in logs)

    return check




def _widget(pane, label):
    found = [w for w in pane.runner._widgets() if w.label == label]
    assert len(found) == 1, label
    return found[0]


def assert_inline(pane, text):
    assert pane._error.visible, pane._error.object
    assert text in pane._error.object, pane._error.object
    assert "Traceback" not in pane._error.object


def assert_idle(pane, refused: str | None = None):
    """Start enabled (disabled, with the ``refused`` text beside it, when the settings are refused), Pause and
    Stop disabled, every setting enabled, Load enabled exactly when a saved run is selected, no stale
    "building"."""
    assert not pane.runner.busy
    if refused is None:
        assert not pane._start_b.disabled and not pane._invalid.visible, pane._invalid.object
    else:
        assert pane._start_b.disabled and pane._invalid.visible and refused in pane._invalid.object
    assert pane._pause_b.disabled and pane._stop_b.disabled
    assert pane._pause_b.label == "Pause"
    assert pane._load_b.disabled == (not pane._saved.value) and not pane._saved.disabled
    assert not any(w.disabled for w in pane.runner._widgets() if w is not pane._load_b)
    assert "building" not in pane._status.object.lower()


def _failing(exc):
    def fail(*args, **kwargs):
        raise exc
    return fail


def _failing_run(exc):
    """A family run that gets as far as building (the status shows "building …") and then raises."""
    def run(config, progress=None, control=None):
        progress(progress_record(0, 10, "building the task"))
        raise exc
    return run


FAILURES = {  # what the patched function raises, and the text the pane must show
    "LabError": (LabError("the task is out of reach"), "the task is out of reach"),
    "RuntimeError": (RuntimeError("boom\nsecond line"), "unexpected RuntimeError: boom"),
}


# ------------------------------------------------------------------ Start
@pytest.mark.parametrize("failure", list(FAILURES))
@pytest.mark.parametrize("which", PANES)
def test_start_when_the_family_run_raises(which, failure, tmp_path, monkeypatch, quiet):
    spec = SPECS[which]
    exc, text = FAILURES[failure]
    monkeypatch.setitem(FAMILIES, spec.family, dataclasses.replace(FAMILIES[spec.family], run=_failing_run(exc)))
    pane = spec.make(tmp_path)
    assert pane.start()  # the job starts; its run fails in the worker
    assert _wait(pane, lambda: not pane.runner.busy)
    assert_inline(pane, text)
    assert_idle(pane)
    assert "**failed**" in pane._status.object
    quiet(traceback_logged=failure == "RuntimeError")


@pytest.mark.parametrize("failure", list(FAILURES))
@pytest.mark.parametrize("which", PANES)
def test_start_when_making_the_job_raises(which, failure, tmp_path, monkeypatch, quiet):
    spec = SPECS[which]
    exc, text = FAILURES[failure]
    monkeypatch.setattr(spec.module, "Job", _failing(exc))
    monkeypatch.setattr(job_pane, "Job", _failing(exc))  # a pane whose Start makes its family's job in JobPane
    pane = spec.make(tmp_path)
    assert not pane.start()
    assert_inline(pane, text)
    assert_idle(pane)
    assert pane._status.object.startswith("**idle**") and "starting the run failed" in pane._status.object
    quiet(traceback_logged=failure == "RuntimeError")


@pytest.mark.parametrize("which", PANES)
def test_start_when_the_worker_cannot_start(which, tmp_path, monkeypatch, quiet):
    """The job's worker (thread or process) fails to start: the status is idle, not a stale "building …"."""
    spec = SPECS[which]
    monkeypatch.setattr(Job, "start", _failing(OSError("no processes left")))
    pane = spec.make(tmp_path)
    assert not pane.start()
    assert_inline(pane, "could not start: unexpected OSError: no processes left")
    assert_idle(pane)
    assert pane._status.object.startswith("**idle**")
    quiet(traceback_logged=True)


BAD_SETTINGS = {  # values every widget accepts that make no valid config
    "sharing": ({"task": "gaussian", "K": 3, "blocks": 5}, "cannot exceed K"),
    "training": ({"strategies": []}, "strateg"),
}


@pytest.mark.parametrize("which", PANES)
def test_start_with_settings_that_make_no_valid_config(which, tmp_path, quiet):
    settings, text = BAD_SETTINGS[which]
    pane = SPECS[which].make(tmp_path)
    pane.param.update(**settings)
    assert pane._start_b.disabled and text in pane._invalid.object  # said beside Start before any press
    assert not pane.start()  # and a press that arrives anyway is refused inline
    assert_inline(pane, text)
    assert_idle(pane, refused=text)
    quiet()


# ------------------------------------------------------------------ Pause / Stop while a run goes on
@pytest.mark.parametrize("button", ["pause", "stop"])
@pytest.mark.parametrize("which", PANES)
def test_a_failing_button_while_running_keeps_the_run_controls(which, button, tmp_path, monkeypatch, quiet):
    spec = SPECS[which]
    pane = spec.make(tmp_path, **spec.long)
    try:
        assert pane.start()
        runner = pane.runner
        steer = "toggle_pause" if button == "pause" else "stop"
        monkeypatch.setattr(runner, steer, _failing(RuntimeError(f"cannot {button}")))
        (pane._pause_b if button == "pause" else pane._stop_b).clicks += 1  # as a browser's click arrives
        assert_inline(pane, f"unexpected RuntimeError: cannot {button}")
        assert runner.busy  # the run goes on, and its controls stay as they are while it runs
        assert pane._start_b.disabled and not pane._stop_b.disabled and not pane._pause_b.disabled
        assert pane._load_b.disabled
        monkeypatch.undo()
    finally:
        pane.runner.stop(wait=True)
    assert _wait(pane, lambda: not pane.runner.busy)
    assert_idle(pane)
    quiet(traceback_logged=True)


# ------------------------------------------------------------------ the periodic poll
@pytest.mark.parametrize("which", PANES)
def test_a_failing_poll_shows_inline_and_the_pane_settles(which, tmp_path, monkeypatch, quiet):
    spec = SPECS[which]
    monkeypatch.setitem(FAMILIES, spec.family,
                        dataclasses.replace(FAMILIES[spec.family], run=_failing(LabError("the run failed"))))
    pane = spec.make(tmp_path)
    assert pane.start()
    monkeypatch.setattr(pane.runner, "_write_status", _failing(RuntimeError("the status broke")))
    assert _wait(pane, lambda: not pane.runner.busy)
    assert pane.poll() == 0  # the periodic callback never raises
    assert_inline(pane, "unexpected RuntimeError: the status broke")
    assert_idle(pane)
    assert pane._status.object.startswith("**idle**")
    quiet(traceback_logged=True)


@pytest.mark.parametrize("which", PANES)
def test_a_failing_drawing_shows_inline_and_the_run_ends_idle(which, tmp_path, monkeypatch, quiet):
    spec = SPECS[which]
    pane = spec.make(tmp_path, **({"steps": 3} if which == "sharing" else {}))
    monkeypatch.setattr(pane.runner, "after_poll", _failing(RuntimeError("cannot draw")))
    assert pane.start()
    assert _wait(pane, lambda: not pane.runner.busy)
    assert_inline(pane, "could not draw the latest results: unexpected RuntimeError: cannot draw")
    assert_idle(pane)
    assert "**done**" in pane._status.object
    quiet(traceback_logged=True)


# ------------------------------------------------------------------ param watchers
@pytest.mark.parametrize("failure", list(FAILURES))
@pytest.mark.parametrize("which", PANES)
def test_a_failing_watcher_shows_inline(which, failure, tmp_path, monkeypatch, quiet):
    spec = SPECS[which]
    exc, text = FAILURES[failure]
    pane = spec.make(tmp_path)
    monkeypatch.setattr(spec.module, spec.defaults_fn, _failing(exc))
    setattr(pane, spec.watched, spec.switch_to)
    assert_inline(pane, text)
    assert_idle(pane)
    quiet(traceback_logged=failure == "RuntimeError")


REDRAWS = {  # a pane's own redraw watcher: what fails, and the change that calls it
    "sharing": ("_send", lambda pane: setattr(pane._slider, "value", 1)),
    "training": ("_set_log", lambda pane: setattr(pane, "log_scale", True)),
}


@pytest.mark.parametrize("which", PANES)
def test_a_failing_redraw_watcher_shows_inline(which, tmp_path, monkeypatch, quiet):
    method, change = REDRAWS[which]
    pane = SPECS[which].make(tmp_path)
    monkeypatch.setattr(pane, method, _failing(ValueError("nothing to draw")))
    change(pane)
    assert_inline(pane, "unexpected ValueError: nothing to draw")
    assert_idle(pane)
    quiet(traceback_logged=True)


# ------------------------------------------------------------------ settings as a browser sends them
@pytest.mark.parametrize("which", PANES)
def test_a_value_out_of_bounds_from_the_browser_is_named_beside_a_disabled_start(which, tmp_path, quiet):
    spec = SPECS[which]
    pane = spec.make(tmp_path)
    widget = _widget(pane, spec.setting)
    before = pane.steps
    widget._process_events({"value": -5})
    assert pane.steps == -5 and widget.value == -5  # kept as typed: no silent snap back to the last good value
    label = pane._field_labels["steps"]
    assert_idle(pane, refused=f"**{label}**: a whole number from 1 to")
    assert pane._invalid.object.endswith("got -5")
    assert not pane._error.visible and not pane.start()  # a press that arrives anyway starts nothing
    widget._process_events({"value": before})  # fixed: the message goes, Start comes back
    assert_idle(pane)
    quiet()


@pytest.mark.parametrize("which", PANES)
def test_an_unknown_choice_from_the_browser_is_refused_inline(which, tmp_path, quiet):
    spec = SPECS[which]
    pane = spec.make(tmp_path)
    widget = _widget(pane, spec.selector)
    before = widget.value
    widget._process_events({"value": "no such choice"})
    assert_inline(pane, "no such choice")
    assert widget.value == before and getattr(pane, spec.watched) == before
    assert_idle(pane)
    quiet(traceback_logged=True)


def test_guarding_settings_twice_guards_each_widget_once(tmp_path):
    pane = SPECS["training"].make(tmp_path)
    assert guard_settings(pane, pane._controls) == 0  # the pane guarded them already
    assert len([w for w in _widget(pane, "Steps").param.watchers["value"]["value"]
                if w.fn.__name__ == "link_widget"]) == 1


# ------------------------------------------------------------------ Load and the Saved-runs select
@pytest.mark.parametrize("failure", list(FAILURES))
@pytest.mark.parametrize("which", PANES)
def test_load_when_the_family_load_raises(which, failure, tmp_path, monkeypatch, quiet):
    spec = SPECS[which]
    exc, text = FAILURES[failure]
    run = spec.fake_run(tmp_path)
    loader = "sharing" if which == "sharing" else "dynamics"
    monkeypatch.setitem(FAMILIES, loader, dataclasses.replace(FAMILIES[loader], load=_failing(exc)))
    pane = spec.make(tmp_path)
    assert pane._saved.value == str(run)
    pane._load_b.clicks += 1  # as a browser's click arrives
    assert_inline(pane, text)
    assert_idle(pane)
    assert "loading the run failed" in pane._status.object
    quiet(traceback_logged=failure == "RuntimeError")


def _truncate(path, keep=0.5):
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * keep)])


BROKEN_RUNS = {  # (pane, what was done to the run's files, the text shown: the typed RunFileError's line)
    "truncated config.json": (PANES, lambda run: _truncate(run / "config.json"), "config.json: is not valid JSON"),
    "config.json a list": (PANES, lambda run: (run / "config.json").write_text("[1, 2]"),
                           "config.json: should hold a JSON object"),
    "config.json emptied": (PANES, lambda run: (run / "config.json").write_text(""), "config.json: is not valid JSON"),
    "truncated A_history.npz": (["sharing"], lambda run: _truncate(run / "A_history.npz"),
                                "A_history.npz: is not a readable npz file"),
    "history.csv gone": (["sharing"], lambda run: (run / "history.csv").unlink(), "history.csv: missing"),
    "metrics.csv hand-edited": (["training"], lambda run: (run / "metrics.csv").write_text("a,b\n1,2\n"),
                                "field 'strategy': column missing"),
    "metrics.csv gone": (["training"], lambda run: (run / "metrics.csv").unlink(), "metrics.csv: missing"),
}
BROKEN_CASES = [(which, case) for case, (panes, _, _) in BROKEN_RUNS.items() for which in panes]


@pytest.mark.parametrize("which,case", BROKEN_CASES)
def test_loading_a_broken_run_shows_inline(which, case, tmp_path, quiet):
    spec = SPECS[which]
    _, damage, text = BROKEN_RUNS[case]
    run = spec.fake_run(tmp_path)
    damage(run)
    pane = spec.make(tmp_path)
    assert not pane.load(str(run))
    assert_inline(pane, text)
    assert_idle(pane)
    quiet(traceback_logged=text.startswith("unexpected"))


@pytest.mark.parametrize("which", PANES)
def test_a_listed_run_loads(which, tmp_path, quiet):
    spec = SPECS[which]
    run = spec.fake_run(tmp_path)
    pane = spec.make(tmp_path)
    pane._load_b.clicks += 1
    assert not pane._error.visible, pane._error.object
    assert "Loaded" in pane._status.object and run.name in pane._status.object
    assert_idle(pane)
    quiet()


OUTSIDE = {  # values that are not one of the runs the pane listed
    "parent path": lambda run, other: "../../etc/passwd",
    "absolute path": lambda run, other: "/etc/passwd",
    "the runs directory itself": lambda run, other: str(run.parent),
    "a run in another directory": lambda run, other: str(other),
    "a listed run, spelt otherwise": lambda run, other: str(run) + "/.",
    "a listed run's name only": lambda run, other: run.name,
    "not a path": lambda run, other: 42,
}


@pytest.mark.parametrize("case", list(OUTSIDE))
@pytest.mark.parametrize("which", PANES)
def test_load_refuses_a_run_the_pane_did_not_list(which, case, tmp_path, monkeypatch, quiet):
    spec = SPECS[which]
    run = spec.fake_run(tmp_path / "runs")
    other = spec.fake_run(tmp_path / "elsewhere")  # a valid run, outside the pane's runs directory
    loader = "sharing" if which == "sharing" else "dynamics"
    read = []
    real = FAMILIES[loader].load
    monkeypatch.setitem(FAMILIES, loader, dataclasses.replace(
        FAMILIES[loader], load=lambda path, root=None: read.append(path) or real(path, root=root)))
    pane = spec.make(tmp_path / "runs")
    value = OUTSIDE[case](run, other)
    pane._saved.value = value  # e.g. a script, or a value that got past the select
    pane._load_b.clicks += 1
    assert_inline(pane, "is not one of the saved runs listed")
    assert read == []  # nothing was read
    assert_idle(pane)
    assert pane.load(str(run)) and read == [str(run)]  # the listed run itself loads
    quiet()


@pytest.mark.parametrize("case", ["parent path", "absolute path", "a run in another directory"])
@pytest.mark.parametrize("which", PANES)
def test_the_saved_runs_select_refuses_a_value_from_the_browser(which, case, tmp_path, quiet):
    spec = SPECS[which]
    run = spec.fake_run(tmp_path / "runs")
    other = spec.fake_run(tmp_path / "elsewhere")
    pane = spec.make(tmp_path / "runs")
    pane._saved._process_events({"value": OUTSIDE[case](run, other)})
    assert_inline(pane, "refused to load")
    assert pane._saved.value == str(run)  # the selection stays as it was
    assert_idle(pane)
    quiet()
