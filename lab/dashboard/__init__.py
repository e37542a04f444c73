"""The Panel dashboard: a template app whose tabs are panes, one module each.

A family's tab comes from its manifest (``Family.pane``, ``Family.tab``: ``lab.experiments.plugins.tabs``); a
pane class builds ``main`` and ``sidebar``.  ``app`` builds the page (``build_app``, what ``app.py`` serves).
"""
from .app import ABOUT, PANES, SHELL_PANES, TABS_CSS, _load, build_app  # noqa: F401

__all__ = ["build_app", "PANES", "SHELL_PANES", "ABOUT", "TABS_CSS"]
