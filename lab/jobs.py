"""One long-running experiment as a job: a worker thread or a worker process, stop/pause, one message stream.

A ``Job`` runs ``family.run(config, progress=..., control=...)`` (see ``lab.experiments.family``) away from the
caller: in a daemon thread, or with ``process=True`` in a worker process started with the ``spawn`` method
(only plain data crosses: the family's name, ``config.to_dict()`` and the records, through one queue; the
child rebuilds the config with ``ConfigCls.from_dict``).  A computation in its own process holds its own GIL,
so the caller's event loop stays free to draw; a process can also be ended when it does not stop in time.

The records the run sends arrive in order through ``drain()`` (non-blocking), followed by one final message:

* ``{"kind": "done", "status": "finished"|"stopped", "summary": ..., "saved": path or None, "note": text}``;
  the worker saved the result itself (``family.save(result, save_dir)``, from its own copy of the result)
  when a ``save_dir`` was given;
* ``{"kind": "failed", "error": one line}``: a ``LabError``'s text as is, any other exception as
  ``"unexpected TypeName: message"`` (the traceback goes to the ``lab.jobs`` logger at DEBUG level, never to
  the user or the server log).

``state`` is one of idle / building / running / paused / stopped / failed / done; ``elapsed``, ``rate``
(progress units per second, e.g. steps/s) and ``eta`` are read from the ``"progress"`` records and exclude
the time spent paused.  Every time is read from the job's ``clock`` (``time.monotonic`` unless one is given:
tests pass a fake clock and check these numbers exactly).  No Panel here: the dashboard's
``lab.dashboard.runner.JobRunner`` drives a Job from a periodic callback; scripts call ``drain()`` and ``join()``
directly.

>>> from lab.dynamics.family import DynamicsConfig
>>> job = Job("dynamics", DynamicsConfig(experiment="custom", runs=1, steps=2, strategies=("nom",)))
>>> job.start().join(120)
True
>>> kinds = [m["kind"] for m in job.drain()]
>>> kinds[-1], job.state, "records" in kinds
('done', 'done', True)
"""
from __future__ import annotations

import logging
import multiprocessing
import queue as queue_module
import threading
import time
from collections import deque

from .control import Control, Stopped
from .errors import LabError
from .threads import choose_wait_policy

log = logging.getLogger(__name__)

STATES = ("idle", "building", "running", "paused", "stopped", "failed", "done")
FINAL = ("done", "failed")  # the kinds of the last message of every job
GRACE_SECONDS = 5.0  # process mode: how long a stopped worker may take before it is ended
#: the evidence an ETA needs: this many active seconds of the run (after its build) and this many of its units (or
#: this share of them, when that is fewer); before that the rate is mostly the first steps' warm-up, and an ETA from
#: it misleads ("ETA 14:27" for a 70 s run)
ETA_SECONDS, ETA_UNITS, ETA_SHARE = 2.0, 5, 0.02


def error_text(err: BaseException) -> str:
    """The one line a user sees for an exception: a ``LabError``'s text as is, else "unexpected Type: msg"."""
    if isinstance(err, LabError):
        return str(err)
    first = (str(err).strip().splitlines() or [""])[0]
    return f"unexpected {type(err).__name__}: {first}" if first else f"unexpected {type(err).__name__}"


def _execute(family, config, save_dir, post, control, keep_result: bool) -> None:
    """Run, summarise and save one job in the current thread; every outcome ends with one final message."""
    try:
        result = family.run(config, progress=post, control=control)
    except Stopped:  # a run that let Stopped escape: nothing to save
        post({"kind": "done", "status": "stopped", "summary": None, "saved": None,
              "note": "stopped before it produced a result"})
        return
    except Exception as err:
        if not isinstance(err, LabError):
            log.debug("job %s failed", family.name, exc_info=True)
        post({"kind": "failed", "error": error_text(err)})
        return
    status = getattr(result, "status", "finished")
    try:
        summary = family.summary(result) if family.summary is not None else None
        saved = str(family.save(result, save_dir)) if save_dir is not None and family.save is not None else None
    except Exception as err:
        if not isinstance(err, LabError):
            log.debug("job %s: saving failed", family.name, exc_info=True)
        post({"kind": "failed", "error": f"the run {status} but could not be saved: {error_text(err)}"})
        return
    final = {"kind": "done", "status": status, "summary": summary, "saved": saved, "note": ""}
    if keep_result:
        final["result"] = result
    post(final)


