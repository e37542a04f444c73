"""Compute threads that take their fair share of a busy machine and the whole of an idle one.

torch's CPU pool is OpenMP (libgomp in the pip wheels, Intel's libiomp in some conda builds).  An OpenMP thread
that waits for the others at the end of a parallel region spins for a while (libgomp: about 300,000 rounds,
milliseconds) before it sleeps.  On an idle machine that saves a wake-up per region; beside other busy processes it
burns the time slices the late thread needs.  Measured on 2 cores (``bench/contention.py``, ``lab dynamics
--experiment perm --runs 5 --steps 20``):

==========================  =======  ==================  ===========================================
setting                     idle     beside 4 busy        why
==========================  =======  ==================  ===========================================
libgomp default (spin)      8.4 s    81 s (9.7x)          the waiting thread spins on a core another needs
``OMP_WAIT_POLICY=PASSIVE`` 10.2 s   26.5 s               every region wakes its threads: +21 % idle
one thread                  10.5 s   28.3 s               no team, no wait; idle loses the second core
==========================  =======  ==================  ===========================================

No fixed setting is both as fast as today idle and fair when contended, so the lab adapts to the load it sees:

* **At start** (``import lab``, before torch loads OpenMP, which reads the policy once):
  ``choose_wait_policy()`` sets ``OMP_WAIT_POLICY=PASSIVE`` only when other processes already want the cores
  (``machine_load()``); an idle machine keeps the default, fast policy.
* **While a run computes**: ``fit_threads()`` is called at every ``Control`` checkpoint (each step or mini-batch of
  every family, on the thread that computes).  At most every ``CHECK_SECONDS`` it reads the machine's runnable
  count and drops torch's pool to the cores the other processes leave free (one thread when none: a single thread
  waits for nobody, so it never spins), and gives the threads back once the cores have been free for
  ``RAISE_AFTER`` readings in a row (so a blip does not make it flap).  It never goes above the count the
  run started with (``torch.set_num_threads``, a job's ``threads``, ``OMP_NUM_THREADS``).

The load is the kernel's count of runnable threads (``/proc/loadavg``), less this process's own running threads
(``/proc/self/task/*/stat``), against the machine's CPUs.  Where ``/proc`` is missing (macOS, Windows) nothing is
changed.  ``LAB_THREADS=keep`` leaves every pool and policy alone; a policy the user set (``OMP_WAIT_POLICY``) is
kept.  The policy a lab process set is marked (``LAB_WAIT_POLICY``), so that a process started later (a job's worker,
``panel serve``'s) decides for itself from the load at its own start.

>>> env = {}
>>> choose_wait_policy(env, busy=True), env["OMP_WAIT_POLICY"]
('PASSIVE', 'PASSIVE')
>>> choose_wait_policy(env, busy=False), "OMP_WAIT_POLICY" in env    # the lab's own choice is re-made
(None, False)
>>> choose_wait_policy({"OMP_WAIT_POLICY": "ACTIVE"}, busy=True), choose_wait_policy({"LAB_THREADS": "keep"}, busy=True)
('ACTIVE', None)
"""
from __future__ import annotations

import os
import sys
import threading
import time

WAIT_POLICY = "PASSIVE"
MARK = "LAB_WAIT_POLICY"  # set beside OMP_WAIT_POLICY when the lab chose it (not the user)
CHECK_SECONDS = 0.5  # fit_threads reads the load at most this often
RAISE_AFTER = 2  # readings in a row with free cores before threads are given back


# ---------------------------------------------------------------------------------------------- the load
def _runnable() -> int | None:
    """Runnable threads on the machine now (the kernel's count, ours included); None: not readable."""
    try:
        with open("/proc/loadavg") as f:
            return int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None


def _own_running() -> int:
    """This process's threads running or runnable now (state ``R``), at least the one asking."""
    n = 0
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return 1
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:  # the thread ended meanwhile
            continue
        if stat[stat.rfind(")") + 2: stat.rfind(")") + 3] == "R":
            n += 1
    return max(n, 1)


def machine_load() -> tuple[int, int] | None:
    """(runnable threads of other processes, the machine's CPUs) now; None where ``/proc`` cannot tell."""
    runnable = _runnable()
    if runnable is None:
        return None
    return max(0, runnable - _own_running()), os.cpu_count() or 1


