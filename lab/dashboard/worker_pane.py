"""What the two job panes (Training dynamics, Sharing discovery) share beyond their ``JobRunner``: errors and the
Saved-runs select.

A run is loaded only when it is one of the runs the pane listed from its own runs directory: ``_listed_run``
refuses anything else (a path a hostile browser sends, ``../../etc/passwd``, an absolute path) with a
``LabError``, which the pane's guard shows inline.  ``RunSelect`` refuses such a value already where the
browser's change arrives, before Panel would look it up (and log a traceback for it).
"""
from __future__ import annotations

import os

import panel as pn

from ..errors import LabError
from .guard import guarded


def _shown(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


class RunSelect(pn.widgets.Select):
    """The Saved-runs select: a value the browser sends that is not one of the listed runs is refused
    (``on_refused(value)`` is called, the selection stays as it was), never looked up."""

    def __init__(self, on_refused=None, **params):
        super().__init__(**params)
        self._on_refused = on_refused

    def _process_property_change(self, props):
        value = props.get("value")
        if ("value" in props and value not in ("", None) and value not in self.labels
                and value not in self.unicode_values):
            props = {k: v for k, v in props.items() if k != "value"}
            if self._on_refused is not None:
                self._on_refused(value)
        return super()._process_property_change(props)


class WorkerPaneMixin:
    """Expects an ``_error`` Alert, a ``_saved`` Select (made with ``_run_select``), ``results`` (the pane's runs
    directory) and ``_refresh_saved()`` (lists that directory into ``_saved``)."""

    def _show_error(self, message: str):
        self._error.object = message
        self._error.visible = True

    def _checked(self, config):
        """``config`` validated; a refusal is remembered as the settings' message (``_recheck_settings``)."""
        try:
            return config.validate()
        except LabError as err:
            self._settings_error = str(err)
            raise

    def _watch_settings(self) -> None:
        """Re-check a refused setting at every change of the pane's parameters (see ``_recheck_settings``)."""
        self.param.watch(guarded(self, "checking the settings")(self._recheck_settings),
                         [p for p in self.param if p != "name"])

    def _recheck_settings(self, *events) -> None:
        """While the message shown is the refusal of the settings a Start was refused for, it follows the
        settings: updated while they are still refused, hidden once they are accepted (never a stale one)."""
        shown = getattr(self, "_settings_error", None)
        if shown is None or not self._error.visible or self._error.object != shown or self.runner.busy:
            return
        try:
            self.config().validate()
        except LabError as err:
            self._settings_error = self._error.object = str(err)
        else:
            self._settings_error = None
            self._error.visible = False

    def _run_select(self, **params) -> RunSelect:
        return RunSelect(on_refused=guarded(self, "choosing a saved run")(self._listed_run), **params)

    def _list_runs(self, paths) -> None:
        """Show ``paths`` (runs of the pane's own directory) in ``_saved``; the selection stays when it is still
        listed, else it is the first run (what the browser shows selected, so that Load loads it)."""
        options = {p.name: str(p) for p in paths}
        keep = self._saved.value
        self._saved.options = options
        if keep not in options.values():
            self._saved.value = next(iter(options.values()), None)

    def _listed_run(self, value) -> str:
        """``value`` when it is exactly one of the runs ``_saved`` lists (listed afresh once when it is not, for a
        run saved since), else a ``LabError``: nothing outside the pane's own runs directory is ever read."""
        key = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
        if key is not None and key not in self._saved.options.values():
            self._refresh_saved()
        if key is None or key not in self._saved.options.values():
            raise LabError(f"refused to load {_shown(value)}: it is not one of the saved runs listed from "
                           f"{self.results}")
        return key