def _child_main(family_name: str, config: dict, save_dir, out, control, threads=None, keep_result=False) -> None:
    """The worker process: rebuild the config from plain data, run, save, post everything to ``out``."""
    try:
        if threads is not None:  # this process is the job's own: a process-wide setting is its to make
            import torch

            torch.set_num_threads(threads)
        from .experiments import FAMILIES

        family = FAMILIES[family_name]
        cfg = family.config.from_dict(config)
    except Exception as err:
        if not isinstance(err, LabError):
            log.debug("job %s: the worker process could not start", family_name, exc_info=True)
        out.put({"kind": "failed", "error": error_text(err)})
        return
    _execute(family, cfg, save_dir, out.put, control, keep_result=keep_result)


class _FunctionFamily:
    """Adapts ``fn(progress, control) -> result`` to the family protocol (thread jobs only: ``Job.function``)."""

    config = None
    summary = None
    save = None

    def __init__(self, fn, name: str):
        self.fn, self.name = fn, name

    def run(self, config, progress=None, control=None):
        return self.fn(progress, control)


class Job:
    """One run of an experiment family in a worker thread or process (see the module docstring).

    ``family``: a ``Family`` or its name in ``lab.experiments.FAMILIES`` (process jobs need a registered one).
    ``config``: the family's config (validated here, so bad settings raise ``ConfigError`` at once).
    ``save_dir``: where the worker saves the result (None: not saved).  ``process``: run in a spawned process.
    ``threads``: process jobs only: the worker's torch compute threads (None: torch's default, one per core).
    Small models train several times faster on one thread than on threads that contend for busy cores.  The
    worker's threads fit the machine's load (``lab.threads``: PASSIVE waits when it starts busy, fewer threads
    while other processes want the cores), so beside busy processes a job slows to its fair share of the cores
    rather than spinning for them, and an idle machine runs it at full speed.
    ``keep_result``: process jobs only: send the family's result object back (pickled between the lab's own
    processes) in the final message's ``"result"``, as thread jobs always do.
    ``clock``: the seconds elapsed, rate and ETA are measured with (monotonic; a fake one in tests).
    """

    def __init__(self, family, config, *, save_dir=None, process: bool = False, grace: float = GRACE_SECONDS,
                 name: str | None = None, threads: int | None = None, keep_result: bool = False,
                 clock=time.monotonic):
        if isinstance(family, str):
            from .experiments import FAMILIES

            if family not in FAMILIES:
                raise LabError(f"unknown experiment family {family!r}: choose one of {', '.join(FAMILIES)}")
            family = FAMILIES[family]
        if process:
            from .experiments import FAMILIES

            if FAMILIES.get(family.name) is not family:
                raise ValueError(f"a process job needs a family registered in FAMILIES, not {family.name!r}")
        self.family = family
        self.config = config.validate() if config is not None else None
        self.save_dir = None if save_dir is None else str(save_dir)
        self.process = bool(process)
        self.threads = threads
        self.keep_result = keep_result
        self.grace = grace
        self.name = name or family.name
        self.control: Control | None = None
        self.result = None  # thread jobs: the family's result object, once done
        self.final: dict | None = None  # the final message, once posted
        self._lock = threading.Lock()
        self._out: deque = deque()
        self._ended = threading.Event()
        self._state = "idle"
        self._worker: threading.Thread | None = None
        self._proc = None
        self._relay: threading.Thread | None = None
        # time bookkeeping (``clock`` seconds); paused time is excluded from elapsed, rate and ETA
        self.clock = clock
        self._t_start = self._t_end = None
        self._paused_total = 0.0
        self._pause_since = None
        self._stop_at = None  # time.monotonic() when stop was asked (the process's grace period)
        self._run0 = None  # (active seconds, units done) when the run left "building"
        self._last = None  # (active seconds, units done) at the latest progress record
        self.done = 0
        self.total = 0
        self.message = ""
        self._rate = 0.0

    @classmethod
    def function(cls, fn, name: str = "job", clock=time.monotonic) -> "Job":
        """A thread job around ``fn(progress, control) -> result`` (for short jobs that are not a family, e.g. a
        basis solve superseded by the next one); its final message carries ``"result"``."""
        return cls(_FunctionFamily(fn, name), None, name=name, clock=clock)

    # ------------------------------------------------------------------ starting and steering
    def start(self) -> "Job":
        if self._state != "idle":
            raise RuntimeError("a Job runs once; make a new one")
        self._t_start = self.clock()
        self._state = "building"
        if self.process:
            # the worker's OpenMP wait policy follows the machine's load now (lab/threads.py): it inherits this
            # environment, and its torch loads OpenMP before its own ``import lab`` when the caller's script imports torch
            choose_wait_policy()
            ctx = multiprocessing.get_context("spawn")
            self.control = Control(ctx=ctx)
            self._mpq = ctx.Queue()
            self._proc = ctx.Process(
                target=_child_main, name=f"lab-job-{self.name}", daemon=True,
                args=(self.family.name, self.config.to_dict(), self.save_dir, self._mpq, self.control, self.threads,
                      self.keep_result))
            self._proc.start()
            self._relay = threading.Thread(target=self._relay_loop, daemon=True, name=f"lab-job-{self.name}-relay")
            self._relay.start()
        else:
            self.control = Control()
            self._worker = threading.Thread(target=self._thread_main, daemon=True, name=f"lab-job-{self.name}")
            self._worker.start()
        return self

    def stop(self) -> None:
        """Ask the run to stop at its next checkpoint (a process that has not ended ``grace`` seconds later is
        ended); returns at once (``join`` waits)."""
        if self.control is None or self._ended.is_set():
            return
        with self._lock:
            self._unpause(self.clock())
            if self._stop_at is None:
                self._stop_at = time.monotonic()
        self.control.stop()

    def cancel(self) -> None:
        """Stop now: a process job's worker is ended at once (nothing saved), a thread job stops at its next
        checkpoint (threads cannot be ended: run work that may take long in a process job)."""
        self.grace = 0.0
        self.stop()

    def pause(self) -> None:
        if self.control is None or self._ended.is_set() or self.control.stopped:
            return
        with self._lock:
            if self._pause_since is None:
                self._pause_since = self.clock()
        self.control.pause()

    def resume(self) -> None:
        if self.control is None:
            return
        self.control.resume()
        with self._lock:
            self._unpause(self.clock())

    def _unpause(self, now: float) -> None:
        if self._pause_since is not None:
            self._paused_total += now - self._pause_since
            self._pause_since = None

    def join(self, timeout: float | None = None) -> bool:
        """Wait until the final message was posted and the worker thread or process has exited (within
        ``timeout`` seconds); True when the job has ended."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self._ended.wait(timeout):
            return False
        for t in (self._worker, self._relay):  # the relay thread exits once the process has
            if t is not None and t is not threading.current_thread():
                t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return True

    # ------------------------------------------------------------------ reading
    @property
    def running(self) -> bool:
        """Started and not yet ended (building, running or paused)."""
        return self._state != "idle" and not self._ended.is_set()

    @property
    def paused(self) -> bool:
        return self._pause_since is not None and self.running

    @property
    def state(self) -> str:
        s = self._state
        return "paused" if s in ("building", "running") and self._pause_since is not None else s

    @property
    def stopping(self) -> bool:
        return self._stop_at is not None and self.running

    @property
    def pending(self) -> bool:
        """Messages posted and not drained yet."""
        return bool(self._out)

    def drain(self) -> list[dict]:
        """Every message posted since the last call, in order (non-blocking)."""
        out = []
        with self._lock:
            while self._out:
                out.append(self._out.popleft())
        return out

    def _active(self, now: float) -> float:
        """Seconds since start, less the time paused."""
        if self._t_start is None:
            return 0.0
        paused = self._paused_total + (now - self._pause_since if self._pause_since is not None else 0.0)
        return max(0.0, now - self._t_start - paused)

    @property
    def elapsed(self) -> float:
        """Seconds since start, paused time excluded (frozen once the job ended)."""
        with self._lock:
            return self._active(self._t_end if self._t_end is not None else self.clock())

    @property
    def rate(self) -> float:
        """Progress units (steps, tasks, …) per second since the run left "building", paused time excluded (a
        record's ``partial`` counts as that much of the next unit)."""
        return self._rate

    @property
    def eta(self) -> float | None:
        """Active seconds left at the current rate (None when unknown or ended): what the latest progress record
        left, less the active time since it arrived (so it counts down between records, and stands still while
        the job is paused); None until the run has gone ``ETA_SECONDS`` and ``ETA_UNITS`` units (or ``ETA_SHARE``
        of them, when that is fewer)."""
        with self._lock:
            if not self.running or self._rate <= 0 or not self.total or self._last is None or self._run0 is None:
                return None
            active, units = self._last
            if active - self._run0[0] < ETA_SECONDS or units - self._run0[1] < min(ETA_UNITS,
                                                                                  ETA_SHARE * self.total):
                return None
            return max(0.0, (self.total - units) / self._rate - (self._active(self.clock()) - active))

    # ------------------------------------------------------------------ the message stream
    def _post(self, msg: dict) -> None:
        """Called from the worker thread (thread jobs) or the relay thread (process jobs)."""
        now = self.clock()
        kind = msg.get("kind")
        with self._lock:
            if self._ended.is_set():
                return  # nothing after the final message
            units = None
            if kind == "progress":
                self.done, self.total = int(msg.get("done", 0)), int(msg.get("total", 0))
                self.message = msg.get("message", "")
                units = min(self.done + float(msg.get("partial", 0.0) or 0.0), max(self.total, self.done))
            if self._state == "building" and (kind != "progress" or self.done > 0) and kind not in FINAL:
                self._state = "running"
                self._run0 = (self._active(now), self.done if units is None else units)
            if units is not None:
                self._last = (self._active(now), units)
                if self._run0 is not None:
                    dt = self._last[0] - self._run0[0]
                    if dt > 0 and units > self._run0[1]:
                        self._rate = (units - self._run0[1]) / dt
            if kind in FINAL:
                self.final = {k: v for k, v in msg.items() if k != "result"}
                self.result = msg.get("result")
                self._unpause(now)
                self._t_end = now
                self._state = ("failed" if kind == "failed" else
                               "stopped" if msg.get("status") == "stopped" else "done")
            self._out.append(msg)
            if kind in FINAL:
                self._ended.set()

    def _thread_main(self) -> None:
        try:
            _execute(self.family, self.config, self.save_dir, self._post, self.control, keep_result=True)
        except BaseException as err:  # a failure in _post itself: still end the job
            log.debug("job %s: the worker thread failed", self.name, exc_info=True)
            self._post({"kind": "failed", "error": error_text(err)})

    def _relay_loop(self) -> None:
        """Process jobs: move records from the process's queue to ``drain()``, end a worker that does not stop
        within the grace period, and turn a worker that died without a final message into a final message."""
        proc, mpq = self._proc, self._mpq
        final = None
        while final is None:
            try:
                msg = mpq.get(timeout=0.1)
            except queue_module.Empty:
                msg = None
            except (EOFError, OSError, ValueError) as err:  # a broken pipe: the worker is gone
                log.warning("job %s: the worker's queue broke: %s", self.name, err)
                msg = None
                proc.join(1.0)
            if msg is not None:
                self._post(msg)
                if msg.get("kind") in FINAL:
                    final = msg
                    break
            elif not proc.is_alive():
                for m in self._leftover(mpq):  # what it sent just before it exited
                    self._post(m)
                    if m.get("kind") in FINAL:
                        final = m
                if final is None:
                    final = ({"kind": "done", "status": "stopped", "summary": None, "saved": None,
                              "note": "the worker ended before saving"} if self._stop_at is not None else
                             {"kind": "failed",
                              "error": f"the worker process ended unexpectedly (exit code {proc.exitcode})"})
                    self._post(final)
                break
            if self._stop_at is not None and time.monotonic() - self._stop_at > self.grace:
                self._kill(proc)
                final = {"kind": "done", "status": "stopped", "summary": None, "saved": None,
                         "note": f"the worker did not stop within {self.grace:g} s and was ended; nothing was saved"}
                self._post(final)
        proc.join(self.grace)
        if proc.is_alive():
            self._kill(proc)
        try:
            mpq.close()
            mpq.cancel_join_thread()
        except (OSError, ValueError):
            pass

    @staticmethod
    def _leftover(mpq) -> list[dict]:
        out = []
        while True:
            try:
                out.append(mpq.get(timeout=0.05))
            except (queue_module.Empty, EOFError, OSError, ValueError):
                return out

    def _kill(self, proc) -> None:
        log.warning("job %s: the worker process did not stop within %g s; ending it", self.name, self.grace)
        proc.terminate()
        proc.join(2.0)
        if proc.is_alive():
            proc.kill()
            proc.join(2.0)

    def __repr__(self) -> str:
        mode = "process" if self.process else "thread"
        return f"<Job {self.name} ({mode}) {self.state}>"
