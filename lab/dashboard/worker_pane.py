"""What the two job panes (Training dynamics, Sharing discovery) share beyond their ``JobRunner``: errors."""
from __future__ import annotations


class WorkerPaneMixin:
    """Expects an ``_error`` Alert."""

    def _show_error(self, message: str):
        self._error.object = message
        self._error.visible = True
