"""lab.jobs.Job: thread and process jobs stream records, pause holds, stop saves a stopped run, errors are one
line, two jobs never mix.  Deadlines are hang guards only; no test asserts how fast anything runs."""
from __future__ import annotations

import json
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from lab.config import Config, option
from lab.control import checkpoint
from lab.errors import LabError
from lab.experiments import Family, progress_record
from lab.dynamics.family import DynamicsConfig
from lab.jobs import Job, error_text

from polling import DEADLINE  # noqa: E402  (a hang guard, never a speed requirement)
from polling import poll_until as _poll_until  # noqa: E402
from scripted import FakeClock, Scripted  # noqa: E402


def small(**kw) -> DynamicsConfig:
    return DynamicsConfig(**{"experiment": "custom", "runs": 1, "steps": 6, "strategies": ("nom",), **kw})


def until(job, condition, timeout=DEADLINE, collect=None):
    """Drain ``job`` into ``collect`` until ``condition()``; False at the deadline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if collect is not None:
            collect.extend(job.drain())
        if condition():
            return True
        time.sleep(0.05)
    return False


def finish(job, collect):
    assert job.join(DEADLINE), "the job did not end"
    collect.extend(job.drain())
    return collect


# ------------------------------------------------------------------ a family that counts (thread jobs only)
@dataclass
class CountConfig(Config):
    steps: int = option(10, "steps", low=1)
    delay: float = option(0.01, "seconds per step", low=0)
    fail_at: int = option(-1, "raise TypeError at this step (-1: never)")


@dataclass
class CountResult:
    done: int
    status: str


def _count(config, progress=None, control=None):
    emit = progress or (lambda r: None)
    emit({"kind": "started", "steps": config.steps})
    for i in range(1, config.steps + 1):
        if control is not None and control.stopped:
            return CountResult(i - 1, "stopped")
        checkpoint(control)  # waits while paused
        time.sleep(config.delay)
        if i == config.fail_at:
            raise TypeError("boom\nsecond line")
        emit({"kind": "tick", "i": i})
        emit(progress_record(i, config.steps, f"step {i}/{config.steps}"))
    return CountResult(config.steps, "finished")


def _save(result, directory):
    path = Path(directory) / f"count-{result.status}.json"
    path.write_text(json.dumps({"done": result.done, "status": result.status}))
    return path


COUNT = Family(name="count", title="Count", config=CountConfig, run=_count,
               summary=lambda r: {"done": r.done}, text=str, save=_save)


# ------------------------------------------------------------------ streaming and saving
@pytest.mark.parametrize("process", [False, True], ids=["thread", "process"])
def test_a_job_streams_records_then_saves(process, tmp_path):
    job = Job("dynamics", small(), save_dir=tmp_path, process=process)
    seen = []
    states = set()
    post = job._post  # the state after every message, however fast the run (polling can miss a short state)
    job._post = lambda msg: (post(msg), states.add(job.state))
    job.start()
    assert until(job, lambda: states.add(job.state) or not job.running, collect=seen)
    finish(job, seen)
    kinds = [m["kind"] for m in seen]
    assert kinds[-1] == "done" and kinds.count("done") == 1
    assert kinds.index("started") < kinds.index("records")
    steps = [m["step"] for m in seen if m["kind"] == "records"]
    assert steps == list(range(1, 7))  # every step, in order
    final = seen[-1]
    assert final["status"] == "finished" and job.state == "done" and "running" in states
    meta = json.loads((Path(final["saved"]) / "config.json").read_text())
    assert meta["status"] == "finished" and meta["steps_done"] == 6
    assert final["summary"]["nom"]["steps"] == 6
    assert job.rate > 0 and job.done == job.total == 6 and job.eta is None
    assert ("result" in final) == (not process)  # only a thread job hands back its result object


def test_a_process_job_rebuilds_its_config_from_plain_data(tmp_path):
    cfg = small(experiment="trans", group="Trivial(8)*Z(8)", steps=1, runs=1)
    job = Job("dynamics", cfg, save_dir=tmp_path, process=True).start()
    seen = finish(job, [])
    assert seen[-1]["kind"] == "done", seen[-1]
    meta = json.loads((Path(seen[-1]["saved"]) / "config.json").read_text())
    assert DynamicsConfig.from_dict(meta["config"]) == cfg.validate()


# ------------------------------------------------------------------ pause
def test_pause_holds_a_thread_job_and_resume_goes_on():
    job = Job(COUNT, CountConfig(steps=100_000, delay=0.005)).start()
    seen = []
    assert until(job, lambda: sum(m["kind"] == "tick" for m in seen) >= 3, collect=seen)
    job.pause()
    time.sleep(0.3)  # the step under way finishes
    job.drain()
    assert job.state == "paused"
    time.sleep(1.0)
    assert [m for m in job.drain() if m["kind"] == "tick"] == []  # nothing while paused
    job.resume()
    after = []
    assert until(job, lambda: sum(m["kind"] == "tick" for m in after) >= 3, collect=after)
    assert job.state == "running"  # the time bookkeeping is checked exactly with a fake clock (below)
    job.stop()
    finish(job, [])


def test_elapsed_rate_and_eta_exclude_the_pause_and_the_build():
    clock, script = FakeClock(), Scripted()
    job = Job.function(script, name="scripted", clock=clock).start()
    script.emit(progress_record(0, 10, "building"))
    assert job.state == "building" and job.rate == 0 and job.eta is None
    clock.t += 4.0  # a 4 s build: not counted in the rate
    script.emit(progress_record(1, 10, "step 1/10"))
    assert job.state == "running" and job.rate == 0 and job.eta is None  # one point: no rate yet
    clock.t += 2.0
    script.emit(progress_record(2, 10, "step 2/10"))
    assert job.rate == pytest.approx(0.5) and job.eta == pytest.approx(16.0)  # 8 steps left at 0.5 steps/s
    clock.t += 1.0
    assert job.elapsed == pytest.approx(7.0) and job.eta == pytest.approx(15.0)  # counts down between records
    job.pause()
    clock.t += 100.0  # paused: nothing moves
    assert job.state == "paused" and job.elapsed == pytest.approx(7.0) and job.eta == pytest.approx(15.0)
    assert job.rate == pytest.approx(0.5)
    job.resume()
    clock.t += 1.0
    script.emit(progress_record(3, 10, "step 3/10"))  # 2 steps in 4 active seconds since the build
    assert job.state == "running" and job.elapsed == pytest.approx(8.0)
    assert job.rate == pytest.approx(0.5) and job.eta == pytest.approx(14.0)
    clock.t += 1.0
    script.emit(progress_record(3, 10, "step 4/10: half of it", partial=0.5))  # 2.5 steps in 5 s
    assert job.rate == pytest.approx(0.5) and job.eta == pytest.approx(13.0)
    job.pause()
    clock.t += 50.0
    job.stop()  # a stop ends the pause: the time after it counts again
    clock.t += 2.0
    assert job.elapsed == pytest.approx(11.0)
    script.end(job)  # the final message freezes the clock
    clock.t += 30.0
    assert job.state == "done" and job.elapsed == pytest.approx(11.0) and job.eta is None


def test_pause_holds_a_process_job(tmp_path):
    job = Job("dynamics", small(steps=100_000), save_dir=tmp_path, process=True).start()
    seen = []
    assert until(job, lambda: any(m["kind"] == "records" for m in seen), collect=seen)
    job.pause()
    assert until(job, lambda: job.control.paused)
    time.sleep(3.0)  # the step under way finishes
    job.drain()
    time.sleep(3.0)
    steps = {m["step"] for m in job.drain() if m["kind"] == "records"}
    assert len(steps) <= 1, steps  # at most the step that was under way
    assert job.state == "paused"
    job.resume()
    more = []
    assert until(job, lambda: any(m["kind"] == "records" for m in more), collect=more)
    job.stop()
    final = finish(job, [])[-1]
    assert final["status"] == "stopped"


# ------------------------------------------------------------------ stop
@pytest.mark.parametrize("process", [False, True], ids=["thread", "process"])
def test_stop_ends_the_worker_and_saves_a_stopped_run(process, tmp_path):
    job = Job("dynamics", small(steps=100_000), save_dir=tmp_path, process=process).start()
    seen = []
    assert until(job, lambda: any(m["kind"] == "records" for m in seen), collect=seen)
    job.stop()
    finish(job, seen)
    final = seen[-1]
    assert job.state == "stopped" and final["kind"] == "done" and final["status"] == "stopped"
    meta = json.loads((Path(final["saved"]) / "config.json").read_text())
    assert meta["status"] == "stopped" and 1 <= meta["steps_done"] < 100_000
    if process:
        assert not job._proc.is_alive()
    else:
        assert not job._worker.is_alive()


def test_a_process_that_does_not_stop_in_time_is_ended(tmp_path):
    job = Job("dynamics", small(steps=100_000), save_dir=tmp_path, process=True, grace=0.0).start()
    job.stop()  # still starting up: it cannot stop within 0 s, so it is ended
    seen = finish(job, [])
    assert job.state == "stopped" and seen[-1]["saved"] is None and "ended" in seen[-1]["note"]
    assert until(job, lambda: not job._proc.is_alive())
    assert not [p for p in tmp_path.iterdir() if not p.name.startswith(".")]  # no half-saved run is listed


def test_a_killed_worker_process_is_a_failed_job(tmp_path):
    job = Job("dynamics", small(steps=100_000), save_dir=tmp_path, process=True).start()
    seen = []
    assert until(job, lambda: any(m["kind"] == "records" for m in seen), collect=seen)
    os.kill(job._proc.pid, signal.SIGKILL)
    finish(job, seen)
    assert job.state == "failed" and "ended unexpectedly" in seen[-1]["error"]


# ------------------------------------------------------------------ errors
def test_an_unexpected_exception_is_a_failed_state_with_one_line():
    job = Job(COUNT, CountConfig(steps=5, fail_at=3)).start()
    seen = finish(job, [])
    assert job.state == "failed" and seen[-1] == {"kind": "failed", "error": "unexpected TypeError: boom"}
    assert sum(m["kind"] == "tick" for m in seen) == 2


@pytest.mark.parametrize("process", [False, True], ids=["thread", "process"])
def test_a_lab_error_in_the_run_is_shown_as_is(process, tmp_path):
    job = Job("dynamics", small(group="U(2)"), save_dir=tmp_path, process=process).start()  # refused in the run
    seen = finish(job, [])
    assert job.state == "failed" and seen[-1]["kind"] == "failed"
    error = seen[-1]["error"]
    assert "complex" in error and "\n" not in error and not error.startswith("unexpected")
    assert not list(tmp_path.iterdir())


def test_bad_settings_are_refused_before_anything_starts():
    with pytest.raises(LabError, match="strateg"):
        Job("dynamics", small(strategies=()))
    with pytest.raises(LabError, match="unknown group"):  # texts are parsed and sized before any start
        Job("dynamics", small(group="Q(3)"))
    with pytest.raises(LabError, match="unknown experiment family"):
        Job("nope", small())
    assert error_text(ValueError("a\nb")) == "unexpected ValueError: a"


# ------------------------------------------------------------------ isolation
def test_two_jobs_at_once_never_see_each_others_records(tmp_path):
    a = Job("dynamics", small(runs=1, steps=8), save_dir=tmp_path / "a", process=True).start()
    b = Job("dynamics", small(runs=3, steps=5, strategies=("nom", "equi")), save_dir=tmp_path / "b").start()
    seen_a, seen_b = finish(a, []), finish(b, [])
    for seen, runs, strategies, steps in ((seen_a, 1, {"nom"}, 8), (seen_b, 3, {"nom", "equi"}, 5)):
        started = [m for m in seen if m["kind"] == "started"]
        assert len(started) == 1 and started[0]["runs"] == runs
        rows = [r for m in seen if m["kind"] == "records" for r in m["records"]]
        assert {r["run"] for r in rows} == set(range(runs)) and {r["strategy"] for r in rows} == strategies
        assert max(r["step"] for r in rows) == steps and seen[-1]["status"] == "finished"
    assert len(list((tmp_path / "a").iterdir())) == len(list((tmp_path / "b").iterdir())) == 1


# ------------------------------------------------------------------ a plain function (short superseded jobs)
def test_a_function_job_hands_back_its_result_and_can_be_stopped():
    def solve(progress, control):
        for i in range(1000):
            checkpoint(control)
            progress(progress_record(i, 1000))
            time.sleep(0.002)
        return "solved"

    old = Job.function(solve, "solve").start()
    assert until(old, lambda: old.done > 2, collect=[])
    old.stop()
    assert old.join(DEADLINE) and old.state == "stopped"
    new = Job.function(lambda progress, control: 42, "solve").start()
    assert new.join(DEADLINE) and new.state == "done" and new.result == 42


# ------------------------------------------------------------------ the dashboard's runner


def test_the_runner_supersedes_a_short_job_and_drops_its_messages():
    import panel as pn

    from lab.dashboard.runner import JobRunner

    got = []
    runner = JobRunner(got.append, start=pn.widgets.Button(label="Start"))

    def ticking(who, n):
        def fn(progress, control):
            for i in range(n):
                checkpoint(control)
                progress({"kind": "tick", "who": who})
                time.sleep(0.01)
            return who
        return fn

    old = Job.function(ticking("old", 100_000), "solve")
    assert runner.start(old)
    assert _poll_until(runner, lambda: any(m.get("who") == "old" for m in got))
    assert not runner.start(Job.function(ticking("new", 3), "solve"))  # one at a time unless superseding
    new = Job.function(ticking("new", 3), "solve")
    assert runner.start(new, supersede=True)
    cut = len(got)
    assert _poll_until(runner, lambda: not runner.busy)
    assert [m.get("who") for m in got[cut:] if m["kind"] == "tick"] == ["new"] * 3  # nothing from the old job
    assert got[-1]["kind"] == "done" and got[-1]["result"] == "new"
    assert old.join(DEADLINE) and old.state == "stopped"  # the superseded job was asked to stop, and did


def test_the_runner_locks_and_restores_widgets_and_shows_drawing_errors_inline():
    import panel as pn

    from lab.dashboard.runner import JobRunner

    start, pause, stop = (pn.widgets.Button(label=x) for x in ("Start", "Pause", "Stop"))
    free, off = pn.widgets.IntInput(label="free"), pn.widgets.IntInput(label="off", disabled=True)
    error, status = pn.pane.Alert(visible=False), pn.pane.Markdown()

    def draw(msg):
        if msg["kind"] == "tick" and msg["i"] == 2:
            raise ValueError("cannot draw this\nsecond line")

    runner = JobRunner(draw, start=start, pause=pause, stop=stop, lock=[pn.Column(pn.Row(free), off)],
                       status=status, error=error)
    assert not start.disabled and pause.disabled and stop.disabled
    job = Job(COUNT, CountConfig(steps=5, delay=0.02))
    assert runner.start(job)
    assert free.disabled and off.disabled and start.disabled and not pause.disabled and not stop.disabled
    assert _poll_until(runner, lambda: not runner.busy)
    assert not free.disabled and off.disabled  # each widget back as it was
    assert not start.disabled and pause.disabled and stop.disabled
    assert error.visible
    assert error.object == "could not draw the latest results: unexpected ValueError: cannot draw this"
    assert "**done**" in status.object and "step 5/5" in status.object and job.state == "done"


def test_the_runner_is_settled_only_once_every_message_of_an_ended_job_was_drawn():
    """A job can end between a poll's drain and its ``after_poll`` (its last messages still queued): that frame is
    not the last one.  ``settled`` is true in exactly one frame, the one after the final message was handed over."""
    import threading

    import panel as pn

    from lab.dashboard.runner import JobRunner

    release, drained = threading.Event(), threading.Event()

    def fn(progress, control):
        progress({"kind": "tick", "i": 0})
        release.wait(DEADLINE)  # ends only once the first poll has drained the tick
        progress({"kind": "tick", "i": 1})
        return "ok"

    frames = []
    runner = JobRunner(lambda m: drained.set() if m.get("i") == 0 else None, start=pn.widgets.Button(label="Start"))

    def after_poll(count):
        if drained.is_set() and not release.is_set():  # the job ends now, between this poll's drain and frame
            release.set()
            assert job.join(DEADLINE)
        frames.append((count, runner.settled))

    runner.after_poll = after_poll
    job = Job.function(fn, "solve")
    assert runner.start(job)
    assert _poll_until(runner, lambda: not runner.busy)
    assert not job.running
    assert [s for _, s in frames].count(True) == 1 and frames[-1][1]  # the job ended two frames early: not "last"
    assert frames[-1][0] >= 1  # the settled frame is the one that drew the final messages
