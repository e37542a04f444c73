"""How a pane lays itself out: its controls go to the template's sidebar, its plots to the main area.

A pane builds two parts once, ``_sidebar()`` (settings, buttons) and ``_main()`` (status, plots, saved runs);
``build_app`` shows the active tab's sidebar in the template's sidebar and its main part in the tab, so at
1280×800 the plots get the page's full width.  Standalone (a notebook cell, ``pn.panel(pane)``) a pane shows
both side by side.

Sizes: panes stretch to the width they are given (``sizing_mode="stretch_width"``); a plot that can be wider
than that (a big matrix) sits in a ``scroll_box``, so nothing is ever cut without a scroll bar.
"""
from __future__ import annotations

import panel as pn

#: the template sidebar's width in px: the controls' column fits it (three number boxes in a row)
SIDEBAR_WIDTH = 350
#: the most a scroll box takes of the page's height before it scrolls (a matrix plot of a large rep)
SCROLL_MAX_HEIGHT = 720


def scroll_box(*objects, css_classes=(), **params) -> pn.Column:
    """A full-width column that scrolls (both ways) when its content is larger than the room it gets."""
    return pn.Column(*objects, scroll=True, sizing_mode="stretch_width", max_height=SCROLL_MAX_HEIGHT,
                     css_classes=["scroll-box", *css_classes], **params)


class SidebarPane:
    """Mixin for a ``pn.viewable.Viewer`` pane: implement ``_sidebar()`` and ``_main()``."""

    _parts: tuple | None = None

    def _sidebar(self):
        raise NotImplementedError

    def _main(self):
        raise NotImplementedError

    def _built(self) -> tuple:
        if self._parts is None:
            self._parts = (self._sidebar(), self._main())
        return self._parts

    @property
    def sidebar(self):
        """The pane's controls (the template puts them in its sidebar)."""
        return self._built()[0]

    @property
    def main(self):
        """The pane's status, plots and saved runs."""
        return self._built()[1]

    def __panel__(self):
        return pn.Row(self.sidebar, self.main, sizing_mode="stretch_width")


def titled(widget, title: str, css_classes=()) -> pn.Column:
    """``widget`` under a label like every other control's: Bokeh's button groups draw none of their own (a row
    of toggles without a title reads as a list of tabs)."""
    label = pn.pane.HTML(f"<label>{title}</label>", margin=(5, 10, -5, 10), styles={"font-size": "0.95em"})
    return pn.Column(label, widget, sizing_mode="stretch_width", css_classes=list(css_classes))
