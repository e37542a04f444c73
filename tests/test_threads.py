"""The lab's OpenMP threads sleep while they wait (``OMP_WAIT_POLICY=PASSIVE``, ``lab/threads.py``) unless the user
chose otherwise: checked where OpenMP itself says so, never by timing.

OpenMP prints the settings it loaded with when ``OMP_DISPLAY_ENV=verbose``: libgomp (torch's pip wheels) shows
``GOMP_SPINCOUNT = '0'`` for PASSIVE, ``'300000'`` when no policy is set and ``'30000000000'`` for ACTIVE.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lab.experiments.dynamics import DynamicsConfig
from lab.jobs import Job
from lab.threads import sleep_while_waiting

sys.path.insert(0, str(Path(__file__).parent))
from polling import DEADLINE  # noqa: E402  (a hang guard, never a speed requirement)

ROOT = Path(__file__).resolve().parents[1]
SPINS = {"PASSIVE": "0", "ACTIVE": "30000000000"}
CHOICES = [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")]  # (the user's OMP_WAIT_POLICY, the policy OpenMP must load)


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
    env = {k: v for k, v in (os.environ if env is None else env).items()
           if k not in ("OMP_WAIT_POLICY", "LAB_THREADS", "GOMP_SPINCOUNT")}
    env.update(OMP_DISPLAY_ENV="verbose", OMP_NUM_THREADS="1")
    if user_policy:
        env["OMP_WAIT_POLICY"] = user_policy
    return env


def test_the_policy_is_set_unless_the_user_chose_one():
    env = {}
    assert sleep_while_waiting(env) == "PASSIVE" and env == {"OMP_WAIT_POLICY": "PASSIVE"}
    for chosen in ({"OMP_WAIT_POLICY": "ACTIVE"}, {"OMP_WAIT_POLICY": "passive"}, {"LAB_THREADS": "keep"}):
        env = dict(chosen)
        sleep_while_waiting(env)
        assert env == chosen


@pytest.mark.parametrize("user_policy, expected", CHOICES)
def test_the_cli_loads_openmp_with_threads_that_sleep_while_they_wait(user_policy, expected):
    command = [sys.executable, "-m", "lab", "dynamics", "--experiment", "custom", "--group", "Z(2)", "--rep", "V",
               "--runs", "1", "--steps", "1", "--strategies", "nom", "--device", "cpu", "--no-save", "--json"]
    proc = subprocess.run(command, env=environment(user_policy), cwd=str(ROOT), capture_output=True, text=True,
                          timeout=DEADLINE)
    assert proc.returncode == 0, proc.stderr[-2000:]
    check(proc.stderr, expected)


@pytest.mark.parametrize("user_policy, expected", CHOICES)
def test_a_job_worker_process_loads_openmp_with_threads_that_sleep_while_they_wait(user_policy, expected,
                                                                                    monkeypatch, capfd):
    for k in ("OMP_WAIT_POLICY", "LAB_THREADS", "GOMP_SPINCOUNT"):
        monkeypatch.delenv(k, raising=False)
    for k, v in environment(user_policy, env={}).items():
        monkeypatch.setenv(k, v)
    cfg = DynamicsConfig(experiment="custom", group="Z(2)", rep="V", runs=1, steps=1, strategies=("nom",))
    job = Job("dynamics", cfg, process=True, threads=1).start()  # the worker loads torch, then OpenMP, at once
    assert job.join(DEADLINE), "the job did not end"
    assert job.final["kind"] == "done", job.final
    check(capfd.readouterr().err, expected)  # the worker writes to this process's stderr
