"""How every dashboard callback fails: one inline message, the pane back in a consistent state, no traceback.

A callback (a button click, a param watcher, the periodic drain, a select change, load / save / export) runs
inside ``guarded(pane, action)``.  When it raises, the exception is turned into the pane's inline message
(``lab.jobs.error_text``: a ``LabError``'s text as is, any other exception ``"unexpected TypeName: message"``),
the traceback goes to this module's logger at DEBUG level (never to the server log), and the pane's
``JobRunner`` (if any) puts the buttons, the locked settings and the status line back in line with its job:
idle when no job runs (Start enabled, Pause/Stop disabled), as the job is when one does.

>>> import panel as pn
>>> class Pane:
...     _error = pn.pane.Alert(visible=False)
>>> pane = Pane()
>>> with guarded(pane, "drawing"):
...     raise ValueError("no data\\nsecond line")
>>> pane._error.object, pane._error.visible
('unexpected ValueError: no data', True)

The forms:

* ``with guarded(pane, action): ...`` (the block's exception is swallowed; ``.failed`` tells afterwards);
* ``guarded(pane, action)(fn)``: ``fn`` wrapped (returns None when it failed), for lambdas and watchers;
* ``@guard(action, default=False)`` on a pane's method (returns ``default`` when it failed);
  (these two run inside Panel's ``hold``: the callback's changes reach the page together, once it ends)
* ``guard_settings(pane, layout)``: what a browser's change to each widget runs (the widget's conversion of
  the value and the link ``Widget.from_param`` made to the pane's parameter), so a value the widget or the
  parameter refuses (only a hostile or broken browser sends one: the widgets carry the bounds and choices)
  becomes an inline message instead of a server traceback.

``pane`` is anything with an ``_error`` (or ``error``) Alert and optionally a ``runner`` (or is a runner:
something with ``settle(note)``).  Nothing here knows a pane's particular widgets.
"""
from __future__ import annotations

import functools
import logging

from ..jobs import error_text

log = logging.getLogger(__name__)


def report(alert, err: BaseException, action: str, words=None) -> str:
    """Show ``err``'s one line in ``alert`` (if any) and send the traceback to the log at DEBUG level.
    ``words(text)``: the pane's way of saying it (``JobPane._in_words``: its boxes' labels for command-line
    flags)."""
    text = error_text(err)
    log.debug("%s failed: %s", action, text, exc_info=err)
    if words is not None:
        text = words(text)
    if alert is not None:
        alert.object = text
        alert.visible = True
    return text


def _alert(target):
    for name in ("_error", "error"):
        alert = getattr(target, name, None)
        if alert is not None:
            return alert
    return None


def settle(target, note: str = "") -> None:
    """Ask ``target``'s runner (or ``target`` itself, when it is one) to make the buttons, the locked settings and
    the status line agree with its job again; a failure here is logged (DEBUG), never raised."""
    runner = target if callable(getattr(target, "settle", None)) else getattr(target, "runner", None)
    if runner is None or not callable(getattr(runner, "settle", None)):
        return
    try:
        runner.settle(note)
    except Exception:  # the page must stay up whatever the state
        log.debug("settling after %r failed", note, exc_info=True)


def _held():
    """Panel's ``hold`` on the session's document (nothing outside a server): a callback's changes to Bokeh models
    already on the page are collected and sent once it ends.  Panel runs a button's or a setting's callback with
    the document unlocked; a bare change to a model on the page there was seen to fail now and then with Bokeh's
    "_pending_writes should be non-None when we have a document lock" (issue 48), and inside ``hold`` it does not.
    Every guarded callback and method runs inside it, so no pane has to remember it."""
    import panel as pn

    return pn.io.hold()


class guarded:
    """The one failure path of a callback: see the module docstring."""

    def __init__(self, pane, action: str):
        self.pane, self.action = pane, action
        self.failed = False
        self.error: BaseException | None = None

    def __enter__(self):
        self.failed, self.error = False, None
        return self

    def __exit__(self, kind, err, tb):
        if err is None or not isinstance(err, Exception):  # KeyboardInterrupt, SystemExit: not ours to keep
            return False
        self.failed, self.error = True, err
        try:
            report(_alert(self.pane), err, self.action, getattr(self.pane, "_in_words", None))
        except Exception:
            log.debug("showing the failure of %s failed", self.action, exc_info=True)
        settle(self.pane, f"{self.action} failed")
        return True

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _held(), guarded(self.pane, self.action):
                return fn(*args, **kwargs)
            return None

        wrapper.__lab_guarded__ = True
        return wrapper


def guard(action: str, default=None):
    """Decorator for a pane's method: the method runs ``guarded(self, action)``; ``default`` when it failed."""

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            with _held(), guarded(self, action):
                return method(self, *args, **kwargs)
            return default

        return wrapper

    return decorate


def _widgets(objs):
    import panel as pn

    out = []
    for obj in objs:
        found = obj.select(pn.widgets.Widget) if hasattr(obj, "select") else [obj]
        out.extend(w for w in found if w not in out)
    return out


def guard_settings(pane, *objs, action: str = "changing") -> int:
    """Guard what a browser's change to each widget in ``objs`` (made with ``Widget.from_param``) runs.

    Panel runs a browser's change inside the widget and logs any exception there as a server traceback.  Two
    steps can raise on a value only a hostile or broken browser sends (the widgets carry the bounds and
    choices): the widget turning it into a value (a Select's unknown label; the change is then ignored) and
    the link to the pane's parameter (a value out of bounds; the link puts the pane's value back into the
    widget).  Both run here inside ``guarded(pane, "changing <label>")``: the link's watcher is re-registered
    through param's public ``watchers`` / ``unwatch`` / ``watch``, the conversion wrapped on the widget.
    Returns how many widgets were guarded (each once, however often this is called).
    """
    count = 0
    for w in _widgets(objs):
        if getattr(w, "_lab_guarded", False):
            continue
        label = getattr(w, "label", None) or w.name or "a setting"
        g = guarded(pane, f"{action} {label}")
        for watcher in list(w.param.watchers.get("value", {}).get("value", [])):
            if getattr(watcher.fn, "__name__", "") == "link_widget":
                w.param.unwatch(watcher)
                w.param.watch(g(watcher.fn), list(watcher.parameter_names), what=watcher.what,
                              onlychanged=watcher.onlychanged, queued=watcher.queued, precedence=watcher.precedence)
        convert = w._process_property_change

        def process_property_change(props, convert=convert, g=g):
            with g:
                return convert(props)
            return {}  # the change is ignored

        w._process_property_change = process_property_change
        w._lab_guarded = True
        count += 1
    return count
