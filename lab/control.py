"""Stop and pause for long work: one ``Control`` handed to every experiment's run function.

A run function calls ``control.checkpoint()`` at a fine grain (every step, mini-batch or progress report):
it returns at once while running, waits while paused, and raises ``Stopped`` once stop was asked for.
The two flags are ``threading.Event`` objects by default; ``Control(ctx=multiprocessing.get_context("spawn"))``
uses the context's events instead, so the same object works across a worker process.

>>> c = Control()
>>> c.checkpoint()          # running: returns at once
>>> c.stop()
>>> c.stopped
True
>>> c.checkpoint()
Traceback (most recent call last):
...
lab.control.Stopped: stopped
"""
from __future__ import annotations

import threading
import time

from .threads import fit_threads


class Stopped(Exception):
    """Raised by ``Control.checkpoint`` inside a run that was asked to stop."""

    def __init__(self, message: str = "stopped"):
        super().__init__(message)


class Control:
    """The stop and pause flags of one job (see the module docstring)."""

    POLL_SECONDS = 0.05

    def __init__(self, ctx=None):
        make = threading.Event if ctx is None else ctx.Event
        self._stop = make()
        self._pause = make()

    # ------------------------------------------------------------------ asked from outside
    def stop(self) -> None:
        self._stop.set()
        self._pause.clear()

    def pause(self) -> None:
        if not self._stop.is_set():
            self._pause.set()

    def resume(self) -> None:
        self._pause.clear()

    # ------------------------------------------------------------------ read inside the run
    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    @property
    def paused(self) -> bool:
        return self._pause.is_set()

    def wait_while_paused(self) -> bool:
        """Block while paused; True when the run may go on, False when it was stopped."""
        while self._pause.is_set() and not self._stop.is_set():
            time.sleep(self.POLL_SECONDS)
        return not self._stop.is_set()

    def checkpoint(self) -> None:
        """Return while running, wait while paused, raise ``Stopped`` once stopped.  Also fits the calling
        thread's torch pool to the machine's load (``lab.threads.fit_threads``: at most every half second)."""
        if not self.wait_while_paused():
            raise Stopped()
        fit_threads()


def checkpoint(control: Control | None) -> None:
    """``control.checkpoint()``; for runs without a control (scripts, tests) only the fit of the threads."""
    if control is not None:
        control.checkpoint()
    else:
        fit_threads()


def progress_record(done: int, total: int, message: str = "", partial: float | None = None) -> dict:
    """A ``progress`` record; ``partial`` (0..1, optional): how far the unit after ``done`` has got, for units
    that take long (a training step of minutes), so that progress lines move and ETAs update within it."""
    record = {"kind": "progress", "done": int(done), "total": int(total), "message": message}
    if partial is not None:
        record["partial"] = min(max(float(partial), 0.0), 1.0)
    return record


def median_seconds(step, repeats: int = 2) -> float:
    """Seconds one call of ``step()`` takes: the median of ``repeats`` calls after one warm-up (what a run weights
    its models' steps by, ``progress_weights``).

    >>> median_seconds(lambda: None) < 0.1
    True
    """
    import statistics

    times = []
    for i in range(1 + max(1, repeats)):
        t0 = time.perf_counter()
        step()
        if i:
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def progress_weights(seconds: dict) -> dict:
    """Progress units per step of each model, from its step's ``seconds``: its time over the cheapest's, times
    10, rounded, at least 1 -- so that progress counts work, and an ETA holds from the first, cheap model on.

    >>> progress_weights({"mlp": 0.002, "cnn": 0.0034, "gcnn": 0.02})
    {'mlp': 10, 'cnn': 17, 'gcnn': 100}
    """
    low = min(seconds.values())
    return {k: max(1, round(10 * t / low)) if low > 0 else 1 for k, t in seconds.items()}
