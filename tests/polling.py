"""Waiting for a pane or a job runner in headless tests: poll it until a condition holds (a hang guard)."""
from __future__ import annotations

import time

DEADLINE = 180  # seconds: a hang guard (the machine may be busy), never a speed requirement


def poll_until(target, until, timeout: float = DEADLINE) -> bool:
    """Call ``target.poll()`` (a pane or a ``JobRunner``) every 50 ms until ``until()``; False after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        target.poll()
        if until():
            return True
        time.sleep(0.05)
    return False


def poll_to_end(pane, timeout: float = DEADLINE) -> None:
    """Poll a job pane until its runner is no longer busy (its last messages handed over), then once more; fails
    if it is still busy after ``timeout``."""
    poll_until(pane, lambda: not pane.runner.busy, timeout)
    pane.poll()
    assert not pane.runner.busy, "the run did not end"
