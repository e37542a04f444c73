"""The dashboard's light or dark theme: chosen when the page opens, never by a toggle that reloads it; its fonts
and its toggle buttons.

Panel's FastListTemplate switches its theme by reloading the page with ``?theme=...`` (its header toggle sets
``window.location.href``): the session ends, and with it a running job.  The lab's template has no toggle;
the theme is the URL's ``?theme=dark`` (or ``default`` / ``light``), else the ``LAB_THEME`` environment
variable, else light.  An unknown name is not an error page: the light theme is used and the log says why.

>>> pick_theme("dark", None), pick_theme(None, "Dark"), pick_theme("light", "dark"), pick_theme(None, None)
('dark', 'dark', 'default', 'default')
>>> pick_theme("purple", None)
'default'

Fonts: the page asks no other host for anything (the lab runs on machines without internet).  Panel's Fast design
links Google's "Open Sans"; the lab's design (``lab_design``) drops that link, and the page, its widgets and its
plots use the system font stack ``SYSTEM_FONTS`` (Segoe UI on Windows, the Apple system font on a Mac, Roboto /
Arial / Liberation Sans on Linux).

Toggles: in Fast's button groups (``RadioButtonGroup``, ``CheckButtonGroup``: Scale, Strategies, Run in …) an on
button differed from an off one by 5/255 of grey.  ``lab_design`` gives every such group ``BUTTON_GROUP_CSS``: an
on button is filled with the theme's accent (Fast's ``--accent-foreground-rest``, the accent shade that keeps
4.5:1 against the page in either theme) under text in the page's colour; an off one keeps the neutral fill and
gets a grey outline.  The browser test measures at least 3:1 between the two fills (WCAG's contrast for the
parts of a control that show its state) in both themes.
"""
from __future__ import annotations

import functools
import logging
import os

log = logging.getLogger(__name__)

THEMES = ("default", "dark")  #: Panel's theme names
ALIASES = {"light": "default", "default": "default", "dark": "dark"}
ENV = "LAB_THEME"

#: the page's fonts: each platform's own user-interface font, never one fetched from a font service
SYSTEM_FONTS = ('-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, '
                '"Liberation Sans", "Noto Sans", sans-serif')

#: the on / off look of every button group's default buttons (inside each widget's shadow root, after Fast's
#: own ``fast.css``; the selectors outrank Fast's ``:host(.solid) .bk-btn.bk-btn-default.bk-active``)
BUTTON_GROUP_CSS = """
:host(.solid) .bk-btn-group .bk-btn.bk-btn-default,
:host(.outline) .bk-btn-group .bk-btn.bk-btn-default {
  border: 1px solid var(--neutral-stroke-rest);
}
:host(.solid) .bk-btn-group .bk-btn.bk-btn-default.bk-active,
:host(.outline) .bk-btn-group .bk-btn.bk-btn-default.bk-active {
  background-color: var(--accent-foreground-rest);
  border-color: var(--accent-foreground-rest);
  color: var(--neutral-layer-1);
}
:host(.solid) .bk-btn-group .bk-btn.bk-btn-default.bk-active:hover,
:host(.outline) .bk-btn-group .bk-btn.bk-btn-default.bk-active:hover {
  background-color: var(--accent-foreground-hover);
  border-color: var(--accent-foreground-hover);
  color: var(--neutral-layer-1);
}
"""

#: the page's own stylesheet (the template's ``raw_css``): Fast's font token set to ``SYSTEM_FONTS`` for the
#: whole body (its default names fonts that are fetched or bought: "aktiv-grotesk")
PAGE_CSS = f"body {{ --body-font: {SYSTEM_FONTS}; font-family: var(--body-font); }}"


def _name(value, where: str) -> str | None:
    if value is None:
        return None
    text = str(value).strip().strip("'\"").lower()
    if not text:
        return None
    if text not in ALIASES:
        log.warning("unknown theme %r in %s: use dark or light; the light theme is used", value, where)
        return "default"
    return ALIASES[text]


def pick_theme(url: str | None, env: str | None) -> str:
    """The theme from the URL's ``theme`` argument, else from ``LAB_THEME``'s value, else ``"default"``."""
    return _name(url, "the URL") or _name(env, ENV) or "default"


def template_theme() -> dict:
    """The template's theme arguments for this session: ``theme`` as ``pick_theme`` decides, no reloading toggle.

    Panel's Fast templates read ``?theme=`` themselves (and fail on an unknown name), so the session's URL
    argument is set to the theme decided here; the session's ``pn.config.theme`` (the widgets' and plots'
    theme) follows it too."""
    import panel as pn

    args = pn.state.session_args
    raw = args.get("theme") if isinstance(args, dict) else None
    url = raw[0].decode("utf-8", "replace") if raw else None
    theme = pick_theme(url, os.environ.get(ENV))
    if raw:  # the template reads it: only a name it knows
        args["theme"] = [theme.encode()]
    if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
        pn.config.theme = theme  # this session's only
    return {"theme": theme, "theme_toggle": False}


@functools.cache
def lab_design():
    """Panel's Fast design less its Google-font link, with ``BUTTON_GROUP_CSS`` in every button group (a Design's
    ``modifiers`` reach inside each widget's shadow root, where the page's own CSS cannot)."""
    import panel as pn
    from panel.io.resources import CDN_DIST
    from panel.theme import Fast
    from panel.theme.base import Inherit

    resources = {kind: value for kind, value in Fast._resources.items() if kind != "font"}
    # a resource named by a relative path is looked up under the design's class name: name Fast's file in full
    resources["js_modules"] = {**Fast._resources["js_modules"],
                               "fast-design": f"{CDN_DIST}bundled/fast/js/fast_design.js"}
    group = {"stylesheets": [Inherit, BUTTON_GROUP_CSS]}

    class LabFast(Fast):
        __doc__ = lab_design.__doc__
        _resources = resources
        modifiers = {pn.widgets.RadioButtonGroup: group, pn.widgets.CheckButtonGroup: group}

    return LabFast


def template_style() -> dict:
    """The template's design, fonts and page stylesheet (see ``lab_design``, ``SYSTEM_FONTS``, ``PAGE_CSS``)."""
    return {"design": lab_design(), "font": SYSTEM_FONTS, "font_url": "", "raw_css": [PAGE_CSS]}
