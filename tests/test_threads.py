"""The lab's compute threads fit the machine's load (``lab/threads.py``): OpenMP's threads sleep while they wait
(``OMP_WAIT_POLICY=PASSIVE``) when a process starts on a busy machine, torch's pool shrinks to the cores other
processes leave free while a run computes and grows back once they are free again, and a choice the user made is
kept.  Checked where OpenMP itself says so and with made-up loads, never by timing.

OpenMP prints the settings it loaded with when ``OMP_DISPLAY_ENV=verbose``: libgomp (torch's pip wheels) shows
``GOMP_SPINCOUNT = '0'`` for PASSIVE, ``'300000'`` when no policy is set and ``'30000000000'`` for ACTIVE.
"""
from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lab import threads as lab_threads
from lab.control import Control, checkpoint
from lab.dynamics.family import DynamicsConfig
from lab.jobs import Job
from lab.threads import CHECK_SECONDS, RAISE_AFTER, ThreadFit, choose_wait_policy, fit_threads

sys.path.insert(0, str(Path(__file__).parent))
from polling import DEADLINE  # noqa: E402  (a hang guard, never a speed requirement)

ROOT = Path(__file__).resolve().parents[1]
SPINS = {"PASSIVE": "0", "ACTIVE": "30000000000"}
# (the user's OMP_WAIT_POLICY, the policy OpenMP must load on a busy machine)
CHOICES = [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")]
CLEARED = ("OMP_WAIT_POLICY", "LAB_THREADS", "GOMP_SPINCOUNT", "LAB_WAIT_POLICY")


@contextlib.contextmanager
def busy_machine():
    """More processes spinning than the machine has CPUs, for the time of a ``with`` block."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range((os.cpu_count() or 1) + 1)]
    try:
        time.sleep(0.3)  # running before anything is measured
        yield
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def loaded_policy(stderr: str) -> str | None:
    """The wait policy OpenMP loaded with, from its ``OMP_DISPLAY_ENV=verbose`` lines (None: nothing shown)."""
    spins = re.search(r"GOMP_SPINCOUNT\s*=\s*'(\d+)'", stderr)
    if spins:  # libgomp shows 'PASSIVE' for "not set" too: its spin count tells them apart
        return {v: k for k, v in SPINS.items()}.get(spins.group(1), f"spin count {spins.group(1)}")
    policy = re.search(r"OMP_WAIT_POLICY\s*=\s*'(\w+)'", stderr)
    return policy.group(1).upper() if policy else None


def check(stderr: str, expected: str):
    policy = loaded_policy(stderr)
    if policy is None:
        pytest.skip("this torch's thread pool is not OpenMP (nothing shown for OMP_DISPLAY_ENV)")
    assert policy == expected, stderr[-2000:]


def environment(user_policy, env=None) -> dict:
    env = {k: v for k, v in (os.environ if env is None else env).items() if k not in CLEARED}
    env.update(OMP_DISPLAY_ENV="verbose", OMP_NUM_THREADS="1")
    if user_policy:
        env["OMP_WAIT_POLICY"] = user_policy
    return env


# ---------------------------------------------------------------------------------------------- at start
def test_the_wait_policy_follows_the_load_at_start_unless_the_user_chose_one():
    env = {}
    assert choose_wait_policy(env, busy=True) == "PASSIVE"
    assert env == {"OMP_WAIT_POLICY": "PASSIVE", "LAB_WAIT_POLICY": "PASSIVE"}  # marked as the lab's choice
    assert choose_wait_policy(env, busy=False) is None and env == {}  # re-made by a process started idle
    assert choose_wait_policy({}, busy=False) is None  # idle: the default, fast policy
    for chosen in ({"OMP_WAIT_POLICY": "ACTIVE"}, {"OMP_WAIT_POLICY": "passive"}, {"LAB_THREADS": "keep"}):
        for busy in (True, False):
            env = dict(chosen)
            choose_wait_policy(env, busy=busy)
            assert env == chosen


def test_the_load_counts_other_processes():
    load = lab_threads.machine_load()
    if load is None:
        pytest.skip("no /proc here: the lab leaves the threads alone")
    cpus = os.cpu_count() or 1
    assert load[1] == cpus
    with busy_machine():
        others = max(lab_threads.machine_load()[0] for _ in range(5))
    assert others >= cpus + 1  # every spinning process counted (and any other work on the machine)


@pytest.mark.parametrize("user_policy, expected", CHOICES)
def test_the_cli_started_on_a_busy_machine_loads_openmp_with_threads_that_sleep_while_they_wait(user_policy,
                                                                                                   expected):
    command = [sys.executable, "-m", "lab", "dynamics", "--experiment", "custom", "--group", "Z(2)", "--rep", "V",
               "--runs", "1", "--steps", "1", "--strategies", "nom", "--device", "cpu", "--no-save", "--json"]
    with busy_machine():
        proc = subprocess.run(command, env=environment(user_policy), cwd=str(ROOT), capture_output=True, text=True,
                              timeout=DEADLINE)
    assert proc.returncode == 0, proc.stderr[-2000:]
    check(proc.stderr, expected)


@pytest.mark.parametrize("user_policy, expected", CHOICES)
def test_a_job_worker_started_on_a_busy_machine_loads_openmp_with_threads_that_sleep_while_they_wait(
        user_policy, expected, monkeypatch, capfd):
    for k in CLEARED:
        monkeypatch.delenv(k, raising=False)
    for k, v in environment(user_policy, env={}).items():
        monkeypatch.setenv(k, v)
    cfg = DynamicsConfig(experiment="custom", group="Z(2)", rep="V", runs=1, steps=1, strategies=("nom",))
    with busy_machine():
        job = Job("dynamics", cfg, process=True, threads=1).start()  # the worker loads torch, then OpenMP, at once
        assert job.join(DEADLINE), "the job did not end"
    assert job.final["kind"] == "done", job.final
    check(capfd.readouterr().err, expected)  # the worker writes to this process's stderr


# ---------------------------------------------------------------------------------------------- while computing
def test_a_thread_fit_drops_at_once_and_gives_back_after_steady_readings():
    fit = ThreadFit(4)
    t = 0.0
    busy, idle = (6, 4), (0, 4)
    assert fit.step(t, busy, 4) == 1  # beside six runnable threads on four CPUs: one thread
    assert fit.step(t + CHECK_SECONDS / 2, idle, 1) is None  # read at most every CHECK_SECONDS
    t += CHECK_SECONDS
    for _ in range(RAISE_AFTER - 1):
        assert fit.step(t, idle, 1) is None  # one free reading is not enough (a blip)
        t += CHECK_SECONDS
    assert fit.step(t, idle, 1) == 4  # free for RAISE_AFTER readings in a row: back to the run's own count
    t += CHECK_SECONDS
    assert fit.step(t, (2, 4), 4) == 2  # two CPUs left free: two threads
    t += CHECK_SECONDS
    assert fit.step(t, (1, 4), 2) is None  # three free once: not yet
    t += CHECK_SECONDS
    assert fit.step(t, (3, 4), 2) == 1 and fit.free_readings == 0  # busier again: the free readings restart
    t += CHECK_SECONDS
    assert fit.step(t, idle, 3) is None and fit.base == 3  # the pool set by someone else: the new ceiling
    for _ in range(RAISE_AFTER + 1):
        t += CHECK_SECONDS
        assert fit.step(t, idle, 3) is None  # never above the ceiling, however idle
    assert fit.step(t + CHECK_SECONDS, None, 3) is None  # no reading: nothing changed


def _in_a_thread(fn):
    """``fn()`` on a fresh thread (the fit is per computing thread): its result, or its exception raised."""
    out = {}

    def target():
        try:
            out["value"] = fn()
        except BaseException as err:  # noqa: BLE001 - raised again in the test
            out["error"] = err

    t = threading.Thread(target=target)
    t.start()
    t.join(DEADLINE)
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_fit_threads_shrinks_and_restores_torchs_pool(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.delenv("LAB_THREADS", raising=False)
    clock, load = [0.0], [(5, 2)]

    def fit():
        return fit_threads(clock=lambda: clock[0], load=lambda: load[0])

    def run():
        torch.set_num_threads(2)
        seen = [fit(), torch.get_num_threads()]  # beside five runnable threads on two CPUs
        load[0] = (0, 2)
        for _ in range(RAISE_AFTER):
            clock[0] += CHECK_SECONDS
            fit()
        return seen + [torch.get_num_threads()]

    assert _in_a_thread(run) == [1, 1, 2]


def test_a_checkpoint_fits_the_threads_and_keep_leaves_them(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.delenv("LAB_THREADS", raising=False)
    monkeypatch.setattr(lab_threads, "machine_load", lambda: (8, 2))

    def with_control():
        torch.set_num_threads(2)
        Control().checkpoint()  # a run's checkpoint, on the thread that computes
        return torch.get_num_threads()

    def without_control():
        torch.set_num_threads(2)
        checkpoint(None)  # a run without a control (a script, a notebook)
        return torch.get_num_threads()

    assert _in_a_thread(with_control) == 1
    assert _in_a_thread(without_control) == 1
    monkeypatch.setenv("LAB_THREADS", "keep")
    assert _in_a_thread(without_control) == 2
