"""The Training dynamics pane driven through its API (no server): streaming, locking, stop, save, reload.

Deadlines are hang guards (the machine may be busy); no test asserts how fast anything runs."""
from __future__ import annotations

import json
import time

import pytest

from lab.dynamics.pane import TrainingDynamics
from lab.dynamics.config import DynamicsConfig

from polling import poll_until as _wait  # noqa: E402


@pytest.fixture
def pane(tmp_path):
    p = TrainingDynamics(results=str(tmp_path), experiment="custom", runs=2, steps=12, worker="thread")
    yield p
    p.stop(wait=True)




def _settings(pane):
    return [w for w in pane.runner._widgets()]


@pytest.mark.parametrize("worker", ["thread", "process"])
def test_started_training_streams_points_and_saves(worker, tmp_path):
    pane = TrainingDynamics(results=str(tmp_path), experiment="custom", runs=2, steps=12, worker=worker)
    seen = [len(pane.live.data)]
    assert pane.start()
    # hold the run at its first step until its first points are drawn: on a fast machine 12 steps can end
    # between two polls, on a slow one this waits; either way the run is seen (and drawn) while it runs
    pane.pause()
    assert _wait(pane, lambda: (seen.append(len(pane.live.data)) or len(pane.frames) >= 1))
    assert pane.runner.busy and 0 < len(pane.live.data)
    pane.resume()
    assert _wait(pane, lambda: (seen.append(len(pane.live.data)) or not pane.runner.busy))
    assert seen[-1] == len(pane.live.data) > 0
    assert len(set(seen)) > 2  # points arrive while training runs, not only at the end
    assert pane.live.data.steps == list(range(13))
    xs, _ = pane.live.points("loss", "nom")
    assert xs == [float(s) for s in range(13)]  # the finished plot holds every step
    assert "finished" in pane._status.object and "saved to" in pane._status.object
    assert "step 12/12" in pane._status.object
    assert len(list(tmp_path.iterdir())) == 1 and not pane._start_b.disabled
    assert not pane._layers.object.empty
    assert len(pane.frames) >= 2  # redrawn while it ran, and the last frame


def test_load_and_every_setting_are_disabled_while_running(pane, tmp_path):
    settings = _settings(pane)
    names = {w.label for w in settings}
    assert {"Experiment", "Runs", "Steps", "Seed", "Learning rate", "Strategies", "Load", "Saved runs"} <= names
    assert not any(w.disabled for w in settings if w is not pane._load_b)
    assert pane._load_b.disabled  # nothing saved yet: nothing to load
    assert pane.start()
    assert all(w.disabled for w in settings) and pane._load_b.disabled
    assert pane._start_b.disabled and not pane._stop_b.disabled and not pane._pause_b.disabled
    assert not pane.load(str(tmp_path))  # the API refuses too
    assert not pane.start()  # one run at a time
    assert _wait(pane, lambda: not pane.runner.busy)
    assert not any(w.disabled for w in settings)
    assert not pane._start_b.disabled and pane._stop_b.disabled and pane._pause_b.disabled


def test_stop_ends_the_worker_and_saves_a_stopped_run(tmp_path):
    pane = TrainingDynamics(results=str(tmp_path), experiment="perm", runs=3, steps=10_000, worker="process")
    assert pane.start()
    assert _wait(pane, lambda: pane.step >= 1)
    pane.stop(wait=True)
    assert not pane.running and not pane.runner.job._proc.is_alive()
    assert "stopped" in pane._status.object and not pane._load_b.disabled
    saved = list(tmp_path.iterdir())
    assert len(saved) == 1
    assert json.loads((saved[0] / "config.json").read_text())["status"] == "stopped"
    assert pane.load(str(saved[0])) and "Loaded" in pane._status.object and "stopped" in pane._status.object


def test_pause_holds_training(pane):
    pane.steps = 100_000
    assert pane.start()
    assert _wait(pane, lambda: pane.step >= 1)
    pane.pause()
    assert pane._pause_b.label == "Resume"
    assert _wait(pane, lambda: "**paused**" in pane._status.object)
    time.sleep(1.0)  # the step under way finishes
    pane.poll()
    step = pane.step
    time.sleep(1.5)
    pane.poll()
    assert pane.step <= step + 1  # at most the step that was under way
    pane.resume()
    assert _wait(pane, lambda: pane.step > step + 1)
    pane.stop(wait=True)
    assert "stopped" in pane._status.object


def test_bad_settings_are_an_inline_error(pane):
    pane.param.update(strategies=[], runs=2)
    assert not pane.start()
    assert pane._error.visible and "strateg" in pane._error.object
    pane.param.update(strategies=["nom"], experiment="custom", group="Q(3)")
    assert not pane.start()  # a bad group text is refused before anything starts
    assert pane._error.visible and "unknown group" in pane._error.object
    pane.param.update(group="U(2)")  # a valid text the experiment refuses when it builds: the run fails
    assert pane.start()
    assert _wait(pane, lambda: not pane.runner.busy)
    assert pane._error.visible and "complex" in pane._error.object and "Traceback" not in pane._error.object
    assert "**failed**" in pane._status.object and not pane._start_b.disabled
    assert "building" not in pane._status.object  # the worker's last message before it failed is not shown


def test_a_custom_group_or_rep_is_checked_as_typed_naming_its_box(pane):
    assert not pane._box_note.visible
    pane.group = "S(6"  # typed, no Start yet: the box's note names it
    assert pane._box_note.visible and pane._box_note.object.startswith("Group box: cannot parse 'S(6'")
    assert not pane.start()  # Start refuses with the same words
    assert pane._error.visible and pane._error.object.startswith("Group box:")
    pane.param.update(group="S(6)", rep="T(2")
    assert pane._box_note.object.startswith("Input rep box: cannot parse 'T(2'")
    assert pane._error.object.startswith("Input rep box:")  # the refusal follows the settings
    pane.rep = "V"
    assert not pane._box_note.visible and not pane._error.visible
    pane.param.update(experiment="perm")  # the boxes are hidden: nothing of theirs is reported
    pane.param.update(experiment="custom", group="S(6", rep="V")
    pane.experiment = "perm"
    assert not pane._box_note.visible


