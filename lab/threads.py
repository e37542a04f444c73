"""How the lab's compute threads wait: asleep, not spinning, so that a busy machine slows a run in proportion.

torch's CPU pool is OpenMP (libgomp in the pip wheels, Intel's libiomp in some conda builds).  By default an
OpenMP thread that waits for the others at the end of a parallel region spins for a while (libgomp: about
300,000 rounds, milliseconds; libiomp: 200 ms) before it sleeps.  On an idle machine that saves a wake-up; beside
other busy processes it burns the time slices the thread that is late needs: measured on 2 cores beside four busy
processes, ``lab dynamics --experiment perm --runs 5 --steps 20`` took 84.5 s against 8.9 s idle (user time
12 -> 54 s), and 23-24 s, its fair share, with ``OMP_WAIT_POLICY=PASSIVE`` (``bench/contention.py``).

``sleep_while_waiting()`` sets ``OMP_WAIT_POLICY=PASSIVE`` in the environment unless the user chose a policy
(any value of ``OMP_WAIT_POLICY`` is kept) or ``LAB_THREADS=keep`` (leave every pool alone).  OpenMP reads the
variable once, when its library loads (with torch's first import), so ``import lab`` does this before anything
imports torch (``lab/__init__.py``); processes started afterwards (the CLI's, a ``lab.jobs.Job``'s worker
process, ``panel serve``'s) inherit it.  In a process that imported torch before ``lab`` it only reaches those
children.

>>> env = {}
>>> sleep_while_waiting(env)
'PASSIVE'
>>> sleep_while_waiting({"OMP_WAIT_POLICY": "ACTIVE"}), sleep_while_waiting({"LAB_THREADS": "keep"})
('ACTIVE', None)
"""
from __future__ import annotations

import os

WAIT_POLICY = "PASSIVE"


def sleep_while_waiting(environ=None) -> str | None:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` in ``environ`` (default ``os.environ``) unless a policy is set or
    ``LAB_THREADS=keep``; returns the policy now in ``environ`` (None: unset)."""
    environ = os.environ if environ is None else environ
    if environ.get("LAB_THREADS") != "keep" and not environ.get("OMP_WAIT_POLICY"):
        environ["OMP_WAIT_POLICY"] = WAIT_POLICY
    return environ.get("OMP_WAIT_POLICY") or None
