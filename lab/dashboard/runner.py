"""The dashboard's side of a ``lab.jobs.Job``: one periodic callback, the buttons, the status line.

A pane owns one ``JobRunner`` (nothing here is module-level, so sessions never share a job).  While a job
runs the runner

* drains the job's messages from ONE periodic callback on the session's event loop and hands each to the
  pane's ``on_message`` (the pane only draws what the records carry; a drawing failure becomes an inline
  message, never a traceback);
* disables Start and every widget in ``lock`` (Load and every control that would change the running config),
  enables Pause/Resume and Stop, and restores them when the job ends;
* writes the status line (``status_line``): state (idle / building / training / paused / stopped / failed /
  done; the pane names its running state, e.g. "training"), the job's progress message, the rate, the time
  elapsed and the ETA (paused time excluded), then the pane's own ``detail()`` text;
* stops the job when the browser session ends (``pn.state.on_session_destroyed``);
* fails like every dashboard callback (``lab.dashboard.guard``): whatever raises in a button, the poll or the
  drawing becomes the inline message, the traceback goes to the log at DEBUG level, and ``settle`` puts the
  buttons, the locked settings and the status line back in line with the job (idle when none runs).

Outside a server (scripts, tests, benchmarks) there is no periodic callback: call ``poll()`` yourself.
"""
from __future__ import annotations

import logging

import panel as pn

from ..jobs import Job
from .guard import guarded, report

log = logging.getLogger(__name__)

PERIOD_MS = 200  # the drain-and-draw period: at most 5 frames a second
#: torch compute threads of a job's worker process: one per session's job leaves the other cores to the server
#: and the other sessions (small models also train several times faster on one thread than on contending ones)
WORKER_THREADS = 1


def duration(seconds: float | None) -> str:
    """``12.3 s``, ``4:05``, ``1:02:03``."""
    if seconds is None:
        return "?"
    if seconds < 60:
        return f"{seconds:.1f} s"
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def state_word(job: Job | None, verb: str = "training", build: str = "building") -> str:
    """The state a user reads: idle / ``build`` (the job's "building") / ``verb`` (its "running") / paused /
    stopped / failed / done."""
    if job is None:
        return "idle"
    state = job.state
    return verb if state == "running" else build if state == "building" else state


def status_line(job: Job | None, verb: str = "training", unit: str | None = "steps", build: str = "building",
                finishing: bool = False) -> str:
    """``**training** · step 12/60 · 3.1 steps/s · 4.0 s elapsed · ETA 15.2 s``: the state, the job's progress
    message (or done/total), the rate (``unit`` None: none shown, e.g. for a solve's fractions), the time
    elapsed and the ETA, all with paused time excluded; a paused job says its ETA holds once resumed, an ended
    one shows its outcome, its note and where it was saved.  ``build``: the word for the state before the
    first unit is done (a solve, whose first record already says what it solves, is "solving" from the start).
    ``finishing``: the job has ended but the pane has not drawn its final message yet (the buttons are still
    those of a running job): "finishing", never an outcome the page does not show yet."""
    if job is None:
        return "**idle**"
    if finishing:
        return " · ".join(["**finishing**", *([job.message] if job.message else []), f"{duration(job.elapsed)} elapsed"])
    parts = [f"**{state_word(job, verb, build)}**"]
    final = job.final or {}
    if final.get("kind") == "done" and final.get("status") not in (None, "stopped", "finished"):
        parts.append(str(final["status"]))
    elif final.get("status") == "finished":
        parts.append("finished")
    if job.running or job.done > 0:  # an ended job's message from before its first step ("building …") is stale
        if job.message:
            parts.append(job.message)
        elif job.total and unit:
            parts.append(f"{job.done}/{job.total}")
        if job.total and not unit:  # fractions of a whole (a solve): a percentage
            parts.append(f"{100 * job.done / job.total:.0f}%")
    if job.rate > 0 and unit:
        parts.append(f"{job.rate:.3g} {unit}/s")
    parts.append(f"{duration(job.elapsed)} elapsed")
    eta = job.eta if job.running else None
    if eta is not None and not job.stopping:
        if eta <= 0.0 and not job.paused:  # the estimate ran out and the job goes on: say so, not "ETA 0.0 s"
            parts.append("longer than estimated")
        elif eta < 0.05:  # a moment left (a fast job's last steps): not yet longer than estimated
            parts.append("ETA < 0.1 s" + (" once resumed" if job.paused else ""))
        else:
            parts.append(f"ETA {duration(eta)}" + (" once resumed" if job.paused else ""))
    if job.stopping:
        parts.append("stopping …")
    text = " · ".join(parts)
    if final.get("note"):
        text += f"  \n{final['note']}"
    if final.get("saved"):
        text += f"  \nsaved to `{final['saved']}`"
    return text


