"""Jobs whose records and clock a test controls: exact elapsed time, rate and ETA without sleeps or wall time."""
from __future__ import annotations

import queue

from polling import DEADLINE  # a hang guard, never a speed requirement


class FakeClock:
    def __init__(self, t: float = 100.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


class Scripted:
    """A thread job's function that posts exactly the records the test hands it, one at a time: the test
    moves the fake clock, then ``emit`` waits until the record was posted (no sleeps, no timing)."""

    def __init__(self):
        self.todo, self.posted = queue.Queue(), queue.Queue()

    def __call__(self, progress, control):
        while (record := self.todo.get(timeout=DEADLINE)) is not None:
            progress(record)
            self.posted.put(True)
        return "finished"

    def emit(self, record):
        self.todo.put(record)
        assert self.posted.get(timeout=DEADLINE)

    def end(self, job):
        self.todo.put(None)
        assert job.join(DEADLINE)
