"""What the two worker-thread panes (Training dynamics, Sharing discovery) share: their buttons and errors."""
from __future__ import annotations


class WorkerPaneMixin:
    """Expects ``_start_b``, ``_pause_b``, ``_stop_b`` buttons and an ``_error`` Alert."""

    def _buttons(self, running: bool):
        self._start_b.disabled = running
        self._pause_b.disabled = self._stop_b.disabled = not running
        self._pause_b.name = "Pause"

    def _show_error(self, message: str):
        self._error.object = message
        self._error.visible = True