# ---------------------------------------------------------------------------------------------- at start
def choose_wait_policy(environ=None, busy: bool | None = None) -> str | None:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` in ``environ`` (default ``os.environ``) when the machine is ``busy`` (None:
    measured, ``machine_load``: another process runnable), and unset a policy the lab set before when it is not;
    a policy the user set and ``LAB_THREADS=keep`` are left alone.  Returns the policy now in ``environ``."""
    environ = os.environ if environ is None else environ
    chosen_by_lab = environ.get(MARK) and environ.get("OMP_WAIT_POLICY") == environ.get(MARK)
    if environ.get("LAB_THREADS") == "keep" or (environ.get("OMP_WAIT_POLICY") and not chosen_by_lab):
        return environ.get("OMP_WAIT_POLICY") or None
    if busy is None:
        load = machine_load()
        busy = load is not None and load[0] > 0
    if busy:
        environ["OMP_WAIT_POLICY"] = environ[MARK] = WAIT_POLICY
    else:
        environ.pop("OMP_WAIT_POLICY", None)
        environ.pop(MARK, None)
    return environ.get("OMP_WAIT_POLICY") or None


sleep_while_waiting = choose_wait_policy  # the name lab/jobs.py and older callers use


# ---------------------------------------------------------------------------------------------- while computing
class ThreadFit:
    """One computing thread's adaptation (see the module docstring): ``step(now, load)`` returns the thread count
    to set, or None to leave it.  ``base``: the count the run started with (the ceiling)."""

    def __init__(self, base: int):
        self.base = self.current = max(1, int(base))
        self.last = -float("inf")
        self.free_readings = 0

    def step(self, now: float, load: tuple[int, int] | None, current: int) -> int | None:
        if current != self.current:  # someone else set the pool: that is the new ceiling
            self.base = self.current = max(1, current)
            self.free_readings = 0
        if now - self.last < CHECK_SECONDS or load is None:
            return None
        self.last = now
        others, cpus = load
        fits = min(self.base, max(1, cpus - others))
        if fits < self.current:
            self.free_readings = 0
            self.current = fits
            return fits
        if fits > self.current:
            self.free_readings += 1
            if self.free_readings >= RAISE_AFTER:
                self.free_readings = 0
                self.current = fits
                return fits
            return None
        self.free_readings = 0
        return None


_local = threading.local()


def fit_threads(clock=time.monotonic, load=None) -> int | None:
    """Fit torch's pool of the calling thread to the cores other processes leave free (at most every
    ``CHECK_SECONDS``); returns the count set, or None when nothing changed.  A no-op until torch is imported, with
    ``LAB_THREADS=keep`` and where the load cannot be read.  Cheap enough for every checkpoint."""
    torch = sys.modules.get("torch")
    if torch is None or os.environ.get("LAB_THREADS") == "keep":
        return None
    now = clock()
    fit = getattr(_local, "fit", None)
    if fit is not None and now - fit.last < CHECK_SECONDS:
        return None
    current = torch.get_num_threads()
    if fit is None:
        fit = _local.fit = ThreadFit(current)
    if fit.base == 1 and current == 1:
        return None  # one thread: nothing to fit (until the pool is changed)
    n = fit.step(now, (load or machine_load)(), current)
    if n is not None:
        torch.set_num_threads(n)
    return n


class fixed_threads:
    """Within this block torch's thread pool stays at the count it has (``fit_threads`` adapts nothing, as under
    ``LAB_THREADS=keep``): a float sum split over another number of threads rounds differently, so a measurement
    that must give the same numbers for the same seed (``lab reproduce``) cannot let the load choose its threads.

    >>> before = os.environ.get("LAB_THREADS")
    >>> with fixed_threads():
    ...     os.environ["LAB_THREADS"]
    'keep'
    >>> os.environ.get("LAB_THREADS") == before
    True
    """

    def __enter__(self):
        self._before = os.environ.get("LAB_THREADS")
        os.environ["LAB_THREADS"] = "keep"
        return self

    def __exit__(self, *exc):
        if self._before is None:
            os.environ.pop("LAB_THREADS", None)
        else:
            os.environ["LAB_THREADS"] = self._before
        return False


class one_thread:
    """Within this block torch computes on one thread (its count restored after): small solves that must give the
    same numbers whatever the machine's load (a different thread count sums in a different order).

    >>> import torch
    >>> before = torch.get_num_threads()
    >>> with one_thread():
    ...     torch.get_num_threads()
    1
    >>> torch.get_num_threads() == before
    True
    """

    def __enter__(self):
        import torch

        self._before = torch.get_num_threads()
        torch.set_num_threads(1)
        return self

    def __exit__(self, *exc):
        import torch

        torch.set_num_threads(self._before)
        return False
