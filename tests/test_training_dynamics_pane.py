"""The Training dynamics pane driven through its API (no server): streaming, stop, save, reload."""
from __future__ import annotations

import time

import pytest

from lab.dashboard.training_dynamics import TrainingDynamics


@pytest.fixture
def pane(tmp_path):
    p = TrainingDynamics(results=str(tmp_path), experiment="custom", runs=2, steps=12)
    yield p
    p.stop(wait=True)


def _wait(pane, until, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pane.poll()
        if until():
            return True
        time.sleep(0.05)
    return False


def test_started_training_streams_points_and_saves(pane, tmp_path):
    assert pane.start()
    seen = []
    assert _wait(pane, lambda: (seen.append(len(pane._records)) or not pane.running))
    pane.poll()
    assert seen[-1] == len(pane._records) > 0
    # points arrive while training runs, not only at the end
    assert len(set(seen)) > 2
    steps = {r["step"] for r in pane._records}
    assert steps == set(range(13))
    assert "finished" in pane._status.object and "saved to" in pane._status.object
    assert len(list(tmp_path.iterdir())) == 1 and not pane._start_b.disabled
    assert pane._pipe is not None and not pane._layers.object.empty


def test_stop_ends_the_worker_thread_and_saves_a_stopped_run(tmp_path):
    pane = TrainingDynamics(results=str(tmp_path), experiment="perm", runs=3, steps=10_000)
    assert pane.start()
    assert _wait(pane, lambda: pane.trainer is not None and pane.trainer.step >= 1)
    t0 = time.monotonic()
    pane.stop(wait=True)
    assert time.monotonic() - t0 < 2.0 and not pane.worker.is_alive()
    pane.poll()
    assert "stopped" in pane._status.object
    saved = list(tmp_path.iterdir())
    assert len(saved) == 1
    assert pane.load(str(saved[0])) and "Loaded" in pane._status.object


def test_pause_holds_training(pane):
    assert pane.start()
    assert _wait(pane, lambda: pane.trainer is not None and pane.trainer.step >= 1)
    pane.pause()
    time.sleep(0.3)
    step = pane.trainer.step
    time.sleep(0.5)
    assert pane.trainer.step <= step + 1  # at most the step that was under way finishes
    pane.resume()
    assert _wait(pane, lambda: not pane.running)


def test_bad_settings_are_an_inline_error(pane):
    pane.param.update(strategies=[], runs=2)
    assert not pane.start()
    assert pane._error.visible and "strateg" in pane._error.object
    pane.param.update(strategies=["nom"], experiment="custom", group="Q(3)")
    assert pane.start()
    assert _wait(pane, lambda: not pane.running)
    pane.poll()
    assert pane._error.visible and "unknown group" in pane._error.object


def test_trans_takes_a_group_for_the_one_dimensional_variant(tmp_path):
    pane = TrainingDynamics(results=str(tmp_path))
    pane.experiment = "trans"
    assert pane.group == "Z(8)*Z(8)" and pane._custom.visible and not pane._rep_w.visible
    pane.group = "Trivial(8)*Z(8)"
    config = pane.config().validate()
    assert config.options == {"group": "Trivial(8)*Z(8)"}
    assert config.steps == 30  # the experiment's defaults were loaded