def _in_session() -> bool:
    doc = pn.state.curdoc
    return doc is not None and doc.session_context is not None


#: how many polls in a row a session may have no page connected before its job is stopped (a reload, a closed
#: tab): Bokeh destroys such a session only after its unused-session lifetime (15-20 s), the job going on meanwhile
PAGE_GONE_POLLS = 2


def _connections() -> int | None:
    """How many browser connections the current server session has (None outside a server session)."""
    doc = pn.state.curdoc
    context = getattr(doc, "session_context", None)
    session = getattr(context, "_session", None)  # bokeh.server.session.ServerSession
    count = getattr(session, "connection_count", None)
    return count if isinstance(count, int) else None


class JobRunner:
    """Runs one ``Job`` at a time for one pane (see the module docstring).

    ``on_message(msg)``: called on the event loop for every message, in order, the final one included.
    ``start``/``pause``/``stop``: the pane's buttons (wired here).  ``lock``: widgets or layouts whose widgets
    are disabled while a job runs.  ``status``: a Markdown pane for the status line; ``progress``: a Progress
    indicator; ``error``: an Alert for a failed job's message; ``detail()``: the pane's text under the
    status line.  ``unit``: what the progress counts (``"steps"`` → "3.2 steps/s").  ``verb``: the running
    state's word ("training").  ``after_poll(count)``:
    called after every poll (the pane redraws once per batch of messages there).  ``on_start(job)``: called
    when a job starts.
    """

    def __init__(self, on_message, *, start=None, pause=None, stop=None, lock=(), status=None, progress=None,
                 error=None, detail=None, unit: str = "steps", period_ms: int = PERIOD_MS, on_start=None,
                 after_poll=None, verb: str = "training"):
        self.on_message = on_message
        self.start_button, self.pause_button, self.stop_button = start, pause, stop
        self.lock = list(lock)
        self.status, self.progress, self.error = status, progress, error
        self.detail = detail
        self.unit = unit
        self.verb = verb
        self.period_ms = period_ms
        self.on_start = on_start
        self.after_poll = after_poll
        #: called with the job once it has ended and the controls are unlocked (a pane's last word)
        self.on_end = None
        #: called with the running job when its page has gone (closed or reloaded) and it was asked to stop
        self.on_close = None
        self._seen_page, self._gone_polls = False, 0  # a browser was connected; polls since with none
        self.job: Job | None = None
        self._job_verb, self._job_unit = verb, unit  # the running job's (``start``)
        self._final_status = True
        self._periodic = None
        self._locked: dict = {}  # widget -> its disabled flag before the job
        #: the pane's settings are refused (its inline message says why): Start stays disabled when idle
        self.blocked = False
        self._active = False  # from start until the job's final message was handed to the pane
        self._closed = False
        if pause is not None:
            pause.on_click(guarded(self, "pausing the run")(lambda e: self.toggle_pause()))
        if stop is not None:
            stop.on_click(guarded(self, "stopping the run")(lambda e: self.stop(wait=False)))
        self._buttons(False)
        if _in_session():
            pn.state.on_session_destroyed(self._on_session_destroyed)

    # ------------------------------------------------------------------ state
    @property
    def running(self) -> bool:
        """A job was started and has not ended (its last messages may still wait for ``poll``)."""
        return self.job is not None and self.job.running

    @property
    def settled(self) -> bool:
        """The job ended and every message it posted was drained: the frame drawn now is the last one.  (Not the
        same as ``not running``: a job can end between a poll's drain and its frame, its last messages still
        waiting, and that frame would be drawn as the last and then again.)"""
        return self.job is not None and not self.job.running and not self.job.pending

    @property
    def busy(self) -> bool:
        """A job is running, or it ended and its final message was not handed to the pane yet: the controls
        stay locked until then."""
        return self._active

    @property
    def state(self) -> str:
        """What the status line says: idle / building / ``verb`` / paused / stopped / failed / done."""
        return state_word(self.job, self._job_verb)

    # ------------------------------------------------------------------ steering
    def start(self, job: Job, supersede: bool = False, verb: str | None = None, unit: str | None = "",
              final_status: bool = True) -> bool:
        """Start ``job``; with a job already running, False — or with ``supersede`` the old one is asked to
        stop and its remaining messages are dropped (short jobs replaced by a newer request).  ``verb``/``unit``:
        this job's running word and progress unit (e.g. a pane's "loading" job, counted in no unit), else the
        runner's.  ``final_status`` False: once the job has ended the pane writes the status line itself (what
        its final message showed, e.g. "Loaded …")."""
        if self._closed:
            return False
        if self.job is not None and self.job.running:
            if not supersede:
                return False
            self.job.stop()
        if self.error is not None:
            self.error.visible = False
        try:
            job.start()
        except Exception as err:  # e.g. no worker process could be started: inline, never a traceback
            text = report(None, err, f"starting job {job.name}")
            if self.error is not None:
                self.error.object = f"could not start: {text}"
                self.error.visible = True
            self.settle("starting the run failed")
            return False
        self.job = job
        self._job_verb = verb or self.verb
        self._job_unit = self.unit if unit == "" else unit
        self._final_status = final_status
        self._active = True
        try:
            self._set_locked(True)
            if self.on_start is not None:
                self.on_start(job)
            self._write_status()
            if _in_session() and self._periodic is None:
                self._periodic = pn.state.add_periodic_callback(self.poll, period=self.period_ms)
        except Exception:  # nothing would ever drain it: the job is stopped and its messages dropped
            job.stop()
            self._active = False
            self.settle("starting the run failed")
            raise
        return True

    def toggle_pause(self) -> None:
        if self.job is None:
            return
        if self.job.paused:
            self.resume()
        else:
            self.pause()

    def pause(self) -> None:
        if self.job is not None and self.job.running:
            self.job.pause()
            if self.pause_button is not None:
                self.pause_button.label = "Resume"
            self._write_status()

    def resume(self) -> None:
        if self.job is not None:
            self.job.resume()
            if self.pause_button is not None:
                self.pause_button.label = "Pause"
            self._write_status()

    def stop(self, wait: bool = False, timeout: float = 30.0) -> None:
        """Ask the job to stop; with ``wait``, wait for its final message and process it (scripts, tests)."""
        if self.job is None:
            return
        self.job.stop()
        if self.pause_button is not None:
            self.pause_button.label = "Pause"
        if wait:
            self.job.join(timeout)
            self.poll()

    def _on_session_destroyed(self, session_context) -> None:
        self._page_closed()

    def _page_closed(self) -> None:
        """The page is gone (closed, reloaded): stop the job (it saves itself as ``stopped``) and tell
        ``on_close``, once; nobody is left to see a message."""
        if self._closed:
            return
        self._closed = True
        try:
            job = self.job
            if job is not None and job.running:
                job.stop()  # a process job that does not stop is ended after its grace period
                if self.on_close is not None:
                    self.on_close(job)
            self._stop_periodic()
        except Exception:
            log.debug("stopping the job of a closed session failed", exc_info=True)

    def _page_gone(self) -> bool:
        """The page this session served has gone (closed or reloaded), long before Bokeh destroys the session:
        checked at every poll while a job runs, it is gone once the session had a browser connection and then
        has none at ``PAGE_GONE_POLLS`` polls in a row (Bokeh does not reconnect a page that lost its socket)."""
        count = _connections()
        if count is None:
            return False
        if count > 0:
            self._seen_page, self._gone_polls = True, 0
            return False
        self._gone_polls += 1
        return self._seen_page and self._gone_polls >= PAGE_GONE_POLLS

    def settle(self, note: str = "") -> None:
        """After a failure: the buttons, the locked settings and the status line agree with the job again.

        A job still running (or whose last messages wait for ``poll``) keeps everything locked and its status
        line; otherwise the runner is idle: settings unlocked, Start enabled, Pause/Stop disabled, and the status
        line reads ``**idle** · note``."""
        job = self.job
        if self._active and job is not None and (job.running or job.pending):
            self._set_locked(True)
            self._write_status()
            return
        self._active = False
        self._set_locked(False)
        self._stop_periodic()
        if self.progress is not None:
            self.progress.value = 0
        if self.status is not None:
            self.status.object = "**idle**" + (f" · {note}" if note else "")

    # ------------------------------------------------------------------ the event loop
    def poll(self) -> int:
        """Hand every new message to the pane, refresh the status; returns how many messages arrived.  Never
        raises (it is the periodic callback): a failure is shown inline and the runner settles."""
        with guarded(self, "drawing the run"):
            return self._poll()
        return 0

    def _poll(self) -> int:
        job = self.job
        if job is None:
            return 0
        if job.running and self._page_gone():
            self._page_closed()
            return 0
        messages = job.drain()
        for msg in messages:
            if msg.get("kind") == "failed" and self.error is not None:
                self.error.object = msg.get("error", "failed")
                self.error.visible = True
            try:
                self.on_message(msg)
            except Exception as err:  # a drawing failure: inline, and the job goes on
                self._drawing_failed(err, f"drawing a {msg.get('kind')} message")
        if self.after_poll is not None:
            try:
                self.after_poll(len(messages))
            except Exception as err:
                self._drawing_failed(err, "drawing")
        if self._active and not job.running and not job.pending:
            self._active = False
            self._set_locked(False)
            self._stop_periodic()
            if self.on_end is not None:
                try:
                    self.on_end(job)
                except Exception as err:
                    self._drawing_failed(err, "ending the run")
        self._write_status()
        return len(messages)

    def _drawing_failed(self, err: Exception, action: str) -> None:
        text = report(None, err, action)
        if self.error is not None:
            self.error.object = f"could not draw the latest results: {text}"
            self.error.visible = True

    def _stop_periodic(self) -> None:
        if self._periodic is not None:
            self._periodic.stop()
            self._periodic = None

    # ------------------------------------------------------------------ widgets and status
    def _widgets(self):
        out = []
        for obj in self.lock:
            found = obj.select(pn.widgets.Widget) if hasattr(obj, "select") else [obj]
            out.extend(w for w in found if w not in out)
        return out

    def _set_locked(self, on: bool) -> None:
        if on:
            for w in self._widgets():
                if w not in self._locked:
                    self._locked[w] = w.disabled
                w.disabled = True
        else:
            for w, before in self._locked.items():
                w.disabled = before
            self._locked = {}
        self._buttons(on)

    def block(self, on: bool) -> None:
        """Hold Start while the pane's settings are refused (its inline message says why), or give it back; the
        buttons of a job that runs stay as they are."""
        self.blocked = bool(on)
        if not self.busy:
            self._buttons(False)

    def _buttons(self, running: bool) -> None:
        if self.start_button is not None:
            self.start_button.disabled = running or self.blocked
        for b in (self.pause_button, self.stop_button):
            if b is not None:
                b.disabled = not running
        if self.pause_button is not None and not running:
            self.pause_button.label = "Pause"

    def status_text(self) -> str:
        """``**training** · step 12/60 · 3.1 steps/s · 4.0 s elapsed · ETA 15.2 s`` (see ``status_line``)."""
        job = self.job
        return status_line(job, self._job_verb, self._job_unit,
                           finishing=self._active and job is not None and not job.running)

    def _write_status(self) -> None:
        job = self.job
        if job is None or (not self._final_status and not self._active):
            return
        if self.progress is not None:  # shown from the first job on (an empty bar before any run reads as broken)
            self.progress.visible = True
            self.progress.value = int(100 * job.done / job.total) if job.total else 0
        if self.status is not None:
            try:
                extra = self.detail() if self.detail is not None else ""
            except Exception:  # the status line must never take the page down
                log.debug("the pane's status detail failed", exc_info=True)
                extra = ""
            self.status.object = self.status_text() + (f"  \n{extra}" if extra else "")