def test_loading_a_run_restores_its_settings(tmp_path):
    first = TrainingDynamics(results=str(tmp_path), experiment="custom", runs=2, steps=3, seed=4, lr=0.3,
                             strategies=["nom", "equi"], group="S(5)", worker="thread")
    assert first.start()
    assert _wait(first, lambda: not first.runner.busy)
    saved = list(tmp_path.iterdir())
    assert len(saved) == 1
    fresh = TrainingDynamics(results=str(tmp_path))
    assert (fresh.experiment, fresh.runs, fresh.seed) == ("perm", 5, 0)
    assert fresh.load(str(saved[0]))
    assert (fresh.experiment, fresh.runs, fresh.steps, fresh.seed, fresh.lr, fresh.group) == (
        "custom", 2, 3, 4, 0.3, "S(5)")
    assert fresh.strategies == ["nom", "equi"] and fresh._custom.visible
    assert fresh.config().validate() == first.config().validate()
    assert "seed 4" in fresh._status.object and "2 runs" in fresh._status.object
    assert fresh.live.data.steps == [0, 1, 2, 3]
    # the audit of the final models (lab.equivariance under S(5), issue 29): shown when the run ends and again on Load,
    # the saved summary's numbers; Equi within tolerance in both runs, Nom in neither
    summary = json.loads((saved[0] / "config.json").read_text())["summary"]
    for pane in (first, fresh):
        assert "at step 3" in pane._audit_head.object
        table = pane._audit.object.set_index("strategy")
        assert list(table.index) == ["Nom", "Equi"]
        for s, label in (("nom", "Nom"), ("equi", "Equi")):
            mark = "✓" if s == "equi" else "✗"
            assert table.loc[label, "audit (median over runs)"] == f"{summary[s]['audit_error']:.2g} {mark}"
        assert table.loc["Equi", "runs within tolerance"] == "2 of 2" and table.loc["Nom", "runs within tolerance"] \
            == "0 of 2"
    assert summary["equi"]["audit_error"] < 1e-13 < 1e-3 < summary["nom"]["audit_error"]


def test_a_saved_run_with_unknown_settings_still_loads(tmp_path):
    first = TrainingDynamics(results=str(tmp_path), experiment="custom", runs=1, steps=1, worker="thread")
    assert first.start()
    assert _wait(first, lambda: not first.runner.busy)
    run = list(tmp_path.iterdir())[0]
    meta = json.loads((run / "config.json").read_text())
    meta["config"]["a_setting_from_the_future"] = 1
    (run / "config.json").write_text(json.dumps(meta))
    for values in meta["summary"].values():  # as a run saved before the audit existed
        for key in [k for k in values if k.startswith("audit_")]:
            del values[key]
    (run / "config.json").write_text(json.dumps(meta))
    fresh = TrainingDynamics(results=str(tmp_path))
    assert fresh.load(str(run)) and fresh.experiment == "custom" and not fresh._error.visible
    assert set(fresh._audit.object["audit (median over runs)"]) == {"—"}
    meta["config"]["runs"] = "many"
    (run / "config.json").write_text(json.dumps(meta))
    other = TrainingDynamics(results=str(tmp_path))
    assert other.load(str(run)) and other._error.visible and "runs" in other._error.object
    assert other.experiment == "perm"  # nothing half-restored


def test_trans_takes_a_group_for_the_one_dimensional_variant(tmp_path):
    pane = TrainingDynamics(results=str(tmp_path))
    pane.experiment = "trans"
    assert pane.group == "Z(8)*Z(8)" and pane._custom.visible and not pane._rep_w.visible
    pane.group = "Trivial(8)*Z(8)"
    config = pane.config().validate()
    assert config.options == {"group": "Trivial(8)*Z(8)"}
    defaults = DynamicsConfig(experiment="trans").validate()
    assert (config.steps, config.lr, config.aug_passes) == (defaults.steps, defaults.lr, defaults.aug_passes)
    pane.experiment = "perm"
    assert pane.config().validate().options == {}  # no group for perm


def test_the_numbers_shown_are_those_of_the_drawn_curves(pane):
    """The per-layer table's "total" row (median over runs, latest step) is the last point of each strategy's bold
    median curve in the drift plot the pane drew, and the loss plot ends at the median final loss of the runs'
    records: the table and the pictures come from the same records."""
    import numpy as np
    import pandas as pd

    from lab.dynamics.store import list_runs

    assert pane.start()
    assert _wait(pane, lambda: not pane.runner.busy)
    table = pane._layers.object
    totals = table[table.layer == "total"].set_index("strategy")
    metrics = pd.read_csv(list_runs(pane.results)[0] / "metrics.csv")  # the saved run, read independently
    last = metrics.step.max()
    assert set(totals.index) == set(pane.strategies)
    for strategy, row in totals.iterrows():
        x, y = pane.live.points("drift-nom", strategy)  # what the browser's sources hold
        assert x[-1] == pytest.approx(row.dist_from_init, rel=1e-5)
        assert y[-1] == pytest.approx(row.dist_from_E, rel=1e-5, abs=1e-12)
        finals = metrics[(metrics.step == last) & (metrics.layer == "total") & (metrics.strategy == strategy)]
        assert pane.live.points("loss", strategy)[1][-1] == pytest.approx(float(np.median(finals.loss)), rel=1e-6)

